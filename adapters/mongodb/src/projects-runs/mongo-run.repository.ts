import { type ProjectId, type Run, type RunId, type RunKind, notFound } from '@tracelight/domain';
import type { Result, RunRepository } from '@tracelight/ports';
import * as O from 'fp-ts/Option';
import { inject, injectable } from 'inversify';
import type { Collection, Db } from 'mongodb';
import { runFromDoc } from '../shared/codecs';
import { MongoDatabase, MongoDatabaseToken } from '../shared/mongo-database';
import { Abort, run, toDoc, type StringIdDoc } from '../shared/run';
import { projectExists, removeRunData } from './run-removal';

/** The Conflict's message when the project already has a run of that kind and name (here, and in MongoLogRecordRepository.ingestIntoNewRun). */
export const runNameTaken = (r: Run): string => `A ${r.kind.replace('_', ' ')} named ${r.name} already exists in this project`;

@injectable()
export class MongoRunRepository implements RunRepository {
  private readonly db: Db;
  private readonly runs: Collection<StringIdDoc>;

  constructor(@inject(MongoDatabaseToken) { db }: MongoDatabase) {
    this.db = db;
    this.runs = db.collection('runs');
  }

  insert(r: Run): Result<Run> {
    return run(async () => {
      await this.runs.insertOne(toDoc(r));
      // The project may have been deleted meanwhile: then this run (and anything written under it
      // since) goes again, the run first, as a project deletion would have removed it (run-removal.ts).
      if (!(await projectExists(this.db, r.projectId))) {
        await this.runs.deleteOne({ _id: r.id, projectId: r.projectId });
        await removeRunData(this.db, [r.id], r.projectId);
        throw new Abort(notFound('project', r.projectId));
      }
      return r;
    }, runNameTaken(r));
  }

  findInProject(projectId: ProjectId, runId: RunId): Result<O.Option<Run>> {
    return run(async () => O.map(runFromDoc)(O.fromNullable(await this.runs.findOne({ _id: runId , projectId }))));
  }

  listInProject(projectId: ProjectId, kind: RunKind, name?: string): Result<ReadonlyArray<Run>> {
    const query = { projectId, kind, ...(name !== undefined ? { name } : {}) };
    return run(async () => (await this.runs.find(query).sort({ createdAt: 1, _id: 1 }).toArray()).map(runFromDoc));
  }
}
