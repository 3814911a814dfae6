// Group commit: the writes that queue up while one transaction is being made durable share the next
// one. Each write runs in its own savepoint, so one failing write is undone alone; the batch's
// single COMMIT (one fsync under synchronous=FULL) acknowledges all of them at once.
import type { DomainError } from '@tracelight/domain';
import type Database from 'better-sqlite3';
import * as E from 'fp-ts/Either';
import { storageFailure } from './run';

export type WriteOutcome = E.Either<DomainError, unknown>;

export interface Settled<K> {
  readonly key: K;
  readonly outcome: WriteOutcome;
}

/** Most writes one transaction takes: bounds how long a commit keeps the writes behind it waiting. */
const MAX_BATCH = 256;

/** Thrown when SQLite undid the whole transaction on the failure of the batch's `index`th write. */
class BatchUndone extends Error {
  constructor(
    readonly index: number,
    readonly error: DomainError,
  ) {
    super(error._tag);
  }
}

export class GroupCommit<K, J> {
  private readonly queue: Array<{ readonly key: K; readonly job: J }> = [];
  private scheduled = false;
  private flushing = false;

  constructor(
    private readonly db: Database.Database,
    /** Runs one write on `db` (inside the batch's transaction); a Left undoes it. */
    private readonly execute: (job: J) => Promise<WriteOutcome>,
    /** Receives every write's outcome once the batch is committed (or has failed as a whole). */
    private readonly settle: (settled: ReadonlyArray<Settled<K>>) => void,
  ) {}

  submit(key: K, job: J): void {
    this.queue.push({ key, job });
    this.schedule();
  }

  /** Nothing queued and nothing being written. */
  get idle(): boolean {
    return this.queue.length === 0 && !this.flushing;
  }

  private schedule(): void {
    if (this.scheduled || this.flushing) return;
    this.scheduled = true;
    // After the I/O callbacks of this turn: every write that has arrived by then joins the batch.
    setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    this.flushing = true;
    const batch = this.queue.splice(0, MAX_BATCH);
    let settled: Array<Settled<K>> = [];
    try {
      this.db.exec('BEGIN IMMEDIATE');
      for (const [index, { key, job }] of batch.entries()) {
        this.db.exec('SAVEPOINT write');
        let outcome: WriteOutcome;
        try {
          outcome = await this.execute(job);
        } catch (e) {
          outcome = E.left(storageFailure(e));
        }
        // On SQLITE_FULL (or an I/O error) SQLite may roll back the whole transaction, not just the
        // statement (it does for a one-row insert that does not fit): then there is no savepoint to
        // return to, and the writes before this one are undone too.
        if (E.isLeft(outcome) && !this.db.inTransaction) throw new BatchUndone(index, outcome.left);
        if (E.isLeft(outcome)) this.db.exec('ROLLBACK TO write');
        this.db.exec('RELEASE write');
        settled.push({ key, outcome });
      }
      this.db.exec('COMMIT');
    } catch (e) {
      // The batch could not be made durable (I/O error, disk full, lock timeout): none of it happened.
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      if (e instanceof BatchUndone) {
        // That write alone is refused; the others, undone with it but not yet answered, go again first.
        settled = [{ key: batch[e.index]!.key, outcome: E.left(e.error) }];
        this.queue.unshift(...batch.filter((_, i) => i !== e.index));
      } else {
        const error = storageFailure(e);
        settled = batch.map(({ key }) => ({ key, outcome: E.left(error) }));
      }
    } finally {
      this.flushing = false;
    }
    this.settle(settled);
    if (this.queue.length > 0) this.schedule();
  }
}
