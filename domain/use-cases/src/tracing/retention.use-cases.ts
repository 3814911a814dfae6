// Retention: records older than the configured number of days are removed, in bounded batches so that
// a sweep never holds the storage (or its single writer) for long.
import { invalid } from '@tracelight/domain';
import type { Clock, LogRecordRepository } from '@tracelight/ports';
import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import type { UseCase } from '../shared/te';

const DAY_MS = 86_400_000;

export interface RetentionDeps {
  readonly records: LogRecordRepository;
  readonly clock: Clock;
}

export interface ExpiredBatch {
  /** Records created before this instant were eligible. */
  readonly cutoff: Date;
  readonly removed: number;
  /** True when the batch removed fewer than it could: nothing older than the cutoff is left. */
  readonly done: boolean;
}

export class RetentionUseCases {
  constructor(private readonly deps: RetentionDeps) {}

  /**
   * One batch of a sweep: removes at most `batch` records created more than `keepDays` days ago (by
   * their `created_at`, the time the application gave them). A sweep repeats it until `done`; the
   * caller decides how to pace the batches.
   */
  expireBatch(keepDays: number, batch: number): UseCase<ExpiredBatch> {
    if (!Number.isInteger(keepDays) || keepDays < 1) return TE.left(invalid(['keepDays'], 'keep records at least one whole day', keepDays));
    if (!Number.isInteger(batch) || batch < 1) return TE.left(invalid(['batch'], 'a batch removes at least one record', batch));
    const cutoff = new Date(this.deps.clock.now().getTime() - keepDays * DAY_MS);
    return pipe(
      this.deps.records.removeCreatedBefore(cutoff, batch),
      TE.map((removed) => ({ cutoff, removed, done: removed < batch })),
    );
  }
}
