import { type ApiKey, type ApiKeyId, type UserId, notFound } from '@tracelight/domain';
import type { ApiKeyRepository, Result } from '@tracelight/ports';
import * as O from 'fp-ts/Option';
import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import { inject, injectable } from 'inversify';
import type { Collection } from 'mongodb';
import { apiKeyFromDoc } from '../shared/codecs';
import { MongoDatabase, MongoDatabaseToken } from '../shared/mongo-database';
import { run, toDoc, type StringIdDoc } from '../shared/run';

@injectable()
export class MongoApiKeyRepository implements ApiKeyRepository {
  private readonly keys: Collection<StringIdDoc>;

  constructor(@inject(MongoDatabaseToken) { db }: MongoDatabase) {
    this.keys = db.collection('api_keys');
  }

  insert(key: ApiKey): Result<ApiKey> {
    return run(async () => {
      await this.keys.insertOne(toDoc(key));
      return key;
    }, 'API key already exists');
  }

  findByHash(keyHash: string): Result<O.Option<ApiKey>> {
    return run(async () => O.map(apiKeyFromDoc)(O.fromNullable(await this.keys.findOne({ keyHash }))));
  }

  listByUser(userId: UserId): Result<ReadonlyArray<ApiKey>> {
    return run(async () => (await this.keys.find({ userId }).sort({ createdAt: -1, _id: -1 }).toArray()).map(apiKeyFromDoc));
  }

  revoke(userId: UserId, id: ApiKeyId): Result<void> {
    return pipe(
      run(async () => (await this.keys.deleteOne({ _id: id , userId })).deletedCount),
      TE.flatMap((n) => (n === 1 ? TE.right(undefined) : TE.left(notFound('API key', id)))),
    );
  }

  touch(id: ApiKeyId, usedAt: Date): Result<void> {
    return run(async () => void (await this.keys.updateOne({ _id: id }, { $set: { lastUsedAt: usedAt } })));
  }

  rehash(id: ApiKeyId, from: string, to: string): Result<boolean> {
    return run(async () => (await this.keys.updateOne({ _id: id, keyHash: from }, { $set: { keyHash: to } })).matchedCount === 1, 'API key already exists');
  }
}
