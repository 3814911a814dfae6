// A per-credential rate limit (token bucket, per process): 429 with Retry-After when exceeded.
// Requests without credentials are limited per client address.
import { createHash } from 'node:crypto';
import type { Next } from 'koa';
import { API_KEY_HEADERS } from '../auth/presented-credentials';
import type { AppContext } from './context';

interface Bucket {
  tokens: number;
  at: number;
}

const MAX_BUCKETS = 100_000;
const CREDENTIAL_HEADERS: ReadonlyArray<string> = [...API_KEY_HEADERS, 'authorization'];

/** The first credential header present, in the order the authentication middleware reads them. */
const credentialOf = (ctx: AppContext): string | undefined => {
  for (const header of CREDENTIAL_HEADERS) {
    const value = ctx.get(header);
    if (value !== '') return value;
  }
  return undefined;
};

export const rateLimit = (perMinute: number) => {
  // No limit: nothing to do per request.
  if (perMinute <= 0) return (_ctx: AppContext, next: Next): Promise<void> => next();
  const buckets = new Map<string, Bucket>();
  const refillPerMs = perMinute / 60_000;
  return async (ctx: AppContext, next: Next): Promise<void> => {
    const credential = credentialOf(ctx);
    // Keyed by a hash: the map never holds a credential in clear.
    const key = credential ? createHash('sha256').update(credential).digest('base64url') : `ip:${ctx.ip}`;
    const now = Date.now();
    const bucket = buckets.get(key) ?? { tokens: perMinute, at: now };
    bucket.tokens = Math.min(perMinute, bucket.tokens + (now - bucket.at) * refillPerMs);
    bucket.at = now;
    if (bucket.tokens < 1) {
      ctx.status = 429;
      ctx.set('Retry-After', String(Math.max(1, Math.ceil((1 - bucket.tokens) / refillPerMs / 1000))));
      ctx.body = { detail: 'Too many requests' };
      return;
    }
    bucket.tokens -= 1;
    if (!buckets.has(key) && buckets.size >= MAX_BUCKETS) buckets.delete(buckets.keys().next().value!);
    buckets.set(key, bucket);
    await next();
  };
};
