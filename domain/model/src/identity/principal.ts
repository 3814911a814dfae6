// Who is calling, and through which of the spec's credential schemes.
import type { ApiKeyId, RefreshFamilyId, UserId } from '../shared/ids';
import type { UserRole } from './user';

export type CredentialScheme = 'api_key' | 'bearer' | 'basic';

export interface Principal {
  readonly userId: UserId;
  readonly email: string;
  readonly role: UserRole;
  readonly scheme: CredentialScheme;
  /**
   * The API key the credential rests on: the key presented, or the one a token's session began with
   * (`/login/api_key`); null for a password (HTTP Basic, or a session signed in with one). Required, so
   * that whoever builds a principal (an embedder's own authentication, say) says which it is.
   */
  readonly apiKeyId: ApiKeyId | null;
}

/**
 * What a role may do. Every user reads and changes only their own data (and manages their own API keys);
 * beyond that:
 * - `admin` creates users of any role;
 * - `manager` creates users of the roles below it (`user`, `read_only`);
 * - `user` has no more;
 * - `read_only` reads, signs in and manages its API keys, and changes no data.
 */
export const mayChangeData = (p: Principal): boolean => p.role !== 'read_only';
/**
 * API keys and users are managed with a password (HTTP Basic, or a session signed in with one), never
 * with an API key or a session begun with one: a key that made keys or users could otherwise leave
 * credentials behind that outlive its own revocation or expiry.
 */
export const mayManageCredentials = (p: Principal): boolean => p.apiKeyId === null && p.scheme !== 'api_key';
export const NEEDS_PASSWORD = 'API keys and users are managed with a password: sign in with one (HTTP Basic or /login), not with an API key or a session begun with one';
export const mayCreateUser = (actor: Principal, role: UserRole): boolean =>
  actor.role === 'admin' || (actor.role === 'manager' && (role === 'user' || role === 'read_only'));

/** The credentials a request presented, already split out of its headers by the HTTP edge. */
export type PresentedCredentials =
  | { readonly scheme: 'api_key'; readonly apiKey: string }
  | { readonly scheme: 'bearer'; readonly token: string }
  | { readonly scheme: 'basic'; readonly email: string; readonly password: string };

/**
 * A sign-in and the tokens that continue it: refreshing a token carries its session on, so a session
 * has one start however often its tokens are renewed.
 */
export interface Session {
  /** When the user signed in (with a password or an API key). */
  readonly startedAt: Date;
  /** The API key exchanged for the session's first token, if that is how it began. */
  readonly apiKeyId: ApiKeyId | null;
  /**
   * The session's family of refresh tokens, kept by the server (RefreshFamily): refresh tokens are
   * rotated in it, and a reuse revokes it with every token of the session. Absent from the tokens of
   * sessions begun before families were kept, or when storage had no room for one at sign-in.
   */
  readonly familyId?: RefreshFamilyId;
}

/** What a signed token asserts. */
export interface TokenClaims {
  readonly userId: UserId;
  readonly issuedAt: Date;
  readonly expiresAt: Date;
  readonly session: Session;
  /** A refresh token's place in its family (RefreshFamily.generation); absent from access tokens. */
  readonly generation?: number;
}

export interface AccessToken {
  readonly accessToken: string;
  readonly tokenType: 'bearer';
  readonly expiresAt: Date;
}
