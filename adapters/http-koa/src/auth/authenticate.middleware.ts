// Resolves the caller from any of the four credential schemes, or answers 401. With a rate limit, a
// caller is charged to its credential once known, and a failure to the client's address (rate-limit.ts).
import type { DomainError, PresentedCredentials, Principal } from '@tracelight/domain';
import type { IdentityUseCases } from '@tracelight/use-cases';
import { createHmac, randomBytes } from 'node:crypto';
import * as E from 'fp-ts/Either';
import type { Next } from 'koa';
import { toHttpError } from '../errors/domain-error.mapper';
import type { AppContext } from '../shared/context';
import { addressKey, credentialKey, type RateLimiter, refusedByLimit, refusedWhileEmpty } from '../shared/rate-limit';
import { type HeaderReader, presentedCredentials } from './presented-credentials';

const CHALLENGE = 'Bearer, Basic realm="tracelight"';

const unauthorized = (ctx: AppContext, limiter: RateLimiter | undefined, status: number, body: unknown): void => {
  if (refusedByLimit(ctx, limiter, () => addressKey(ctx))) return;
  ctx.status = status;
  ctx.set('WWW-Authenticate', CHALLENGE);
  ctx.body = body;
};

type Checked = E.Either<DomainError, Principal>;

/**
 * `read` takes the credentials out of the headers: the schemes every route takes, unless a route reads
 * its own (Langfuse's route, whose Basic pair is a name and an API key: presentedApiKeyPair).
 */
export const authenticate = (
  identity: IdentityUseCases,
  limiter?: RateLimiter,
  signInFailures?: RateLimiter,
  read: (header: HeaderReader) => PresentedCredentials | 'malformed' | undefined = presentedCredentials,
) => {
  /**
   * The checks of Basic pairs in progress, by address and pair: `${address} ${HMAC of the pair}`. Keyed
   * under a key of this process's, of the pair encoded unambiguously (no split of one string into
   * email and password gives another's key), so the map never holds a password or its plain hash.
   */
  const checking = new Map<string, Promise<Checked>>();
  const pairKey = randomBytes(32);
  const pairOf = (address: string, email: string, password: string): string =>
    `${address} ${createHmac('sha256', pairKey).update(JSON.stringify([email, password])).digest('base64url')}`;
  /**
   * A pair's check, shared by every request from `address` that carries the pair while it runs: the first
   * takes a share of the address's failure budget, given back once the check ends unless the pair was wrong.
   */
  const sharedCheck = (failures: RateLimiter, address: string, pair: string, credentials: PresentedCredentials): Promise<Checked> => {
    const check = identity.authenticate(credentials)();
    checking.set(pair, check);
    void check.then(
      (result) => {
        checking.delete(pair);
        if (!(E.isLeft(result) && toHttpError(result.left).status === 401)) failures.giveBack(address);
      },
      () => {
        checking.delete(pair);
        failures.giveBack(address);
      },
    );
    return check;
  };
  return async (ctx: AppContext, next: Next): Promise<void> => {
    const credentials = read((name) => ctx.get(name) || undefined);
    if (credentials === undefined) return unauthorized(ctx, limiter, 401, { detail: 'Not authenticated' });
    if (credentials === 'malformed') return unauthorized(ctx, limiter, 401, { detail: 'Could not validate credentials' });
    // Checking a password costs ~50 ms of scrypt on the thread pool that gzip and file reads share, and a
    // failure is charged only once checked: from an address whose failures emptied its bucket, a Basic
    // pair is refused unchecked, or a flood of guesses would still cost a check each.
    // A password is also a sign-in, held to its address's budget of failed sign-ins as the sign-in routes
    // are: a pair takes its share before it is checked, so that guesses sent all at once cannot all be
    // checked while the first are, and gives it back unless found wrong. But a client sends its pair with
    // every request, many at once: a request whose pair is already being checked for its address takes
    // nothing and is answered by that check, so the right pair is never held back by how many requests
    // carry it, and costs one check however many do.
    let result: Checked;
    if (credentials.scheme === 'basic' && signInFailures !== undefined) {
      const address = addressKey(ctx);
      if (refusedWhileEmpty(ctx, limiter, () => address)) return;
      const pair = pairOf(address, credentials.email, credentials.password);
      const running = checking.get(pair);
      if (running === undefined && refusedByLimit(ctx, signInFailures, () => address)) return;
      result = await (running ?? sharedCheck(signInFailures, address, pair, credentials));
    } else {
      if (credentials.scheme === 'basic' && refusedWhileEmpty(ctx, limiter, () => addressKey(ctx))) return;
      result = await identity.authenticate(credentials)();
    }
    if (E.isLeft(result)) {
      const error = toHttpError(result.left);
      return unauthorized(ctx, limiter, error.status, error.body);
    }
    const principal = result.right;
    if (refusedByLimit(ctx, limiter, () => credentialKey(credentials, principal))) return;
    ctx.state.principal = principal;
    await next();
  };
};
