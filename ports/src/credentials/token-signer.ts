// Signed, expiring access tokens (JWT) that any server process sharing the key can verify.
import type { AccessToken, Session, TokenClaims, UserId } from '@tracelight/domain';
import type { Either } from 'fp-ts/Either';

export interface TokenSigner {
  /**
   * An access token of `session` (a token of an earlier one carries that on when refreshed). `notAfter`:
   * when the session ends, past which no token of it may live, however fresh.
   */
  issue(userId: UserId, now: Date, session: Session, notAfter?: Date): AccessToken;
  /** Left with a reason for a malformed, tampered or expired token, or a refresh token. */
  verify(token: string, now: Date): Either<string, TokenClaims>;
  /**
   * A longer-lived token that can only be exchanged for access tokens (the refresh cookie). Of a session
   * with a refresh family, `generation` is its place in it, and the token of one family and generation
   * made at the same `now` is the same token.
   */
  issueRefresh(userId: UserId, now: Date, session: Session, generation?: number, notAfter?: Date): { readonly token: string; readonly expiresAt: Date };
  /** Left for anything but a valid, unexpired refresh token. */
  verifyRefresh(token: string, now: Date): Either<string, TokenClaims>;
}
export const TokenSigner = Symbol.for('tracelight.TokenSigner');
