// Refresh-token rotation with reuse detection (RFC 9700 §4.14): each sign-in starts a family of refresh
// tokens kept by the server; each use of the current one spends it and answers its successor, and a spent
// one presented again means two parties hold the session's tokens, so the whole family is revoked.
import type { ApiKeyId, RefreshFamilyId, UserId } from '../shared/ids';

export interface RefreshFamily {
  readonly id: RefreshFamilyId;
  readonly userId: UserId;
  /** The sign-in: the session's `auth_time`. */
  readonly startedAt: Date;
  /** The API key the session began with, if that is how it began. */
  readonly apiKeyId: ApiKeyId | null;
  /** The generation of the one refresh token that may be exchanged now: 0 is the sign-in's, each rotation adds one. */
  readonly generation: number;
  /** When the token before the current one was spent (null before the first rotation): the grace window counts from it. */
  readonly rotatedAt: Date | null;
  /** When the family was revoked (a spent token presented again); null while it is not. */
  readonly revokedAt: Date | null;
  /** The session's end, however often it is refreshed: no refresh after it. */
  readonly expiresAt: Date;
}

/** What a refresh token presented to its family comes to. */
export type RefreshVerdict =
  /** The current token: spend it, answer its successor. */
  | { readonly kind: 'rotate' }
  /** The token spent last, within the grace window: answer the successor already given (two tabs, a retry). */
  | { readonly kind: 'successor' }
  /** A spent token beyond the grace window: someone else holds the session's tokens; revoke the family. */
  | { readonly kind: 'reused' }
  | { readonly kind: 'refused'; readonly reason: string };

export const SESSION_REVOKED_BY_REUSE = 'refresh token reused: this session is revoked, sign in again';
export const SESSION_EXPIRED = 'session expired: sign in again';
/** A refresh whose cookie other refreshes kept spending first: the session stands, and a retry (with the cookie they set) goes through. */
export const REFRESH_RACED = 'refresh token spent meanwhile: try again';

/**
 * The verdict on a refresh token of `generation` presented to `family` at `now`, with a grace window of
 * `graceMs` after a rotation during which the token just spent is answered with its successor again.
 */
export const judgeRefresh = (family: RefreshFamily, generation: number, now: Date, graceMs: number): RefreshVerdict => {
  if (family.revokedAt !== null) return { kind: 'refused', reason: SESSION_REVOKED_BY_REUSE };
  if (now.getTime() >= family.expiresAt.getTime()) return { kind: 'refused', reason: SESSION_EXPIRED };
  if (generation === family.generation) return { kind: 'rotate' };
  if (generation > family.generation) return { kind: 'refused', reason: 'unknown refresh token' };
  const rotatedAt = family.rotatedAt;
  // With no grace window at all, a spent token is never answered again, even by a refresh that began
  // before it was spent (the loser of a race): it then revokes the family.
  if (graceMs > 0 && generation === family.generation - 1 && rotatedAt !== null && now.getTime() - rotatedAt.getTime() <= graceMs)
    return { kind: 'successor' };
  return { kind: 'reused' };
};
