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

const MAX_BUCKETS = 100_000;

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly refillPerMs: number;

  constructor(private readonly perMinute: number) {
    this.refillPerMs = perMinute / 60_000;
  }

  /** Takes one request from `key`'s bucket: undefined when there was one, else the seconds to wait. */
  take(key: string): number | undefined {
    const now = Date.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.perMinute, at: now };
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + (now - bucket.at) * this.refillPerMs);
    bucket.at = now;
    if (bucket.tokens < 1) return Math.max(1, Math.ceil((1 - bucket.tokens) / this.refillPerMs / 1000));
    bucket.tokens -= 1;
    if (!this.buckets.has(key) && this.buckets.size >= MAX_BUCKETS) this.buckets.delete(this.buckets.keys().next().value!);
    this.buckets.set(key, bucket);
    return undefined;
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
