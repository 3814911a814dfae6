// Users and their roles. A password is only ever held as a hash.
import * as O from 'fp-ts/Option';
import { type DomainError, invalid } from '../shared/errors';
import type { UserId } from '../shared/ids';
import { longerThan, shorterThan } from '../shared/text';

export const USER_ROLES = ['admin', 'manager', 'user', 'read_only'] as const;
export type UserRole = (typeof USER_ROLES)[number];

export interface User {
  readonly id: UserId;
  readonly email: string;
  readonly role: UserRole;
  readonly passwordHash: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /**
   * Sessions (tokens and refresh tokens) begun before this moment are refused: set when the user's
   * sessions are revoked (a stolen token, a departing device). Null: none ever were.
   */
  readonly sessionsValidFrom: Date | null;
}

/** Emails are compared case-insensitively; we store them normalised. */
/**
 * An address as it is stored and looked up: NFKC-normalised (a fullwidth `Ａ` is `A`, so look-alikes of
 * one address are that address), trimmed and lower-cased.
 */
export const normaliseEmail = (email: string): string => email.normalize('NFKC').trim().toLowerCase();

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** Invisible or control characters (a zero-width space, a bidi override, a NUL): no address has them, a look-alike would. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Z}]/u;
/** The longest address mail can carry (RFC 3696 errata, RFC 5321's path less its angle brackets). */
export const MAX_EMAIL_LENGTH = 254;
export const isEmail = (s: string): boolean => s.trim().length <= MAX_EMAIL_LENGTH && EMAIL.test(s.trim()) && !INVISIBLE.test(s.trim());

export const MIN_PASSWORD_LENGTH = 8;
/** The longest password taken, in characters: a sign-in refuses a longer one, so a user made with one could never sign in. */
export const MAX_PASSWORD_LENGTH = 1024;

/**
 * What is wrong with a new user's email or password, if anything: checked before anything is stored
 * (and by the admin CLI before it opens, or makes, a database).
 */
export const newUserProblem = (input: { readonly email: string; readonly password: string }): O.Option<DomainError> => {
  if (!isEmail(normaliseEmail(input.email))) return O.some(invalid(['email'], 'value is not a valid email address', input.email));
  // Characters, as the HTTP codec counts them (four emoji are four).
  if (shorterThan(input.password, MIN_PASSWORD_LENGTH))
    return O.some(invalid(['password'], `password must have at least ${MIN_PASSWORD_LENGTH} characters`));
  if (longerThan(input.password, MAX_PASSWORD_LENGTH))
    return O.some(invalid(['password'], `password must have at most ${MAX_PASSWORD_LENGTH} characters`));
  return O.none;
};
