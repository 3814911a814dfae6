import type { Integration, IntegrationId, Provider, UserId } from '@tracelight/domain';
import type { IntegrationRepository, Result } from '@tracelight/ports';
import * as O from 'fp-ts/Option';
import { inject, injectable } from 'inversify';
import type { Collection } from 'mongodb';
import { integrationFromDoc } from '../shared/codecs';
import { MongoDatabase, MongoDatabaseToken } from '../shared/mongo-database';
import { CorruptDocument, isDuplicateKey, run, type StringIdDoc } from '../shared/run';

@injectable()
export class MongoIntegrationRepository implements IntegrationRepository {
  private readonly integrations: Collection<StringIdDoc>;

  constructor(@inject(MongoDatabaseToken) { db }: MongoDatabase) {
    this.integrations = db.collection('integrations');
  }

  findByOwner(owner: UserId, provider: Provider): Result<O.Option<Integration>> {
    return run(async () => O.map(integrationFromDoc)(O.fromNullable(await this.integrations.findOne({ createdBy: owner, provider }))));
  }

  upsert(i: Integration): Result<Integration> {
    const once = () =>
      this.integrations.findOneAndUpdate(
        { createdBy: i.createdBy, provider: i.provider },
        {
          $set: { name: i.name, settings: i.settings, sealedSecret: i.sealedSecret, updatedAt: i.updatedAt },
          $setOnInsert: {
            _id: i.id,
            createdAt: i.createdAt,
            permissions: i.permissions,
            isSelected: i.isSelected,
            isDisabled: i.isDisabled,
          },
        },
        { upsert: true, returnDocument: 'after' },
      );
    return run(async () => {
      let doc;
      try {
        doc = await once();
      } catch (e) {
        // Two first upserts racing: one inserted, the other hit the unique index. Now it exists: update it.
        if (!isDuplicateKey(e)) throw e;
        doc = await once();
      }
      if (!doc) throw new CorruptDocument('upsert returned no document');
      return integrationFromDoc(doc);
    });
  }

  page(after: IntegrationId | undefined, limit: number): Result<ReadonlyArray<Integration>> {
    return run(async () =>
      (await this.integrations.find(after === undefined ? {} : { _id: { $gt: after } }).sort({ _id: 1 }).limit(limit).toArray()).map(integrationFromDoc),
    );
  }

  replaceSecret(id: IntegrationId, from: string, to: string): Result<boolean> {
    return run(async () => (await this.integrations.updateOne({ _id: id, sealedSecret: from }, { $set: { sealedSecret: to } })).matchedCount === 1);
  }
}
