// Sign-in, tokens, users and API keys.
import { isEmail, MAX_EMAIL_LENGTH, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, USER_ROLES } from '@tracelight/domain';
import * as t from 'io-ts';
import { describeCodec } from '../shared/json-schema';
import { DateTimeOut, DateTimeWithOffset, Enum, Nullable, Obj, Str, UuidOut, UuidString, Utf8Str } from '../shared/primitives.codec';
import { fail } from '../shared/validation-error';

/**
 * What a credential field may hold: far more than any address, password or key this server issues or
 * accepts, and little enough that a sign-in attempt cannot hand the password hash megabytes to digest.
 */
const Credential = Str({ min: 1, max: MAX_PASSWORD_LENGTH, name: 'NonEmptyString' });
/** The OAuth2 password flow's form (`POST /login`, JSON accepted too): `username` is the email. */
export const LoginRequest = Obj('LoginRequest', { username: Credential, password: Credential });
export type LoginRequest = t.TypeOf<typeof LoginRequest>;
/** `POST /login/api_key`: exchanges an API key for an access token. */
export const ApiKeyLoginRequest = Obj('ApiKeyLoginRequest', { api_key: Credential });
export type ApiKeyLoginRequest = t.TypeOf<typeof ApiKeyLoginRequest>;
/** Spec operation 2 (Refresh Token) and both logins. */
export const TokenResponse = t.type({ access_token: t.string, token_type: t.literal('bearer') }, 'TokenResponse');

/** Why an address is refused, in the words of the email-validator package pydantic uses. */
const emailReason = (s: string): string | undefined => {
  const at = s.split('@').length - 1;
  if (at === 0) return 'An email address must have an @-sign.';
  if (at > 1) return 'The email address is not valid. It must have exactly one @-sign.';
  const [local = '', domain = ''] = s.split('@');
  if (local === '') return 'There must be something before the @-sign.';
  if (domain === '') return 'There must be something after the @-sign.';
  if (!domain.includes('.')) return 'The part after the @-sign is not valid. It should have a period.';
  const over = s.length - MAX_EMAIL_LENGTH;
  if (over > 0) return `The email address is too long (${over} character${over === 1 ? '' : 's'} too many).`;
  return isEmail(s) ? undefined : 'The email address is not valid.';
};

/** An email address (pydantic's EmailStr): `string_type`, else `value_error` with `ctx.reason`. */
export const Email = describeCodec(new t.Type<string, string, unknown>(
  'Email',
  (u): u is string => typeof u === 'string' && isEmail(u),
  (u, c) => {
    if (typeof u !== 'string') return fail(u, c, { type: 'string_type', msg: 'Input should be a valid string' });
    const reason = emailReason(u.trim());
    return reason === undefined
      ? t.success(u.trim())
      : fail(u, c, { type: 'value_error', msg: `value is not a valid email address: ${reason}`, ctx: { reason } });
  },
  t.identity,
), { type: 'string', format: 'email', maxLength: MAX_EMAIL_LENGTH });

export const UserRole = Enum(USER_ROLES, 'UserRole');
/** `POST /v2/users` (admins): password at least MIN_PASSWORD_LENGTH (8) characters; role defaults to `user` in the use case. */
export const CreateUserRequest = Obj(
  'CreateUserRequest',
  { email: Email, password: Str({ min: MIN_PASSWORD_LENGTH, max: MAX_PASSWORD_LENGTH }) },
  { role: UserRole },
);
export type CreateUserRequest = t.TypeOf<typeof CreateUserRequest>;
export const UserResponse = t.type({ id: UuidOut, email: t.string, role: UserRole, created_at: DateTimeOut }, 'UserResponse');

/** `POST /v2/users/api_keys`: `expires_at` absent or null means the key does not expire. */
export const ApiKeyCreateRequest = Obj(
  'ApiKeyCreateRequest',
  // Stored as text on both engines: half of a surrogate pair would come back changed (Utf8Str).
  { description: Utf8Str({ min: 1, max: 1024, name: 'NonEmptyString' }) },
  { expires_at: Nullable(DateTimeWithOffset) },
);
export type ApiKeyCreateRequest = t.TypeOf<typeof ApiKeyCreateRequest>;
/** Path of `DELETE /v2/users/api_keys/{api_key_id}`. */
export const ApiKeyPath = t.type({ api_key_id: UuidString }, 'ApiKeyPath');

const apiKeyFields = {
  id: UuidOut,
  description: t.string,
  /** A recognisable prefix…suffix of the key, never the key. */
  truncated: t.string,
  created_at: DateTimeOut,
  expires_at: t.union([DateTimeOut, t.null]),
  last_used: t.union([DateTimeOut, t.null]),
};
/** A key as listed: never the secret. */
export const ApiKeyResponse = t.type(apiKeyFields, 'ApiKeyResponse');
/** The one response that carries the key itself, in `api_key`. */
export const ApiKeyCreateResponse = t.type({ ...apiKeyFields, api_key: t.string }, 'ApiKeyCreateResponse');

/** What a revocation answers. */
export const MessageResponse = t.type({ message: t.string }, 'MessageResponse');
