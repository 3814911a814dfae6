// The life of a scoring job in a worker: claimed under a lease, its record, scorer and version read,
// scored by the runner of its kind, and its outcome (or a retry after a backoff) stored once.
import {
  type ClaimedJob,
  type DomainError,
  type JobOutcome,
  type LogRecord,
  type RetryPolicy,
  type RollUpSpec,
  type Scorer,
  type ScorerVersion,
  NO_TOKENS,
  backoffMs,
  mayRetry,
  rollUpSpecOf,
  scoreableNodeTypes,
  versionKind,
} from '@tracelight/domain';
import type { Clock, LogRecordRepository, ScorerVersionRepository, ScoringQueue } from '@tracelight/ports';
import * as E from 'fp-ts/Either';
import * as O from 'fp-ts/Option';
import type { ScorerUseCases } from '../scorers/scorer.use-cases';
import type { UseCase } from '../shared/te';
import type { RunnerVerdict, ScorerRunners } from './scorer-runner';

export interface ScoringJobsDeps {
  readonly queue: ScoringQueue;
  readonly records: LogRecordRepository;
  readonly scorers: ScorerUseCases;
  readonly versions: ScorerVersionRepository;
  readonly runners: ScorerRunners;
  readonly clock: Clock;
  /** In [0, 1): the jitter of backoffs. */
  readonly random: () => number;
  readonly retry: RetryPolicy;
}

/** What became of one job: what was stored (or that the lease was lost, or storage failed). */
export interface JobReport {
  readonly job: ClaimedJob;
  readonly outcome: JobOutcome;
  /** False: the lease was lost meanwhile (another worker took the job), and nothing was stored. */
  readonly stored: boolean;
  /** Storage failed to store it: the job stays claimed until its lease runs out, then is claimed again. */
  readonly storageError?: DomainError;
}

export class ScoringJobs {
  constructor(private readonly deps: ScoringJobsDeps) {}

  claim(owner: string, limit: number, leaseMs: number): UseCase<ReadonlyArray<ClaimedJob>> {
    const now = this.deps.clock.now();
    return this.deps.queue.claim(owner, limit, now, new Date(now.getTime() + leaseMs));
  }

  renew(owner: string, ids: ReadonlyArray<string>, leaseMs: number): UseCase<ReadonlyArray<string>> {
    return this.deps.queue.renew(owner, ids, new Date(this.deps.clock.now().getTime() + leaseMs));
  }

  /** Scores a claimed job and stores what came of it. Never rejects. */
  async run(job: ClaimedJob): Promise<JobReport> {
    const context = await this.contextOf(job);
    let verdict: RunnerVerdict | { kind: 'not_applicable'; message: string };
    let rollUp: RollUpSpec | null = null;
    if ('verdict' in context) verdict = context.verdict;
    else {
      const { scorer, version } = context;
      rollUp = rollUpSpecOf(job, scorer.display.threshold ?? null, version);
      try {
        verdict = await this.deps.runners[job.kind].score({ job, ...context });
      } catch (e) {
        // A runner that throws has a bug; the job is tried again rather than lost, and fails once spent.
        verdict = { kind: 'retry', message: `the scorer failed unexpectedly: ${e instanceof Error ? e.message : String(e)}`, tokens: NO_TOKENS };
      }
    }
    const outcome = this.outcomeOf(job, verdict);
    const stored = await this.deps.queue.complete(job, outcome, this.deps.clock.now(), rollUp)();
    return E.isLeft(stored) ? { job, outcome, stored: false, storageError: stored.left } : { job, outcome, stored: stored.right };
  }

  /** The job's record, scorer and version; or, when one is missing, the verdict that ends the job. */
  private async contextOf(job: ClaimedJob): Promise<{ record: LogRecord; scorer: Scorer; version: ScorerVersion } | { verdict: RunnerVerdict | { kind: 'not_applicable'; message: string } }> {
    const retry = (what: string, e: DomainError) => ({ verdict: { kind: 'retry' as const, message: `could not read the ${what}: ${e._tag}`, tokens: NO_TOKENS } });
    const records = await this.deps.records.findByIds(job.runId, [job.recordId])();
    if (E.isLeft(records)) return retry('record', records.left);
    const record = records.right[0];
    if (record === undefined) return { verdict: { kind: 'not_applicable', message: 'the record is no longer stored' } };
    const scorers = await this.deps.scorers.scorersByIds([job.scorerId])();
    if (E.isLeft(scorers)) return retry('scorer', scorers.left);
    const scorer = scorers.right[0];
    const version = await this.deps.versions.findByNumber(job.scorerId, job.version)();
    if (E.isLeft(version)) return retry('scorer version', version.left);
    if (scorer === undefined || O.isNone(version.right) || versionKind(version.right.value) !== job.kind)
      return { verdict: { kind: 'outcome', state: 'error', message: `scorer version ${job.version} is not stored`, tokens: NO_TOKENS } };
    // A record sent again as another type (a span made a trace) since its job was queued.
    if (!scoreableNodeTypes(version.right.value).includes(record.type))
      return { verdict: { kind: 'not_applicable', message: `the record is a ${record.type}, which version ${job.version} does not score` } };
    return { record, scorer, version: version.right.value };
  }

  /** The verdict as stored: a retry within the policy's attempts is one, a retry past them a failure with the last reason. */
  private outcomeOf(job: ClaimedJob, verdict: RunnerVerdict | { kind: 'not_applicable'; message: string }): JobOutcome {
    const base = { scorer_type: job.kind, version: job.version };
    switch (verdict.kind) {
      case 'success':
        return { state: 'success', info: verdict.info, tokens: verdict.tokens };
      case 'not_applicable':
        return { state: 'not_applicable', message: verdict.message, info: { status_type: 'not_applicable', ...base, message: verdict.message }, tokens: NO_TOKENS };
      case 'outcome':
        return { state: verdict.state, message: verdict.message, info: { status_type: verdict.state, ...base, message: verdict.message }, tokens: verdict.tokens };
      case 'retry': {
        if (!mayRetry(this.deps.retry, job.attempts)) {
          const message = `gave up after ${job.attempts} attempts: ${verdict.message}`;
          return { state: 'failed', message, info: { status_type: 'failed', ...base, message }, tokens: verdict.tokens };
        }
        const waitMs = backoffMs(this.deps.retry, job.attempts, this.deps.random(), verdict.retryAfterMs);
        return { state: 'retry', message: verdict.message, dueAt: new Date(this.deps.clock.now().getTime() + waitMs), tokens: verdict.tokens };
      }
    }
  }
}
