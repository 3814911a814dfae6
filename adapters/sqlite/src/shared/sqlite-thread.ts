// The server thread's end of a SQLite thread: the writer thread (every write, committed in groups) or a
// search thread (record searches, on a read-only connection of its own). Sends repository calls,
// resolves them when the thread settles them, and restarts the thread if it ever dies (failing only
// the calls that were in flight), trying again with growing waits for as long as it cannot start.
import { type DomainError, invalid, unavailable } from '@tracelight/domain';
import { NoRoomToStart } from '@tracelight/ports';
import { PendingCalls } from '@tracelight/worker-calls';
import * as E from 'fp-ts/Either';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { WriteOutcome } from './group-commit';
import type { FromWriter, RepositoryName, ToWriter, WriteRequest, WriterData } from './writer-protocol';

// The compiled workers (and the backup's process), also when this module runs from TypeScript sources
// (tests): both src/shared and dist/shared sit two levels below the package root.
export const compiled = (name: string): string => path.resolve(__dirname, '..', '..', 'dist', 'shared', name);

/**
 * The scripts the threads run: this adapter's compiled workers by default; an app that bundles its code
 * gives the bundles of the same two scripts (SqliteStorageOptions.threadScripts).
 */
export interface ThreadScripts {
  readonly writer: string;
  readonly search: string;
}

export const COMPILED_THREAD_SCRIPTS: ThreadScripts = { writer: compiled('sqlite-writer.worker.js'), search: compiled('sqlite-search.worker.js') };

/** What runs on a thread: its script, and what it is called in what the storage says of it. */
interface Role {
  readonly script: string;
  readonly name: string;
}

/** Waits between attempts to start a thread again: doubling from the first to the last. */
const RESTART_FIRST_WAIT_MS = 250;
const RESTART_LAST_WAIT_MS = 30_000;

export class SqliteThread {
  private worker: Worker | undefined;
  /** Calls sent and not yet settled (not a Map: see PendingCalls). */
  private readonly pending = new PendingCalls<(outcome: WriteOutcome) => void>();
  /** Writes requested during this turn of the event loop, sent together at its end. */
  private outbox: WriteRequest[] = [];
  private closing = false;
  private closed: Promise<void> | undefined;
  /** Why the last attempt to start the thread again failed, while it has not started. */
  private restartFailure: string | undefined;
  private restartTimer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly data: WriterData,
    private readonly role: Role,
  ) {}

  /** Starts the writer thread; resolves once it has opened and migrated the database. */
  static async startWriter(data: WriterData, scripts: ThreadScripts = COMPILED_THREAD_SCRIPTS): Promise<SqliteThread> {
    return SqliteThread.started(new SqliteThread(data, { script: scripts.writer, name: 'the storage writer' }));
  }

  /** Starts a search thread on the (migrated) database at `path`; resolves once it has opened it. */
  static async startSearch(path: string, scripts: ThreadScripts = COMPILED_THREAD_SCRIPTS): Promise<SqliteThread> {
    return SqliteThread.started(new SqliteThread({ path }, { script: scripts.search, name: 'a storage search thread' }));
  }

  private static async started(thread: SqliteThread): Promise<SqliteThread> {
    await thread.spawn();
    return thread;
  }

  /** Why the thread is not running, when it is not. */
  get trouble(): string | undefined {
    const name = this.role.name;
    if (this.closing) return `${name} is closed`;
    if (this.worker !== undefined) return undefined;
    return this.restartFailure === undefined ? `${name} is restarting` : `${name} cannot start again (${this.restartFailure}); still trying`;
  }

  /** What the thread last said its prepared search statements hold (a search thread). */
  held: { readonly entries: number; readonly size: number } = { entries: 0, size: 0 };

  /** Calls sent and not yet settled. */
  get inFlight(): number {
    return this.pending.size;
  }

  /** Asked before each call: why calls are refused now (the database file gone from its path), or undefined. */
  guard: (() => string | undefined) | undefined;

  /** Runs a repository method on the thread: on the writer thread, in a group commit. */
  call(repository: RepositoryName, method: string, args: ReadonlyArray<unknown>): Promise<E.Either<DomainError, unknown>> {
    if (!this.worker || this.closing) return Promise.resolve(E.left(unavailable('storage is closed')));
    const refused = this.guard?.();
    if (refused !== undefined) return Promise.resolve(E.left(unavailable(refused)));
    return new Promise((resolve) => {
      const id = this.pending.add(resolve as (o: WriteOutcome) => void);
      // One message per turn, not per write: every message wakes the writer thread and costs both
      // threads far more than its bytes.
      if (this.outbox.length === 0) setImmediate(() => this.send());
      this.outbox.push({ id, repository, method, args });
    });
  }

  private send(): void {
    const writes = this.outbox;
    this.outbox = [];
    if (writes.length === 0) return;
    if (!this.worker) {
      for (const { id } of writes) this.settle(id, E.left(unavailable(`${this.role.name} is restarting; try again`)));
      return;
    }
    try {
      this.worker.postMessage({ type: 'writes', writes } satisfies ToWriter);
    } catch {
      // A value the structured clone refuses (it would be a bug upstream): thrown here, in a
      // setImmediate, it would end the process. Each write goes alone, and only the one that cannot
      // be sent is refused.
      for (const write of writes) {
        try {
          this.worker.postMessage({ type: 'writes', writes: [write] } satisfies ToWriter);
        } catch {
          this.settle(write.id, E.left(invalid([], 'a value of this request cannot be stored')));
        }
      }
    }
  }

  private settle(id: number, outcome: WriteOutcome): void {
    this.pending.take(id)?.(outcome);
  }

  /** Lets queued calls finish, then closes the thread's connection and ends the thread. */
  close(): Promise<void> {
    this.send();
    this.closing = true;
    clearTimeout(this.restartTimer);
    const worker = this.worker;
    if (!worker) return Promise.resolve();
    this.closed ??= new Promise<void>((resolve) => {
      worker.once('exit', () => resolve());
      worker.postMessage({ type: 'close' } satisfies ToWriter);
    });
    return this.closed;
  }

  private spawn(): Promise<void> {
    const worker = new Worker(this.role.script, { workerData: this.data });
    return new Promise<void>((resolve, reject) => {
      let ready = false;
      worker.on('message', (m: FromWriter) => {
        switch (m.type) {
          case 'ready':
            ready = true;
            this.worker = worker;
            return resolve();
          case 'failed':
            // An error does not cross the thread boundary as its class: it is made again here from its words.
            return reject(m.noRoom ? new NoRoomToStart(m.message) : new Error(m.message));
          case 'settled':
            if (m.held) this.held = m.held;
            for (const { id, outcome } of m.results) this.settle(id, outcome);
            return;
        }
      });
      worker.on('error', (e) => {
        if (!ready) reject(e);
      });
      worker.on('exit', (code) => {
        this.worker = undefined;
        // Writes in flight when the thread died may or may not have committed: say so, never guess.
        for (const resolvePending of this.pending.takeAll())
          resolvePending(E.left(unavailable(`${this.role.name} stopped; the outcome of this call is unknown`)));
        // Those not sent yet are among them, answered so already: never sent now (to a thread started
        // again meanwhile), and their ids, given out again, cannot meet an answer meant for another.
        this.outbox = [];
        if (!ready) return reject(new Error(`${this.role.name} exited with code ${code} before it was ready`));
        if (!this.closing) this.restart(RESTART_FIRST_WAIT_MS, 0);
      });
    });
  }

  /**
   * Starts the thread again; while it cannot (the file moved, the disk gone), tries again after
   * `waitMs`, doubled each time up to RESTART_LAST_WAIT_MS. Until then every call is answered
   * Unavailable and `trouble` (readiness) says why.
   */
  private restart(waitMs: number, delayMs: number): void {
    this.restartTimer = setTimeout(() => {
      if (this.closing) return;
      this.spawn().then(
        () => {
          this.restartFailure = undefined;
        },
        (e: unknown) => {
          this.restartFailure = e instanceof Error ? e.message : String(e);
          this.restart(Math.min(waitMs * 2, RESTART_LAST_WAIT_MS), waitMs);
        },
      );
    }, delayMs);
    this.restartTimer.unref();
  }
}
