// The scoring settings, read alike by every process that scores (the server, the evaluator app): how
// many jobs at once, their leases and retries, and how judges are called.
import * as E from 'fp-ts/Either';
import { isIP } from 'node:net';
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
  /** TRACELIGHT_GATEWAY_ALLOWED_NETWORKS: networks (CIDRs, addresses) judges may call beside public addresses. */
  readonly gatewayAllowedNetworks: ReadonlyArray<string>;
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
  ['TRACELIGHT_GATEWAY_ALLOWED_NETWORKS', 'unset: public addresses only', 'Networks judges may call beside public addresses, comma-separated CIDRs or addresses (`127.0.0.1/32,10.20.0.0/16,fd00::/8`). By default a gateway whose address is loopback, private, link-local (the cloud metadata address among them), shared, unspecified, multicast or reserved is refused, checked on each connection after DNS resolution; its jobs end `error` saying so. Allow only the networks a gateway of yours lives on.'],
  ['TRACELIGHT_SANDBOX_WORKERS', '`2`', 'Python interpreters (Pyodide, each in a process of its own) kept for code scorers by this process, started on first use; calls beyond them wait their turn. An interpreter runs one owner\'s code only. 0: code scorers are not run here (their jobs end `not_computed`) and uploads are not compiled.'],
  ['TRACELIGHT_SANDBOX_TIME_LIMIT_MS', '`5000`', 'The longest one call of a scorer\'s code (`scorer_fn` on a record, or loading the file at upload) may run; past it its interpreter is ended and replaced, and the job ends `error`.'],
  ['TRACELIGHT_SANDBOX_MEMORY_MB', '`256`', 'The most memory the Python heap of one interpreter may grow to (at least `64`); past it the scorer\'s allocation raises `MemoryError`.'],
  ['TRACELIGHT_SANDBOX_IDLE_MS', '`300000`', 'An interpreter that ran nothing for this long is ended, giving back its memory (the next call starts one, in a few seconds).'],
];

/** An IPv4 or IPv6 address, or one with a prefix length (`10.0.0.0/8`, `fd00::/8`). */
const isNetwork = (text: string): boolean => {
  const [address = '', prefix, ...rest] = text.split('/');
  const kind = isIP(address);
  if (kind === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (kind === 4 ? 32 : 128));
};

const networks = (env: Env, name: string): E.Either<string, ReadonlyArray<string>> => {
  const list = (env[name] ?? '').split(',').map((n) => n.trim()).filter((n) => n !== '');
  const bad = list.filter((n) => !isNetwork(n));
  return bad.length === 0
    ? E.right(list)
    : E.left(`${name} must be comma-separated CIDRs or IP addresses (10.0.0.0/8, 127.0.0.1, fd00::/8), got ${bad.map((b) => JSON.stringify(b)).join(', ')}`);
};

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
    gatewayAllowedNetworks: networks(env, 'TRACELIGHT_GATEWAY_ALLOWED_NETWORKS'),
    sandboxWorkers: int(env, 'TRACELIGHT_SANDBOX_WORKERS', 0, 64, 2),
    sandboxTimeLimitMs: int(env, 'TRACELIGHT_SANDBOX_TIME_LIMIT_MS', 100, 600_000, 5_000),
    sandboxMemoryMb: int(env, 'TRACELIGHT_SANDBOX_MEMORY_MB', 64, 4095, 256),
    sandboxIdleMs: int(env, 'TRACELIGHT_SANDBOX_IDLE_MS', 1000, 86_400_000, 300_000),
  };
  const problems = Object.values(read).flatMap((r) => (E.isLeft(r) ? [r.left] : []));
  if (problems.length > 0) return E.left(problems);
  return E.right(Object.fromEntries(Object.entries(read).map(([k, v]) => [k, (v as E.Right<unknown>).right])) as unknown as ScoringConfig);
};
