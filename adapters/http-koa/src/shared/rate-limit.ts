// A per-credential rate limit (token buckets, per process): 429 with Retry-After when exceeded.
//
// A bucket is chosen once the caller is known, so that no spelling of a credential opens a new one:
// - a request that authenticates is charged to its credential: the API key, or the user behind a
//   bearer token or a Basic pair (every token a user refreshes shares the user's bucket);
// - a request that fails authentication, and every call of a route without authentication (login),
//   is charged to the client's address: guessing passwords, keys or tokens is limited there, whatever
//   the headers say. An IPv6 client is charged by its /64 network, which is what one host is given.
//
// Failed sign-ins (a wrong password or sign-in key) have a far smaller budget of their own, per address
// too (TRACELIGHT_SIGN_IN_FAILURES_PER_MINUTE): see limitSignInFailures, and authenticate for Basic pairs.
import { createHash } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import type { Principal, PresentedCredentials } from '@tracelight/domain';
import type { Next } from 'koa';
import type { AppContext } from './context';

interface Bucket {
  tokens: number;
  /**
   * When it was last used, in ms on the monotonic clock (`performance.now()`): the wall clock can be set
   * back (NTP, a VM resumed), and a bucket would then lose tokens for as long, refusing its caller. It
   * also counts in fractions of a millisecond, so a bucket refilled within the millisecond is seen so.
   */
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
    const now = performance.now();
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

  /** Gives back one request taken from `key`'s bucket (one that turned out not to count). */
  giveBack(key: string): void {
    const bucket = this.buckets.get(key);
    if (bucket !== undefined) bucket.tokens = Math.min(this.perMinute, bucket.tokens + 1);
  }

  /** Takes nothing: the seconds to wait when `key`'s bucket is empty, else undefined. */
  emptyFor(key: string): number | undefined {
    const bucket = this.buckets.get(key);
    if (bucket === undefined) return undefined;
    const tokens = Math.min(this.perMinute, bucket.tokens + (performance.now() - bucket.at) * this.refillPerMs);
    return tokens < 1 ? Math.max(1, Math.ceil((1 - tokens) / this.refillPerMs / 1000)) : undefined;
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

/** The eight 16-bit groups of a valid IPv6 address: `::` expanded, a trailing dotted IPv4 part as two groups. */
const ipv6Groups = (address: string): number[] => {
  const groupsOf = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((g) => {
          if (!g.includes('.')) return [parseInt(g, 16)];
          const [a = 0, b = 0, c = 0, d = 0] = g.split('.').map(Number);
          return [(a << 8) | b, (c << 8) | d];
        });
  const [head = '', tail] = address.split('::');
  const before = groupsOf(head);
  const after = tail === undefined ? [] : groupsOf(tail);
  return [...before, ...Array<number>(8 - before.length - after.length).fill(0), ...after];
};

/**
 * What a client address is charged as: an IPv4 address as it is; an IPv6 one by its /64 network (one
 * host is given a whole /64, so it could otherwise take a fresh address for every request), or as the
 * IPv4 address it maps. Undefined for anything that is not an address.
 */
export const chargedAddress = (address: string): string | undefined => {
  if (isIPv4(address)) return address;
  const bare = address.replace(/%.*$/s, ''); // a zone names an interface of this machine, not a host
  if (!isIPv6(bare)) return undefined;
  const g = ipv6Groups(bare);
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return `${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`;
  return `${g.slice(0, 4).map((x) => x.toString(16)).join(':')}::/64`;
};

/**
 * The bucket of a caller not (or not yet) known: its address. Behind trusted proxies, the one the
 * outermost of them saw (Koa reads it from X-Forwarded-For, counting the proxies from the right); what
 * is not an address there (a proxy misconfigured, a header forged past it) charges the connection's peer.
 */
export const addressKey = (ctx: AppContext): string =>
  `ip:${chargedAddress(ctx.ip) ?? chargedAddress(ctx.socket.remoteAddress ?? '') ?? 'unknown'}`;

/** Answers 429 when `key`'s bucket is empty, and otherwise takes a request from it; true when it refused. */
export const refusedByLimit = (ctx: AppContext, limiter: RateLimiter | undefined, key: () => string): boolean =>
  refuse(ctx, limiter?.take(key()));

/** Answers 429 when `key`'s bucket is empty, taking nothing from it; true when it refused. */
export const refusedWhileEmpty = (ctx: AppContext, limiter: RateLimiter | undefined, key: () => string): boolean =>
  refuse(ctx, limiter?.emptyFor(key()));

const refuse = (ctx: AppContext, wait: number | undefined): boolean => {
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

/**
 * For the sign-in routes (a password or key in the body): from an address whose failed sign-ins
 * emptied its bucket, answered 429 before anything is checked (a password check is ~50 ms of scrypt,
 * which a flood of guesses would otherwise cost each time). Each sign-in takes from the bucket before
 * it is checked, so that many sent at once cannot all pass while the first are being checked, and
 * gives it back unless it is answered 401: a client that signs in right is never held back by it.
 */
export const limitSignInFailures =
  (failures: RateLimiter) =>
  async (ctx: AppContext, next: Next): Promise<void> => {
    const key = addressKey(ctx);
    if (refusedByLimit(ctx, failures, () => key)) return;
    try {
      await next();
    } finally {
      if (ctx.status !== 401) failures.giveBack(key);
    }
  };
