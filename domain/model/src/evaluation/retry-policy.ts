// When a failed judgment is tried again: exponential backoff with jitter, never sooner than the
// provider's Retry-After, and how many attempts a job gets before it is failed.
export interface RetryPolicy {
  /** Attempts a job gets in all (its claims, a process that died holding it included) before it fails. */
  readonly maxAttempts: number;
  /** The wait after the first failure, before jitter; doubled after each. */
  readonly baseDelayMs: number;
  /** The longest wait the doubling reaches. */
  readonly maxDelayMs: number;
  /** The longest wait a provider's Retry-After is honoured for (past it, this). */
  readonly maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 1_000, maxDelayMs: 60_000, maxRetryAfterMs: 600_000 };

/**
 * The wait before attempt `failed + 1`, after `failed` attempts failed: base × 2^(failed − 1), capped,
 * then "equal jitter" (between half of it and all of it, by `random` in [0, 1)) so that jobs failing
 * together do not come back together; and at least the provider's Retry-After, when it sent one.
 */
export const backoffMs = (policy: RetryPolicy, failed: number, random: number, retryAfterMs?: number): number => {
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, failed - 1));
  const jittered = exp / 2 + (exp / 2) * Math.min(Math.max(random, 0), 1);
  return Math.round(Math.max(jittered, Math.min(retryAfterMs ?? 0, policy.maxRetryAfterMs)));
};

/** Whether a job that failed its `attempts`-th attempt may be tried again. */
export const mayRetry = (policy: RetryPolicy, attempts: number): boolean => attempts < policy.maxAttempts;

/** HTTP statuses worth another try: a timeout, rate limiting, the provider's own failures. */
export const isRetryableStatus = (status: number): boolean => status === 408 || status === 429 || (status >= 500 && status <= 599);

/**
 * A Retry-After header in milliseconds: delay-seconds or an HTTP date (RFC 9110 §10.2.3), from `now`;
 * undefined when absent or unreadable. (Some providers also send `retry-after-ms`, taken first.)
 */
export const retryAfterMs = (retryAfter: string | null | undefined, retryAfterMsHeader: string | null | undefined, now: Date): number | undefined => {
  if (retryAfterMsHeader != null && /^\d+(\.\d+)?$/.test(retryAfterMsHeader.trim())) return Math.ceil(Number(retryAfterMsHeader.trim()));
  if (retryAfter == null) return undefined;
  const text = retryAfter.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
};
