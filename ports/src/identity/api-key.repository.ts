import type { ApiKey, ApiKeyId, UserId } from '@tracelight/domain';
import type { Option } from 'fp-ts/Option';
import type { Result } from '../system/result';

export interface ApiKeyRepository {
  /** Conflict when the hash is already stored (unique). */
  insert(key: ApiKey): Result<ApiKey>;
  findByHash(keyHash: string): Result<Option<ApiKey>>;
  /** The user's keys, newest first. */
  listByUser(userId: UserId): Result<ReadonlyArray<ApiKey>>;
  /** Deletes the key if it belongs to the user; NotFound otherwise. */
  revoke(userId: UserId, id: ApiKeyId): Result<void>;
  touch(id: ApiKeyId, usedAt: Date): Result<void>;
  /**
   * Stores the key under the hash `to` if it is still stored under `from` (compare-and-set), for a key
   * found under an earlier server key's hash; true when it moved it, false when the key is no longer
   * stored under `from` (another process moved it first, or it was revoked).
   */
  rehash(id: ApiKeyId, from: string, to: string): Result<boolean>;
}
export const ApiKeyRepository = Symbol.for('tracelight.ApiKeyRepository');
