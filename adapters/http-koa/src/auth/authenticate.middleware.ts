// Resolves the caller from any of the four credential schemes, or answers 401. With a rate limit, a
// caller is charged to its credential once known, and a failure to the client's address (rate-limit.ts).
import type { IdentityUseCases } from '@tracelight/use-cases';
import { createHash } from 'node:crypto';
import * as E from 'fp-ts/Either';
import type { Next } from 'koa';
import { toHttpError } from '../errors/domain-error.mapper';
import type { AppContext } from '../shared/context';
import { addressKey, credentialKey, type RateLimiter, refusedByLimit, refusedWhileEmpty } from '../shared/rate-limit';
import { presentedCredentials } from './presented-credentials';

const CHALLENGE = 'Bearer, Basic realm="tracelight"';

const unauthorized = (ctx: AppContext, limiter: RateLimiter | undefined, status: number, body: unknown): void => {
  if (refusedByLimit(ctx, limiter, () => addressKey(ctx))) return;
  ctx.status = status;
  ctx.set('WWW-Authenticate', CHALLENGE);
  ctx.body = body;
};

/** Which pair a Basic request presents, as a hash: the set below never holds a password in clear. */
const pairDigest = (email: string, password: string): string =>
  createHash('sha256').update(email).update('\0').update(password).digest('base64url');

export const authenticate = (identity: IdentityUseCases, limiter?: RateLimiter, signInFailures?: RateLimiter) => {
  /** The Basic pairs being checked, each with its address: `${address} ${pairDigest}`. */
  const checking = new Set<string>();
  return async (ctx: AppContext, next: Next): Promise<void> => {
    const credentials = presentedCredentials((name) => ctx.get(name) || undefined);
    if (credentials === undefined) return unauthorized(ctx, limiter, 401, { detail: 'Not authenticated' });
    if (credentials === 'malformed') return unauthorized(ctx, limiter, 401, { detail: 'Could not validate credentials' });
    // Checking a password costs ~50 ms of scrypt on the thread pool that gzip and file reads share, and a
    // failure is charged only once checked: from an address whose failures emptied its bucket, a Basic
    // pair is refused unchecked, or a flood of guesses would still cost a check each.
    // A password is also a sign-in, held to its address's budget of failed sign-ins as the sign-in routes
    // are: a pair takes its share before it is checked, so that guesses sent all at once cannot all be
    // checked while the first are, and gives it back unless found wrong. But a client sends its pair with
    // every request, many at once: a pair already being checked for that address takes nothing and waits
    // for that check (the hasher checks a pair once however many ask), so the right pair is never held
    // back by how many requests carry it.
    let reserved: { readonly pair: string; readonly address: string } | undefined;
    if (credentials.scheme === 'basic') {
      const address = addressKey(ctx);
      if (refusedWhileEmpty(ctx, limiter, () => address)) return;
      const pair = `${address} ${pairDigest(credentials.email, credentials.password)}`;
      if (signInFailures !== undefined && !checking.has(pair)) {
        if (refusedByLimit(ctx, signInFailures, () => address)) return;
        checking.add(pair);
        reserved = { pair, address };
      }
    }
    let wrong = false;
    try {
      const result = await identity.authenticate(credentials)();
      if (E.isLeft(result)) {
        const error = toHttpError(result.left);
        wrong = error.status === 401;
        return unauthorized(ctx, limiter, error.status, error.body);
      }
      const principal = result.right;
      if (refusedByLimit(ctx, limiter, () => credentialKey(credentials, principal))) return;
      ctx.state.principal = principal;
    } finally {
      if (reserved !== undefined) {
        checking.delete(reserved.pair);
        if (!wrong) signInFailures?.giveBack(reserved.address);
      }
    }
    await next();
  };
};
