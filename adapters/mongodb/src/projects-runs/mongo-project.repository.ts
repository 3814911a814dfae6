import { type Project, type ProjectFilter, type ProjectId, type PurgeStep, type UserId, notFound } from '@tracelight/domain';
import type { ProjectRepository, Result } from '@tracelight/ports';
import * as O from 'fp-ts/Option';
import { inject, injectable } from 'inversify';
import type { Collection, Db, MongoClient } from 'mongodb';
import { projectFromDoc } from '../shared/codecs';
import { MongoDatabase, MongoDatabaseToken } from '../shared/mongo-database';
import { Abort, inTransaction, run, toDoc, type StringIdDoc } from '../shared/run';
import { removeRunData } from './run-removal';

@injectable()
export class MongoProjectRepository implements ProjectRepository {
  private readonly db: Db;
  private readonly client: MongoClient;
  private readonly projects: Collection<StringIdDoc>;
  /** Retired projects waiting for their purge, one document each (`_id` the project's id). */
  private readonly deletions: Collection<StringIdDoc>;

  constructor(@inject(MongoDatabaseToken) { db, client }: MongoDatabase) {
    this.db = db;
    this.client = client;
    this.projects = db.collection('projects');
    this.deletions = db.collection('project_deletions');
  }

  insert(project: Project): Result<Project> {
    return run(async () => {
      await this.projects.insertOne(toDoc(project));
      return project;
    }, `A project named ${project.name} already exists`);
  }

  findById(id: ProjectId): Result<O.Option<Project>> {
    return run(async () => O.map(projectFromDoc)(O.fromNullable(await this.projects.findOne({ _id: id }))));
  }

  listByOwner(owner: UserId, filter: ProjectFilter): Result<ReadonlyArray<Project>> {
    const query = { createdBy: owner, ...(filter.name !== undefined ? { name: filter.name } : {}), ...(filter.type !== undefined ? { type: filter.type } : {}) };
    return run(async () => (await this.projects.find(query).sort({ createdAt: 1, _id: 1 }).toArray()).map(projectFromDoc));
  }

  /**
   * The project document goes, and a deletion document takes its place, in one transaction: from then
   * on no route finds the project, its name is free, and a write under it or its runs finds its parent
   * gone once written and removes itself (run-removal.ts). The purge works from the deletion document.
   */
  retire(owner: UserId, id: ProjectId, at: Date): Result<Project> {
    return run(async () => {
      const removed = await inTransaction(this.client, async (session) => {
        const found = await this.projects.findOneAndDelete({ _id: id, createdBy: owner }, { session });
        if (found !== null) await this.deletions.insertOne({ _id: id, createdBy: owner, retiredAt: at }, { session });
        return found;
      });
      if (removed === null) throw new Abort(notFound('project', id));
      // Decoded last: a document this build cannot read is still retired.
      return projectFromDoc(removed);
    });
  }

  retired(limit: number): Result<ReadonlyArray<ProjectId>> {
    return run(async () => (await this.deletions.find({}, { projection: { _id: 1 } }).sort({ retiredAt: 1, _id: 1 }).limit(limit).toArray()).map((d) => d._id as ProjectId));
  }

  /**
   * Run by run: at most `limit` of a run's records a step; once a run has fewer left, what hangs off it
   * (its remaining records, presence, insights, scorer settings; run-removal.ts) and then the run
   * itself; once no run is left, the deletion document. Writers under the project's runs already find
   * it gone (retire), so none adds to a run between the two.
   */
  purgeStep(id: ProjectId, limit: number): Result<PurgeStep> {
    return run(async () => {
      if ((await this.deletions.findOne({ _id: id }, { projection: { _id: 1 } })) === null) return { runs: 0, records: 0, finished: true };
      const runs = this.db.collection<StringIdDoc>('runs');
      const next = await runs.findOne({ projectId: id }, { projection: { _id: 1 } });
      if (next === null) {
        await this.deletions.deleteOne({ _id: id });
        return { runs: 0, records: 0, finished: true };
      }
      const records = this.db.collection<StringIdDoc>('log_records');
      const some = (await records.find({ projectId: id, runId: next._id }, { projection: { _id: 1 }, limit }).toArray()).map((d) => d._id);
      if (some.length >= limit) return { runs: 0, records: (await records.deleteMany({ projectId: id, runId: next._id, _id: { $in: some } })).deletedCount, finished: false };
      // What hangs off the run before the run: a step cut short between the two finds the run again
      // next time, where the other order would leave its last records with nothing leading to them.
      const removedRecords = await removeRunData(this.db, [next._id], id);
      return { runs: (await runs.deleteOne({ _id: next._id, projectId: id })).deletedCount, records: removedRecords, finished: false };
    });
  }
}
