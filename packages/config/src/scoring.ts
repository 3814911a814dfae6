// The scoring settings, read alike by every process that scores (the server, the evaluator app): how
// many jobs at once, their leases and retries, and how judges are called.
import * as E from 'fp-ts/Either';
import type { Env } from './storage';

export interface ScoringConfig {
  /** TRACELIGHT_SCORING_WORKERS: jobs scored at once by this process (0: it scores none). */
  readonly scoringWorkers: number;
  /** TRACELIGHT_SCORING_LEASE_MS: how long a claimed job is held before another process may take it. */
  readonly scoringLeaseMs: number;
  /** TRACELIGHT_SCORING_POLL_MS: how often idle workers look for jobs other processes queued. */
  readonly scoringPollMs: number;
  /** TRACELIGHT_SCORING_MAX_ATTEMPTS: attempts a job gets before it fails. */
  readonly scoringMaxAttempts: number;
  /** TRACELIGHT_SCORING_RETRY_BASE_MS: the first backoff, doubled after each failure. */
  readonly scoringRetryBaseMs: number;
  /** TRACELIGHT_JUDGE_TIMEOUT_MS: the longest a judge call may take. */
  readonly judgeTimeoutMs: number;
  /** TRACELIGHT_GATEWAY_CONCURRENCY: judge calls in flight at once to one user's gateway, per process. */
  readonly gatewayConcurrency: number;
  /** TRACELIGHT_SANDBOX_WORKERS: Python interpreters kept for code scorers, per process (0: code scorers are not run). */
  readonly sandboxWorkers: number;
  /** TRACELIGHT_SANDBOX_TIME_LIMIT_MS: the longest one call of a scorer's code may run. */
  readonly sandboxTimeLimitMs: number;
  /** TRACELIGHT_SANDBOX_MEMORY_MB: the most memory one interpreter's Python heap may grow to. */
  readonly sandboxMemoryMb: number;
  /** TRACELIGHT_SANDBOX_IDLE_MS: an interpreter idle this long is ended. */
  readonly sandboxIdleMs: number;
}

/** The scoring variables, their defaults and what they do, in Markdown (docs/evaluation.md's table is this list). */
export const SCORING_VARIABLES: ReadonlyArray<readonly [name: string, defaultValue: string, description: string]> = [
  ['TRACELIGHT_SCORING_WORKERS', '`8`', 'Scoring jobs this process works on at once, off the request thread (0: it scores none, and jobs wait for another process, such as the evaluator app, to score them).'],
  ['TRACELIGHT_SCORING_LEASE_MS', '`60000`', 'How long a claimed job is held (renewed every third of it while its worker runs): a process that dies holding a job leaves it to be claimed again after this long. At least `1000`.'],
  ['TRACELIGHT_SCORING_POLL_MS', '`500`', 'How often idle workers look for jobs queued by other processes (jobs queued by this one are looked for at once).'],
  ['TRACELIGHT_SCORING_MAX_ATTEMPTS', '`5`', 'Attempts a job gets (a process that died holding it counts as one) before it ends `failed` with the last reason.'],
  ['TRACELIGHT_SCORING_RETRY_BASE_MS', '`1000`', 'The wait before a failed job is tried again, doubled after each failure up to a minute, with jitter (half to all of it), and never shorter than the provider\'s `Retry-After`.'],
  ['TRACELIGHT_JUDGE_TIMEOUT_MS', '`60000`', 'The longest a call to a judge model may take, answer included; past it the call counts as a failure to retry.'],
  ['TRACELIGHT_GATEWAY_CONCURRENCY', '`8`', 'Judge calls in flight at once to one user\'s gateway, per process; more wait their turn.'],
  ['TRACELIGHT_SANDBOX_WORKERS', '`2`', 'Python interpreters (Pyodide, each in a worker thread) kept for code scorers by this process, started on first use; calls beyond them wait their turn. An interpreter runs one owner\'s code only. 0: code scorers are not run here (their jobs end `not_computed`) and uploads are not compiled.'],
  ['TRACELIGHT_SANDBOX_TIME_LIMIT_MS', '`5000`', 'The longest one call of a scorer\'s code (`scorer_fn` on a record, or loading the file at upload) may run; past it its interpreter is ended and replaced, and the job ends `error`.'],
  ['TRACELIGHT_SANDBOX_MEMORY_MB', '`256`', 'The most memory the Python heap of one interpreter may grow to (at least `64`); past it the scorer\'s allocation raises `MemoryError`.'],
  ['TRACELIGHT_SANDBOX_IDLE_MS', '`300000`', 'An interpreter that ran nothing for this long is ended, giving back its memory (the next call starts one, in a few seconds).'],
];

const int = (env: Env, name: string, min: number, max: number, dflt: number): E.Either<string, number> => {
  const raw = env[name];
  if (raw === undefined || raw === '') return E.right(dflt);
  return /^\d+$/.test(raw) && Number(raw) >= min && Number(raw) <= max ? E.right(Number(raw)) : E.left(`${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}`);
};

/** The scoring settings, or every problem with them (in the order of SCORING_VARIABLES). */
export const loadScoringConfig = (env: Env): E.Either<ReadonlyArray<string>, ScoringConfig> => {
  const read = {
    scoringWorkers: int(env, 'TRACELIGHT_SCORING_WORKERS', 0, 1024, 8),
    scoringLeaseMs: int(env, 'TRACELIGHT_SCORING_LEASE_MS', 1000, 86_400_000, 60_000),
    scoringPollMs: int(env, 'TRACELIGHT_SCORING_POLL_MS', 10, 3_600_000, 500),
    scoringMaxAttempts: int(env, 'TRACELIGHT_SCORING_MAX_ATTEMPTS', 1, 100, 5),
    scoringRetryBaseMs: int(env, 'TRACELIGHT_SCORING_RETRY_BASE_MS', 1, 3_600_000, 1000),
    judgeTimeoutMs: int(env, 'TRACELIGHT_JUDGE_TIMEOUT_MS', 100, 3_600_000, 60_000),
    gatewayConcurrency: int(env, 'TRACELIGHT_GATEWAY_CONCURRENCY', 1, 1024, 8),
    sandboxWorkers: int(env, 'TRACELIGHT_SANDBOX_WORKERS', 0, 64, 2),
    sandboxTimeLimitMs: int(env, 'TRACELIGHT_SANDBOX_TIME_LIMIT_MS', 100, 600_000, 5_000),
    sandboxMemoryMb: int(env, 'TRACELIGHT_SANDBOX_MEMORY_MB', 64, 4095, 256),
    sandboxIdleMs: int(env, 'TRACELIGHT_SANDBOX_IDLE_MS', 1000, 86_400_000, 300_000),
  };
  const problems = Object.values(read).flatMap((r) => (E.isLeft(r) ? [r.left] : []));
  if (problems.length > 0) return E.left(problems);
  return E.right(Object.fromEntries(Object.entries(read).map(([k, v]) => [k, (v as E.Right<number>).right])) as unknown as ScoringConfig);
};
