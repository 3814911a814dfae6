import { DEFAULT_RETRY_POLICY, backoffMs, isRetryableStatus, mayRetry, retryAfterMs } from './retry-policy';

describe('retry policy', () => {
  const p = { maxAttempts: 4, baseDelayMs: 1000, maxDelayMs: 8000, maxRetryAfterMs: 60_000 };

  it('doubles from the base to the cap, with jitter between half and all of it', () => {
    expect([1, 2, 3, 4, 5].map((n) => backoffMs(p, n, 1))).toEqual([1000, 2000, 4000, 8000, 8000]);
    expect([1, 2, 3, 4, 5].map((n) => backoffMs(p, n, 0))).toEqual([500, 1000, 2000, 4000, 4000]);
    expect(backoffMs(p, 2, 0.5)).toBe(1500);
  });

  it('waits at least the provider\'s Retry-After, up to its own bound', () => {
    expect(backoffMs(p, 1, 0, 5000)).toBe(5000);
    expect(backoffMs(p, 3, 1, 100)).toBe(4000);
    expect(backoffMs(p, 1, 0, 3_600_000)).toBe(60_000);
  });

  it('retries until the attempts are spent', () => {
    expect([1, 2, 3, 4].map((a) => mayRetry(p, a))).toEqual([true, true, true, false]);
    expect(DEFAULT_RETRY_POLICY.maxAttempts).toBeGreaterThan(1);
  });

  it('retries timeouts, rate limits and server errors, nothing else', () => {
    expect([408, 429, 500, 502, 503, 599].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 409, 422].some(isRetryableStatus)).toBe(false);
  });

  it('reads Retry-After as seconds or a date, retry-after-ms first', () => {
    const now = new Date('2026-05-01T00:00:00.000Z');
    expect(retryAfterMs('2', null, now)).toBe(2000);
    expect(retryAfterMs('Fri, 01 May 2026 00:00:03 GMT', null, now)).toBe(3000);
    expect(retryAfterMs('soon', null, now)).toBeUndefined();
    expect(retryAfterMs('2', '150', now)).toBe(150);
    expect(retryAfterMs(undefined, undefined, now)).toBeUndefined();
  });
});
