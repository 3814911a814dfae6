// Scorer versions in MongoDB: numbered by a per-scorer counter in the insert's transaction, each stored
// as its JSON text beside its scorer, number and kind (scorerVersionToDoc).
import { type FoundPage, type PageRequest, type ScorerId, type ScorerVersion, type ScorerVersionKind, takePageAsync } from '@tracelight/domain';
import type { Result, ScorerVersionRepository } from '@tracelight/ports';
import * as O from 'fp-ts/Option';
import { inject, injectable } from 'inversify';
import { BSON, type Collection, type MongoClient } from 'mongodb';
import { scorerVersionFromDoc, scorerVersionToDoc } from '../shared/codecs';
import { MongoDatabase, MongoDatabaseToken } from '../shared/mongo-database';
import { CorruptDocument, inTransaction, isDuplicateKey, run, type StringIdDoc } from '../shared/run';

@injectable()
export class MongoScorerVersionRepository implements ScorerVersionRepository {
  private readonly client: MongoClient;
  private readonly versions: Collection<StringIdDoc>;
  private readonly counters: Collection<{ _id: string; last: number }>;

  constructor(@inject(MongoDatabaseToken) { client, db }: MongoDatabase) {
    this.client = client;
    this.versions = db.collection('scorer_versions');
    this.counters = db.collection('scorer_version_counters');
  }

  appendNext(scorerId: ScorerId, build: (version: number) => ScorerVersion): Result<ScorerVersion> {
    return run(async () => {
      // Built once, here: the transaction's callback may run more than once, and so may the attempt.
      // The version names its number in `version` alone (the port), set as the counter gives it.
      const built = build(0);
      for (let attempt = 0; ; attempt++) {
        try {
          return await this.appendInTransaction(scorerId, built);
        } catch (e) {
          // A counter behind the stored versions (a restore, a hand-made copy) is brought up to them, once.
          if (!isDuplicateKey(e) || attempt > 0) throw e;
          await this.catchUp(scorerId);
        }
      }
    }, 'scorer version already exists');
  }

  /**
   * The counter's `$inc` and the version's insert commit together: concurrent appends on any process
   * conflict on the counter and are retried by the driver, and a failed insert gives its number back,
   * so numbers are consecutive with no gap, as on SQLite.
   */
  private async appendInTransaction(scorerId: ScorerId, built: ScorerVersion): Promise<ScorerVersion> {
    return inTransaction(this.client, async (session) => {
      const counter = await this.counters.findOneAndUpdate(
        { _id: scorerId },
        { $inc: { last: 1 } },
        { upsert: true, returnDocument: 'after', session },
      );
      if (!counter) throw new CorruptDocument('version counter upsert returned nothing');
      const v: ScorerVersion = { ...built, version: counter.last };
      await this.versions.insertOne(scorerVersionToDoc(v), { session });
      return v;
    });
  }

  private async catchUp(scorerId: ScorerId): Promise<void> {
    const top = await this.versions.findOne({ scorerId }, { sort: { version: -1 }, projection: { version: 1 } });
    if (top && typeof top['version'] === 'number') await this.counters.updateOne({ _id: scorerId }, { $max: { last: top['version'] } }, { upsert: true });
  }

  listFrom(scorerId: ScorerId, page: PageRequest, maxBytes: number): Result<FoundPage<ScorerVersion>> {
    return run(async () => {
      const cursor = this.versions.find({ scorerId }).sort({ version: 1 }).skip(page.startingToken).limit(page.limit + 1);
      try {
        return await takePageAsync(cursor, { limit: page.limit, maxBytes, sizeOf: (doc) => BSON.calculateObjectSize(doc) }, scorerVersionFromDoc);
      } finally {
        await cursor.close();
      }
    });
  }

  findLatest(scorerId: ScorerId, kind?: ScorerVersionKind): Result<O.Option<ScorerVersion>> {
    return run(async () =>
      O.map(scorerVersionFromDoc)(
        O.fromNullable(await this.versions.findOne({ scorerId, ...(kind ? { kind } : {}) }, { sort: { version: -1 } })),
      ),
    );
  }

  findLatestOfEach(scorerIds: ReadonlyArray<ScorerId>): Result<ReadonlyMap<ScorerId, ScorerVersion>> {
    return run(async () => {
      const latest = new Map<ScorerId, ScorerVersion>();
      if (scorerIds.length === 0) return latest;
      const docs = await this.versions
        .aggregate([
          { $match: { scorerId: { $in: [...scorerIds] } } },
          // The direction of scorer_versions_number ({scorerId: 1, version: 1}), so the index serves it.
          { $sort: { scorerId: 1, version: 1 } },
          { $group: { _id: '$scorerId', latest: { $last: '$$ROOT' } } },
        ])
        .toArray();
      for (const d of docs) {
        const v = scorerVersionFromDoc(d['latest']);
        latest.set(v.scorerId, v);
      }
      return latest;
    });
  }

  findByNumber(scorerId: ScorerId, version: number): Result<O.Option<ScorerVersion>> {
    return run(async () => O.map(scorerVersionFromDoc)(O.fromNullable(await this.versions.findOne({ scorerId, version }))));
  }
}
