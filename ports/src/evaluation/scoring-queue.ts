// The durable queue of scoring jobs: written with the records that cause them (the ingest's own
// transaction: an outbox), claimed under leases, and finished once per (record, scorer version).
import type { ClaimedJob, JobCounts, JobOutcome, NewScoringJob, RollUpSpec, RunId, ScorerId } from '@tracelight/domain';
import type { Result } from '../system/result';

/**
 * What a recompute queues: `again` (the default) stores each job not stored yet and queues again those
 * whose outcome may change (REQUEUED_STATES); `new` only stores the jobs not stored yet (their owner's
 * setup cannot score them now, so queuing the ended ones again would only end them the same way).
 */
export type RequeueMode = 'again' | 'new';

export interface ScoringQueue {
  /**
   * Claims at most `limit` jobs that are due: pending ones whose backoff has passed, and computing ones
   * whose lease ran out (their holder died or stalled). Live jobs (stored with their records) come
   * before backfill jobs (a recompute's); within each, the jobs' owners take turns, one job each per
   * turn, the turns going on from where this process's last claim stopped, each owner's oldest due job
   * first: one owner's backlog delays another's next job by at most one job per owner with work. The
   * cost of a claim grows with the owners that have jobs, not with the jobs due. Each job is held by
   * `owner` until `leaseUntil`, its attempts counted up by one. Concurrent claims, in any number of
   * processes, never hand out one job twice while its lease holds.
   */
  claim(owner: string, limit: number, now: Date, leaseUntil: Date): Result<ReadonlyArray<ClaimedJob>>;
  /** Moves the lease of the jobs `owner` still holds among `ids` to `leaseUntil`; the ids it still held. */
  renew(owner: string, ids: ReadonlyArray<string>, leaseUntil: Date): Result<ReadonlyArray<string>>;
  /**
   * Stores what became of a job its holder still holds, in one transaction, once: a `retry` puts it back
   * to pending until `dueAt`; an outcome ends it and writes the record's entry for the metric (the value
   * into `metrics`, the details into `metricInfo`, the column's presence on success; an entry of a later
   * version on the record is left alone), then, for a numeric success with `rollUp`, the average roll-up
   * of the record's trace and session (rollUpTargets, takesRollUp). Tokens are added to the job's. False,
   * storing nothing, when the lease was lost (another worker claimed the job since): its outcome is that
   * worker's to store, so a result is stored at most once, whatever retries or crashes happened.
   */
  complete(job: ClaimedJob, outcome: JobOutcome, now: Date, rollUp: RollUpSpec | null): Result<boolean>;
  /**
   * Queues jobs for records already stored (a recompute), as backfill (claimed after live jobs): each job
   * not stored yet is added, and, in mode `again`, one stored whose outcome may change once its cause is
   * mended (REQUEUED_STATES) is made pending again with its attempts reset; a success, or a job pending
   * or being computed, is left as it is. The record's entry for the metric says `pending` again unless it
   * holds a success. How many jobs were queued.
   */
  requeue(jobs: ReadonlyArray<NewScoringJob>, now: Date, mode?: RequeueMode): Result<number>;
  /** Whether the run has backfill jobs (a recompute's) of any of these scorers still to do: pending or computing. */
  backfilling(runId: RunId, scorerIds: ReadonlyArray<ScorerId>): Result<boolean>;
  /** The run's jobs by scorer version and state, with their tokens and the latest failure's message. */
  counts(runId: RunId): Result<ReadonlyArray<JobCounts>>;
  /** Jobs of every run waiting to be scored (pending) and being scored (computing). */
  depth(): Result<{ readonly pending: number; readonly computing: number }>;
}
export const ScoringQueue = Symbol.for('tracelight.ScoringQueue');
