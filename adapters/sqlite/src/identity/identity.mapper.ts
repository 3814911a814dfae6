// users, api_keys and refresh_families rows ⇄ domain.
import { type ApiKey, type ApiKeyId, type RefreshFamily, type RefreshFamilyId, type User, type UserId, USER_ROLES } from '@tracelight/domain';
import * as t from 'io-ts';
import { IdString, MsDate, decodeOrThrow, nullable, row } from '../shared/row-codecs';

const UserRow = row({
  id: IdString<UserId>(),
  email: t.string,
  role: t.keyof(Object.fromEntries(USER_ROLES.map((r) => [r, null])) as Record<(typeof USER_ROLES)[number], null>),
  password_hash: t.string,
  created_at: MsDate,
  updated_at: MsDate,
  sessions_valid_from: nullable(MsDate),
});

export const userFromRow = (stored: unknown): User => {
  const r = decodeOrThrow(UserRow, stored);
  return {
    id: r.id,
    email: r.email,
    role: r.role,
    passwordHash: r.password_hash,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    sessionsValidFrom: r.sessions_valid_from,
  };
};

export const userToRow = (u: User) => ({
  id: u.id,
  email: u.email,
  role: u.role,
  password_hash: u.passwordHash,
  created_at: u.createdAt.getTime(),
  updated_at: u.updatedAt.getTime(),
  sessions_valid_from: u.sessionsValidFrom === null ? null : u.sessionsValidFrom.getTime(),
});

const ApiKeyRow = row({
  id: IdString<ApiKeyId>(),
  user_id: IdString<UserId>(),
  description: t.string,
  key_hash: t.string,
  truncated: t.string,
  created_at: MsDate,
  expires_at: nullable(MsDate),
  last_used_at: nullable(MsDate),
});

export const apiKeyFromRow = (stored: unknown): ApiKey => {
  const r = decodeOrThrow(ApiKeyRow, stored);
  return {
    id: r.id,
    userId: r.user_id,
    description: r.description,
    keyHash: r.key_hash,
    truncated: r.truncated,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    lastUsedAt: r.last_used_at,
  };
};

export const apiKeyToRow = (k: ApiKey) => ({
  id: k.id,
  user_id: k.userId,
  description: k.description,
  key_hash: k.keyHash,
  truncated: k.truncated,
  created_at: k.createdAt.getTime(),
  expires_at: k.expiresAt?.getTime() ?? null,
  last_used_at: k.lastUsedAt?.getTime() ?? null,
});

const RefreshFamilyRow = row({
  id: IdString<RefreshFamilyId>(),
  user_id: IdString<UserId>(),
  started_at: MsDate,
  api_key_id: nullable(IdString<ApiKeyId>()),
  generation: t.Integer,
  rotated_at: nullable(MsDate),
  revoked_at: nullable(MsDate),
  expires_at: MsDate,
});

export const refreshFamilyFromRow = (stored: unknown): RefreshFamily => {
  const r = decodeOrThrow(RefreshFamilyRow, stored);
  return {
    id: r.id,
    userId: r.user_id,
    startedAt: r.started_at,
    apiKeyId: r.api_key_id,
    generation: r.generation,
    rotatedAt: r.rotated_at,
    revokedAt: r.revoked_at,
    expiresAt: r.expires_at,
  };
};

export const refreshFamilyToRow = (f: RefreshFamily) => ({
  id: f.id,
  user_id: f.userId,
  started_at: f.startedAt.getTime(),
  api_key_id: f.apiKeyId,
  generation: f.generation,
  rotated_at: f.rotatedAt?.getTime() ?? null,
  revoked_at: f.revokedAt?.getTime() ?? null,
  expires_at: f.expiresAt.getTime(),
});
