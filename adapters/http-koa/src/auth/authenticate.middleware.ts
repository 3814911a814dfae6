// Resolves the caller from any of the four credential schemes, or answers 401. With a rate limit, a
// caller is charged to its credential once known, and a failure to the client's address (rate-limit.ts).
import type { IdentityUseCases } from '@tracelight/use-cases';
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

export const authenticate =
  (identity: IdentityUseCases, limiter?: RateLimiter, signInFailures?: RateLimiter) =>
  async (ctx: AppContext, next: Next): Promise<void> => {
    const credentials = presentedCredentials((name) => ctx.get(name) || undefined);
    if (credentials === undefined) return unauthorized(ctx, limiter, 401, { detail: 'Not authenticated' });
    if (credentials === 'malformed') return unauthorized(ctx, limiter, 401, { detail: 'Could not validate credentials' });
    // Checking a password costs ~50 ms of scrypt on the thread pool that gzip and file reads share, and a
    // failure is charged only once checked: from an address whose failures emptied its bucket, a Basic
    // pair is refused unchecked, or a flood of guesses would still cost a check each.
    // A password is also a sign-in: refused unchecked from an address past its failed sign-ins, and
    // counted there once found wrong. Unlike a sign-in route's, a Basic pair takes nothing before its
    // check: a client sends its pair with every request, many at once, and the right pair (remembered
    // once checked) must not be held back by how many it sends.
    const password = credentials.scheme === 'basic';
    if (password && (refusedWhileEmpty(ctx, limiter, () => addressKey(ctx)) || refusedWhileEmpty(ctx, signInFailures, () => addressKey(ctx)))) return;
    const result = await identity.authenticate(credentials)();
    if (E.isLeft(result)) {
      const error = toHttpError(result.left);
      if (password && error.status === 401) signInFailures?.take(addressKey(ctx));
      return unauthorized(ctx, limiter, error.status, error.body);
    }
    const principal = result.right;
    if (refusedByLimit(ctx, limiter, () => credentialKey(credentials, principal))) return;
    ctx.state.principal = principal;
    await next();
  };
