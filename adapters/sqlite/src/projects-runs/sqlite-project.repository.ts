import { type Project, type ProjectDeletion, type ProjectFilter, type ProjectId, type UserId, notFound } from '@tracelight/domain';
import type { ProjectRepository, Result } from '@tracelight/ports';
import type Database from 'better-sqlite3';
import * as O from 'fp-ts/Option';
import { inject, injectable } from 'inversify';
import { deleteInSteps } from '../shared/deletion-steps';
import { Abort, run } from '../shared/run';
import { SqliteDatabase, SqliteDatabaseToken } from '../shared/sqlite-database';
import { projectFromRow, projectToRow } from './project-run.mapper';

@injectable()
export class SqliteProjectRepository implements ProjectRepository {
  private readonly insertStmt;
  private readonly byId;
  private readonly byOwner;
  private readonly deleteWhole: Database.Transaction<(owner: UserId, id: ProjectId) => ProjectDeletion>;
  private readonly removeSome: Database.Statement<{ owner: UserId; id: ProjectId; limit: number }>;

  constructor(@inject(SqliteDatabaseToken) { db }: SqliteDatabase) {
    this.insertStmt = db.prepare(
      'INSERT INTO projects (id, name, type, created_by, created_at, updated_at) VALUES (@id, @name, @type, @created_by, @created_at, @updated_at)',
    );
    this.byId = db.prepare('SELECT * FROM projects WHERE id = ?');
    this.byOwner = db.prepare(
      `SELECT * FROM projects WHERE created_by = @owner AND (@name IS NULL OR name = @name) AND (@type IS NULL OR type = @type)
       ORDER BY created_at, id`,
    );
    // Every table keyed by a run (migrations 1, 2 and 4), children first: foreign keys are on, and
    // explicit deletes count what they remove where ON DELETE CASCADE would not say. Each finds the
    // project's runs through runs' (project_id, …) key and its own rows through its run_id key.
    const ofRuns = 'run_id IN (SELECT id FROM runs WHERE project_id = ?)';
    const removeRecords = db.prepare(`DELETE FROM log_records WHERE ${ofRuns}`);
    const removeRunRows = ['run_columns', 'run_insights', 'run_scorer_settings'].map((table) => db.prepare(`DELETE FROM ${table} WHERE ${ofRuns}`));
    const removeRuns = db.prepare('DELETE FROM runs WHERE project_id = ?');
    const owned = db.prepare('SELECT * FROM projects WHERE id = ? AND created_by = ?');
    const removeProject = db.prepare('DELETE FROM projects WHERE id = ?');
    // What is left once the records went in steps (`delete`), in one transaction: all of it or none. On
    // the writer thread it is one write of a group commit, in its own savepoint. A write under the
    // project that comes after it fails on its foreign key (see `run`): nothing can be added to a
    // project once it is gone.
    this.removeSome = db.prepare(
      `DELETE FROM log_records WHERE rowid IN (
         SELECT l.rowid FROM projects p CROSS JOIN runs r CROSS JOIN log_records l
         WHERE p.id = @id AND p.created_by = @owner AND r.project_id = p.id AND l.run_id = r.id LIMIT @limit)`,
    );
    this.deleteWhole = db.transaction((owner: UserId, id: ProjectId): ProjectDeletion => {
      const found = owned.get(id, owner);
      if (found === undefined) throw new Abort(notFound('project', id));
      const records = removeRecords.run(id).changes;
      for (const statement of removeRunRows) statement.run(id);
      const runs = removeRuns.run(id).changes;
      removeProject.run(id);
      return { project: projectFromRow(found), runs, records };
    });
  }

  insert(project: Project): Result<Project> {
    return run(() => {
      this.insertStmt.run(projectToRow(project));
      return project;
    }, `A project named ${project.name} already exists`);
  }

  findById(id: ProjectId): Result<O.Option<Project>> {
    return run(() => O.map(projectFromRow)(O.fromNullable(this.byId.get(id))));
  }

  listByOwner(owner: UserId, filter: ProjectFilter): Result<ReadonlyArray<Project>> {
    return run(() => this.byOwner.all({ owner, name: filter.name ?? null, type: filter.type ?? null }).map(projectFromRow));
  }

  /**
   * The records a step at a time, each step a transaction of its own, then the rest in one (see
   * deletion-steps.ts). Here, on the connection that writes in this process (the admin CLI, an
   * embedder), each step is followed by a pause as long as it took, in which the writers of other
   * processes (a server on the same file) take the lock in turn; the server's writer thread takes the
   * steps one by one between the other writes it has queued (SqliteStorage).
   */
  delete(owner: UserId, id: ProjectId): Result<ProjectDeletion> {
    return deleteInSteps({
      removeSome: (limit) => this.removeRecordsOf(owner, id, limit),
      removeRest: () => this.deleteRest(owner, id),
      between: (stepMs) => new Promise((resume) => setTimeout(resume, stepMs)),
    });
  }

  /** A step of `delete`: removes at most `limit` records of the owner's project (none when it is not the owner's). */
  removeRecordsOf(owner: UserId, id: ProjectId, limit: number): Result<number> {
    return run(() => this.removeSome.run({ owner, id, limit }).changes);
  }

  /** The last step of `delete`: the rest of the owner's project, and the project, in one transaction. */
  deleteRest(owner: UserId, id: ProjectId): Result<ProjectDeletion> {
    return run(() => this.deleteWhole(owner, id));
  }
}
