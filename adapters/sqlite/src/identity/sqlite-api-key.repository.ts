import { type ApiKey, type ApiKeyId, type UserId, notFound } from '@tracelight/domain';
import type { ApiKeyRepository, Result } from '@tracelight/ports';
import * as O from 'fp-ts/Option';
import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import { inject, injectable } from 'inversify';
import { run } from '../shared/run';
import { SqliteDatabase, SqliteDatabaseToken } from '../shared/sqlite-database';
import { apiKeyFromRow, apiKeyToRow } from './identity.mapper';

@injectable()
export class SqliteApiKeyRepository implements ApiKeyRepository {
  private readonly insertStmt;
  private readonly byHash;
  private readonly byUser;
  private readonly deleteStmt;
  private readonly touchStmt;
  private readonly rehashStmt;

  constructor(@inject(SqliteDatabaseToken) { db }: SqliteDatabase) {
    this.insertStmt = db.prepare(
      `INSERT INTO api_keys (id, user_id, description, key_hash, truncated, created_at, expires_at, last_used_at)
       VALUES (@id, @user_id, @description, @key_hash, @truncated, @created_at, @expires_at, @last_used_at)`,
    );
    this.byHash = db.prepare('SELECT * FROM api_keys WHERE key_hash = ?');
    this.byUser = db.prepare('SELECT * FROM api_keys WHERE user_id = ? ORDER BY created_at DESC, id DESC');
    this.deleteStmt = db.prepare('DELETE FROM api_keys WHERE id = ? AND user_id = ?');
    this.touchStmt = db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?');
    this.rehashStmt = db.prepare('UPDATE api_keys SET key_hash = ? WHERE id = ? AND key_hash = ?');
  }

  insert(key: ApiKey): Result<ApiKey> {
    return run(() => {
      this.insertStmt.run(apiKeyToRow(key));
      return key;
    }, 'API key already exists');
  }

  findByHash(keyHash: string): Result<O.Option<ApiKey>> {
    return run(() => O.map(apiKeyFromRow)(O.fromNullable(this.byHash.get(keyHash))));
  }

  listByUser(userId: UserId): Result<ReadonlyArray<ApiKey>> {
    return run(() => this.byUser.all(userId).map(apiKeyFromRow));
  }

  revoke(userId: UserId, id: ApiKeyId): Result<void> {
    return pipe(
      run(() => this.deleteStmt.run(id, userId).changes),
      TE.flatMap((changes) => (changes === 1 ? TE.right(undefined) : TE.left(notFound('API key', id)))),
    );
  }

  touch(id: ApiKeyId, usedAt: Date): Result<void> {
    return run(() => void this.touchStmt.run(usedAt.getTime(), id));
  }

  rehash(id: ApiKeyId, from: string, to: string): Result<boolean> {
    return run(() => this.rehashStmt.run(to, id, from).changes === 1, 'API key already exists');
  }
}
