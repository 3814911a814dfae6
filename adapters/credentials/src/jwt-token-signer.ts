// Access tokens: compact JWS (HS256) with sub, iat, exp and jti, and the session they continue:
// auth_time (when the user signed in, as OIDC names it), akid (the API key exchanged, if any) and fid
// (the session's refresh-token family, if the server keeps one). Any server process holding the same
// secret key verifies them (or holding it as its previous key, during a rotation). A refresh token also
// says its generation in its family (gen).
import { type AccessToken, type ApiKeyId, type RefreshFamilyId, type Session, type TokenClaims, type UserId, asId } from '@tracelight/domain';
import { TokenSigner } from '@tracelight/ports';
import * as E from 'fp-ts/Either';
import * as crypto from 'node:crypto';
import { inject, injectable } from 'inversify';
import { CredentialsConfig } from './config';
import { deriveKey } from './keys';
import { randomBytes } from './system/random-pool';

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
const CLOCK_SKEW_SECONDS = 60;

type Use = 'access' | 'refresh';

interface Claims {
  sub: string;
  iat: number;
  exp: number;
  jti: string;
  /** What the token may be used for: an access token never refreshes, a refresh token never authorises. */
  use: Use;
  /**
   * The session's start, in seconds with the milliseconds as a fraction (a NumericDate may have one,
   * RFC 7519 §2), so a revocation tells apart a sign-in in the same second; absent from tokens issued
   * before sessions were kept (then `iat`).
   */
  auth_time?: number;
  /** The API key the session began with. */
  akid?: string;
  /** The session's refresh-token family (RefreshFamily), when the server keeps one. */
  fid?: string;
  /** A refresh token's generation in its family. */
  gen?: number;
}

const isClaims = (x: unknown): x is Claims => {
  if (typeof x !== 'object' || x === null) return false;
  const c = x as Record<string, unknown>;
  return (
    typeof c['sub'] === 'string' &&
    Number.isInteger(c['iat']) &&
    Number.isInteger(c['exp']) &&
    typeof c['jti'] === 'string' &&
    (c['use'] === 'access' || c['use'] === 'refresh') &&
    (c['auth_time'] === undefined || (typeof c['auth_time'] === 'number' && Number.isFinite(c['auth_time']))) &&
    (c['akid'] === undefined || typeof c['akid'] === 'string') &&
    (c['fid'] === undefined || typeof c['fid'] === 'string') &&
    (c['gen'] === undefined || (Number.isInteger(c['gen']) && (c['gen'] as number) >= 0))
  );
};

@injectable()
export class JwtTokenSigner implements TokenSigner {
  private readonly key: Buffer;
  /** The previous master key's, during a rotation: tokens it signed still verify until they expire. */
  private readonly previousKey: Buffer | undefined;
  private readonly ttlSeconds: Record<Use, number>;

  constructor(@inject(CredentialsConfig) config: CredentialsConfig) {
    this.key = deriveKey(config.secretKey, 'access-token');
    this.previousKey = config.previousSecretKey && deriveKey(config.previousSecretKey, 'access-token');
    this.ttlSeconds = { access: config.tokenTtlSeconds, refresh: config.refreshTokenTtlSeconds };
  }

  issue(userId: UserId, now: Date, session: Session, notAfter?: Date): AccessToken {
    const { token, expiresAt } = this.make(userId, now, session, 'access', undefined, notAfter);
    return { accessToken: token, tokenType: 'bearer', expiresAt };
  }

  issueRefresh(userId: UserId, now: Date, session: Session, generation?: number, notAfter?: Date): { readonly token: string; readonly expiresAt: Date } {
    return this.make(userId, now, session, 'refresh', generation, notAfter);
  }

  verify(token: string, now: Date): E.Either<string, TokenClaims> {
    return this.check(token, now, 'access');
  }

  verifyRefresh(token: string, now: Date): E.Either<string, TokenClaims> {
    return this.check(token, now, 'refresh');
  }

  private make(userId: UserId, now: Date, session: Session, use: Use, generation?: number, notAfter?: Date): { token: string; expiresAt: Date } {
    const iat = Math.floor(now.getTime() / 1000);
    const family = session.familyId;
    const lifetime = iat + this.ttlSeconds[use];
    const claims: Claims = {
      sub: userId,
      iat,
      // Never past the session's end: a token made near it would otherwise outlive it by up to its lifetime.
      exp: notAfter === undefined ? lifetime : Math.min(lifetime, Math.floor(notAfter.getTime() / 1000)),
      // A refresh token of a family is the same token whenever it is made again (its iat is its
      // rotation's time): the grace window answers the successor already given, byte for byte.
      jti: use === 'refresh' && family !== undefined && generation !== undefined ? this.refreshJti(family, generation) : randomBytes(12).toString('base64url'),
      use,
      auth_time: session.startedAt.getTime() / 1000,
      ...(session.apiKeyId !== null ? { akid: session.apiKeyId } : {}),
      ...(family !== undefined ? { fid: family } : {}),
      ...(use === 'refresh' && generation !== undefined ? { gen: generation } : {}),
    };
    const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
    const signingInput = `${HEADER}.${payload}`;
    return { token: `${signingInput}.${this.sign(signingInput)}`, expiresAt: new Date(claims.exp * 1000) };
  }

  private check(token: string, now: Date, use: Use): E.Either<string, TokenClaims> {
    const parts = token.split('.');
    if (parts.length !== 3) return E.left('malformed token');
    const [header, payload, signature] = parts as [string, string, string];
    if (header !== HEADER) return E.left('unsupported token header');
    const given = Buffer.from(signature);
    const signedWith = (key: Buffer): boolean => {
      const expected = Buffer.from(this.sign(`${header}.${payload}`, key));
      return expected.length === given.length && crypto.timingSafeEqual(expected, given);
    };
    if (!signedWith(this.key) && !(this.previousKey !== undefined && signedWith(this.previousKey))) return E.left('bad token signature');
    let claims: unknown;
    try {
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      return E.left('malformed token payload');
    }
    if (!isClaims(claims)) return E.left('malformed token claims');
    if (claims.use !== use) return E.left(`not ${use === 'access' ? 'an' : 'a'} ${use} token`);
    const nowSeconds = Math.floor(now.getTime() / 1000);
    if (claims.exp <= nowSeconds) return E.left('token expired');
    if (claims.iat > nowSeconds + CLOCK_SKEW_SECONDS) return E.left('token issued in the future');
    return E.right({
      userId: asId<UserId>(claims.sub),
      issuedAt: new Date(claims.iat * 1000),
      expiresAt: new Date(claims.exp * 1000),
      session: {
        startedAt: new Date(Math.round((claims.auth_time ?? claims.iat) * 1000)),
        apiKeyId: claims.akid === undefined ? null : asId<ApiKeyId>(claims.akid),
        ...(claims.fid !== undefined ? { familyId: asId<RefreshFamilyId>(claims.fid) } : {}),
      },
      ...(claims.gen !== undefined ? { generation: claims.gen } : {}),
    });
  }

  /** Unique per family and generation, and unguessable without the key. */
  private refreshJti(family: RefreshFamilyId, generation: number): string {
    return crypto.createHmac('sha256', this.key).update(`refresh jti ${family} ${generation}`).digest('base64url').slice(0, 16);
  }

  private sign(input: string, key = this.key): string {
    return crypto.createHmac('sha256', key).update(input).digest('base64url');
  }
}
