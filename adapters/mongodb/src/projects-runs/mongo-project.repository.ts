import { type Project, type ProjectDeletion, type ProjectFilter, type ProjectId, type UserId, notFound } from '@tracelight/domain';
import type { ProjectRepository, Result } from '@tracelight/ports';
import * as O from 'fp-ts/Option';
import { inject, injectable } from 'inversify';
import type { Collection, Db } from 'mongodb';
import { projectFromDoc } from '../shared/codecs';
import { MongoDatabase, MongoDatabaseToken } from '../shared/mongo-database';
import { Abort, run, toDoc, type StringIdDoc } from '../shared/run';
import { removeRunsOfProject } from './run-removal';

@injectable()
export class MongoProjectRepository implements ProjectRepository {
  private readonly db: Db;
  private readonly projects: Collection<StringIdDoc>;

  constructor(@inject(MongoDatabaseToken) { db }: MongoDatabase) {
    this.db = db;
    this.projects = db.collection('projects');
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
   * Not one transaction, which a project of millions of records would outgrow: the project document
   * first, then its runs, each before what hangs off it. Once the project document is gone no route
   * finds the project, its name is free, and a write racing this one under the project either lands
   * before the removal of what it writes (and is removed with the rest) or finds its parent gone and
   * removes itself: see run-removal.ts. A removal cut short (the process killed) leaves runs and
   * records that nothing reaches any more: every route looks their project up first.
   */
  delete(owner: UserId, id: ProjectId): Result<ProjectDeletion> {
    return run(async () => {
      const removed = await this.projects.findOneAndDelete({ _id: id, createdBy: owner });
      if (removed === null) throw new Abort(notFound('project', id));
      const { runs, records } = await removeRunsOfProject(this.db, id);
      // Decoded last: a document this build cannot read is still removed whole.
      return { project: projectFromDoc(removed), runs, records };
    });
  }
}
