import type { RefreshFamily, RefreshFamilyId } from '@tracelight/domain';
import type { RefreshFamilyRepository, Result } from '@tracelight/ports';
import * as O from 'fp-ts/Option';
import { inject, injectable } from 'inversify';
import type { Collection, Filter, UpdateFilter } from 'mongodb';
import { refreshFamilyFromDoc } from '../shared/codecs';
import { MongoDatabase, MongoDatabaseToken } from '../shared/mongo-database';
import { run, toDoc } from '../shared/run';

/** A family as stored: the domain's fields, its id as `_id`, dates as BSON dates. */
export interface RefreshFamilyDocument {
  readonly _id: string;
  readonly userId: string;
  readonly startedAt: Date;
  readonly apiKeyId: string | null;
  readonly generation: number;
  readonly rotatedAt: Date | null;
  readonly revokedAt: Date | null;
  readonly expiresAt: Date;
}

export const refreshFamilyToDocument = (family: RefreshFamily): RefreshFamilyDocument => toDoc(family);

/**
 * The compare-and-set of a rotation: the family still at generation `from` and not revoked (a missing
 * `revokedAt` matches null too), moved to the next generation in one single-document update, which
 * MongoDB applies atomically, so of concurrent rotations on any processes one matches.
 */
export const rotation = (id: RefreshFamilyId, from: number, at: Date) =>
  ({
    filter: { _id: id, generation: from, revokedAt: null },
    update: { $inc: { generation: 1 }, $set: { rotatedAt: at } },
  }) satisfies { filter: Filter<RefreshFamilyDocument>; update: UpdateFilter<RefreshFamilyDocument> };

@injectable()
export class MongoRefreshFamilyRepository implements RefreshFamilyRepository {
  private readonly families: Collection<RefreshFamilyDocument>;

  constructor(@inject(MongoDatabaseToken) { db }: MongoDatabase) {
    this.families = db.collection('refresh_families');
  }

  insert(family: RefreshFamily): Result<RefreshFamily> {
    return run(async () => {
      await this.families.insertOne(refreshFamilyToDocument(family));
      return family;
    }, 'refresh family already exists');
  }

  findById(id: RefreshFamilyId): Result<O.Option<RefreshFamily>> {
    return run(async () => O.map(refreshFamilyFromDoc)(O.fromNullable(await this.families.findOne({ _id: id }))));
  }

  rotate(id: RefreshFamilyId, from: number, at: Date): Result<O.Option<RefreshFamily>> {
    const { filter, update } = rotation(id, from, at);
    return run(async () => O.map(refreshFamilyFromDoc)(O.fromNullable(await this.families.findOneAndUpdate(filter, update, { returnDocument: 'after' }))));
  }

  revoke(id: RefreshFamilyId, at: Date): Result<void> {
    return run(async () => void (await this.families.updateOne({ _id: id, revokedAt: null }, { $set: { revokedAt: at } })));
  }

  removeEndedBefore(before: Date, limit: number): Result<number> {
    return run(async () => {
      const ended = await this.families.find({ expiresAt: { $lt: before } }, { projection: { _id: 1 } }).limit(limit).toArray();
      if (ended.length === 0) return 0;
      return (await this.families.deleteMany({ _id: { $in: ended.map((d) => d._id) }, expiresAt: { $lt: before } })).deletedCount;
    });
  }
}
