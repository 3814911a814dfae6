// Sign-in, token refresh, users and API keys.
import {
  ApiKeyCreateRequest,
  ApiKeyPath,
  ApiKeyLoginRequest,
  CreateUserRequest,
  ApiKeyCreateResponse,
  ApiKeyResponse,
  LoginRequest,
  MessageResponse,
  TokenResponse,
  UserResponse,
} from '@tracelight/api-schema';
import * as t from 'io-ts';
import { type AccessToken, type ApiKeyId, asId, REFRESH_RACED, unauthorized } from '@tracelight/domain';
import { IdentityUseCases, type SignedIn } from '@tracelight/use-cases';
import { pipe } from 'fp-ts/function';
import type { AppContext } from '../shared/context';
import * as TE from 'fp-ts/TaskEither';
import { inject, injectable } from 'inversify';
import { type HeaderReader, presentedCredentials, REFRESH_TOKEN_COOKIE, refreshTokenOf } from '../auth/presented-credentials';
import type { HttpError } from '../errors/domain-error.mapper';
import { type Route, type RouteGroup, route } from '../shared/route';
import { presentApiKey, presentCreatedApiKey, presentToken, presentUser } from './identity.presenter';

/**
 * How the refresh cookie is set, and so how it is expired: a cookie that removes another must have its
 * name, Domain and Path (RFC 6265 §5.3), and is sent with the attributes it was set with.
 */
const refreshCookieOptions = (ctx: AppContext) => ({ httpOnly: true, sameSite: 'strict', secure: ctx.secure, path: '/', overwrite: true }) as const;

/** The token in the body (the spec's shape); a new refresh token, when there is one, in an HttpOnly cookie. */
const writeSignedIn = (ctx: AppContext, s: { access: AccessToken; refresh?: SignedIn['refresh'] }): void => {
  if (s.refresh) ctx.cookies.set(REFRESH_TOKEN_COOKIE, s.refresh.token, { ...refreshCookieOptions(ctx), expires: s.refresh.expiresAt });
  ctx.status = 200;
  ctx.body = presentToken(s.access);
};

/** What a refresh takes from the Authorization header, which comes before the refresh cookie. */
const authorizationOf = (header: HeaderReader) => presentedCredentials((name) => (name === 'authorization' ? header(name) : undefined));

/**
 * Whether a refusal of a refresh expires the refresh cookie: a 401 to a refresh asked with the cookie
 * (sent, and no Authorization header), so that a browser stops sending a dead cookie. One sent beside a
 * bearer token, as a browser sends it with every request, was not what was refused: it may be good, and
 * is left alone. Nor is one refused because concurrent refreshes kept spending it first: the session
 * stands, and the browser may already hold the cookie one of them set, which clearing would remove.
 */
export const expiresRefusedCookie = (error: HttpError, sentAuthorization: boolean, sentCookie: boolean): boolean =>
  error.status === 401 && !sentAuthorization && sentCookie && error.body.detail !== REFRESH_RACED;

const expireRefusedCookie = (ctx: AppContext, error: HttpError): void => {
  const header = (name: string) => ctx.get(name) || undefined;
  if (expiresRefusedCookie(error, authorizationOf(header) !== undefined, refreshTokenOf(header('cookie')) !== undefined))
    ctx.cookies.set(REFRESH_TOKEN_COOKIE, null, refreshCookieOptions(ctx));
};

/** A sign-in's body: its fields are at most 1,024 characters each, and anyone may send one. */
const SIGN_IN_BODY_BYTES = 16 * 1024;

@injectable()
export class IdentityRoutes implements RouteGroup {
  constructor(@inject(IdentityUseCases) private readonly identity: IdentityUseCases) {}

  routes(): ReadonlyArray<Route> {
    const identity = this.identity;
    return [
      route({
        method: 'post',
        path: '/login',
        summary: 'OAuth2 password flow: email and password (form-encoded or JSON) for an access token',
        auth: 'none',
        checksCredential: 'body',
        bodyKind: 'form',
        bodyLimitBytes: SIGN_IN_BODY_BYTES,
        body: LoginRequest,
        response: TokenResponse,
        handle: ({ body }) => identity.login(body.username, body.password),
        present: (s) => presentToken(s.access),
        write: writeSignedIn,
        setsCookie: REFRESH_TOKEN_COOKIE,
        answersSecret: true,
      }),
      route({
        method: 'post',
        path: '/login/api_key',
        summary: 'Exchange an API key for an access token',
        auth: 'none',
        checksCredential: 'body',
        bodyLimitBytes: SIGN_IN_BODY_BYTES,
        body: ApiKeyLoginRequest,
        response: TokenResponse,
        handle: ({ body }) => identity.loginWithApiKey(body.api_key),
        present: (s) => presentToken(s.access),
        write: writeSignedIn,
        setsCookie: REFRESH_TOKEN_COOKIE,
        answersSecret: true,
      }),
      route({
        method: 'post',
        path: '/refresh_token',
        summary: 'Refresh Token',
        description:
          'Exchange a valid bearer token (or the refresh_token cookie set at sign-in) for a new access token. ' +
          'The cookie is rotated: each use answers a new refresh_token cookie and spends the one sent. A spent cookie sent again ' +
          '(after the reuse grace window, TRACELIGHT_REFRESH_REUSE_GRACE_MS) revokes its session: 401, and every token of that session is refused from then on. ' +
          'A 401 to a refresh with the cookie (and no Authorization header) expires the cookie.',
        auth: 'none',
        checksCredential: 'bearer_or_refresh_cookie',
        response: TokenResponse,
        handle: ({ header }) => {
          const c = authorizationOf(header);
          if (typeof c === 'object' && c.scheme === 'bearer')
            return pipe(identity.refresh(c.token), TE.map((access): { access: AccessToken; refresh?: SignedIn['refresh'] } => ({ access })));
          const cookie = refreshTokenOf(header('cookie'));
          if (c === undefined && cookie) return identity.refreshWithRefreshToken(cookie);
          return TE.left(unauthorized(c === undefined ? 'Not authenticated' : 'Could not validate credentials'));
        },
        present: (s) => presentToken(s.access),
        write: writeSignedIn,
        setsCookie: REFRESH_TOKEN_COOKIE,
        writeRefusal: expireRefusedCookie,
        clearsCookie: REFRESH_TOKEN_COOKIE,
        answersSecret: true,
      }),
      route({
        method: 'post',
        path: '/logout',
        summary: 'Sign out: end the session of the refresh_token cookie (and of the bearer token sent, if any) and expire the cookie',
        description:
          'Revokes the refresh family of the session: its refresh cookie and its access tokens are refused from then on. ' +
          'Always 200, with the cookie expired (`Set-Cookie: refresh_token=; Expires=Thu, 01 Jan 1970 …`): a token that does not verify (already expired or revoked) has no session left to end.',
        auth: 'none',
        response: MessageResponse,
        handle: ({ header }) => {
          const c = authorizationOf(header);
          const refreshToken = refreshTokenOf(header('cookie'));
          return identity.signOut({
            ...(typeof c === 'object' && c.scheme === 'bearer' ? { accessToken: c.token } : {}),
            ...(refreshToken === undefined ? {} : { refreshToken }),
          });
        },
        present: () => ({ message: 'Signed out' }),
        write: (ctx) => {
          ctx.cookies.set(REFRESH_TOKEN_COOKIE, null, refreshCookieOptions(ctx));
          ctx.status = 200;
          ctx.body = { message: 'Signed out' };
        },
      }),
      route({
        method: 'get',
        path: '/current_user',
        summary: 'The calling user',
        auth: 'required',
        response: UserResponse,
        handle: ({ principal }) => identity.currentUser(principal),
        present: presentUser,
      }),
      route({
        method: 'post',
        path: '/users',
        summary: 'Create a user (admins; managers for the roles user and read_only)',
        auth: 'required',
        needsPassword: true,
        conflict: 'A user with that email exists',
        body: CreateUserRequest,
        response: UserResponse,
        handle: ({ principal, body }) =>
          identity.createUser(principal, { email: body.email, password: body.password, role: body.role ?? 'user' }),
        present: presentUser,
      }),
      route({
        method: 'post',
        path: '/users/api_keys',
        summary: 'Create an API key; the key is returned once, in `api_key`',
        auth: 'required',
        needsPassword: true,
        body: ApiKeyCreateRequest,
        response: ApiKeyCreateResponse,
        handle: ({ principal, body }) =>
          identity.createApiKey(principal, { description: body.description, expiresAt: body.expires_at ?? null }),
        present: presentCreatedApiKey,
        answersSecret: true,
      }),
      route({
        method: 'get',
        path: '/users/api_keys',
        summary: 'List the caller’s API keys (never the secrets)',
        auth: 'required',
        response: t.array(ApiKeyResponse),
        handle: ({ principal }) => identity.listApiKeys(principal),
        present: (keys) => keys.map(presentApiKey),
      }),
      route({
        method: 'delete',
        path: '/users/api_keys/{api_key_id}',
        summary: 'Revoke an API key: it is rejected at once afterwards',
        auth: 'required',
        needsPassword: true,
        params: ApiKeyPath,
        response: MessageResponse,
        handle: ({ principal, params }) => identity.revokeApiKey(principal, asId<ApiKeyId>(params.api_key_id)),
        present: () => ({ message: 'API key revoked' }),
      }),
    ];
  }
}
