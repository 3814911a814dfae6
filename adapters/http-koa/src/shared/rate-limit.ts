// A per-credential rate limit (token buckets, per process): 429 with Retry-After when exceeded.
//
// A bucket is chosen once the caller is known, so that no spelling of a credential opens a new one:
// - a request that authenticates is charged to its credential: the API key, or the user behind a
//   bearer token or a Basic pair (every token a user refreshes shares the user's bucket);
// - a request that fails authentication, and every call of a route without authentication (login),
//   is charged to the client's address: guessing passwords, keys or tokens is limited there, whatever
//   the headers say.
import { createHash } from 'node:crypto';
import type { Principal, PresentedCredentials } from '@tracelight/domain';
import type { Next } from 'koa';
import type { AppContext } from './context';

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * The most buckets kept. A bucket left alone refills in at most a minute, and a full bucket is the same
 * as none, so only the callers of about the last minute need one: past this many of them, the least
 * recently seen caller's bucket is forgotten first.
 */
const MAX_BUCKETS = 100_000;

export class RateLimiter {
  /** Least recently used first: every take moves its bucket to the end. */
  private readonly buckets = new Map<string, Bucket>();
  private readonly refillPerMs: number;
  /** The characters of the keys held, for /metrics. */
  private keyChars = 0;

  constructor(private readonly perMinute: number) {
    this.refillPerMs = perMinute / 60_000;
  }

  /** Takes one request from `key`'s bucket: undefined when there was one, else the seconds to wait. */
  take(key: string): number | undefined {
    const now = Date.now();
    this.pruneRefilled(now);
    const known = this.buckets.get(key);
    const bucket = known ?? { tokens: this.perMinute, at: now };
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + (now - bucket.at) * this.refillPerMs);
    bucket.at = now;
    const refused = bucket.tokens < 1;
    if (!refused) bucket.tokens -= 1;
    if (known !== undefined) this.forget(key);
    else if (this.buckets.size >= MAX_BUCKETS) this.forget(this.buckets.keys().next().value!);
    this.buckets.set(key, bucket);
    this.keyChars += key.length;
    return refused ? Math.max(1, Math.ceil((1 - bucket.tokens) / this.refillPerMs / 1000)) : undefined;
  }

  /** The buckets held, and the characters of their keys. */
  held(): { readonly entries: number; readonly size: number } {
    return { entries: this.buckets.size, size: this.keyChars };
  }

  /**
   * Drops the buckets that have refilled since they were last used, least recently used first, up to the
   * first that has not: each bucket is dropped once, so this costs nothing per request on the whole.
   */
  private pruneRefilled(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.at) * this.refillPerMs < this.perMinute) return;
      this.forget(key);
    }
  }

  private forget(key: string): void {
    if (this.buckets.delete(key)) this.keyChars -= key.length;
  }
}

/** The bucket of a caller who authenticated. Keyed by a hash: the map never holds a credential in clear. */
export const credentialKey = (credentials: PresentedCredentials, principal: Principal): string =>
  credentials.scheme === 'api_key' ? `key:${createHash('sha256').update(credentials.apiKey).digest('base64url')}` : `user:${principal.userId}`;

/** The bucket of a caller not (or not yet) known. */
export const addressKey = (ctx: AppContext): string => `ip:${ctx.ip}`;

/** Answers 429 when `key`'s bucket is empty; true when it did. */
export const refusedByLimit = (ctx: AppContext, limiter: RateLimiter | undefined, key: () => string): boolean => {
  const wait = limiter?.take(key());
  if (wait === undefined) return false;
  ctx.status = 429;
  ctx.set('Retry-After', String(wait));
  ctx.body = { detail: 'Too many requests' };
  return true;
};

/** For routes without authentication: every call is charged to the client's address. */
export const limitByAddress =
  (limiter: RateLimiter) =>
  (ctx: AppContext, next: Next): Promise<void> | undefined =>
    refusedByLimit(ctx, limiter, () => addressKey(ctx)) ? undefined : next();
