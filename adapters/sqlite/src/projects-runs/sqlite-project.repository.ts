import { type Project, type ProjectFilter, type ProjectId, type PurgeStep, type UserId, notFound } from '@tracelight/domain';
import type { ProjectRepository, Result } from '@tracelight/ports';
import type Database from 'better-sqlite3';
import * as O from 'fp-ts/Option';
import { inject, injectable } from 'inversify';
import { Abort, run } from '../shared/run';
import { SqliteDatabase, SqliteDatabaseToken } from '../shared/sqlite-database';
import { projectFromRow, projectToRow } from './project-run.mapper';

/**
 * A retired project's name: unique (its id) and never a live project's (a NUL, which no name is given),
 * so that the owner's UNIQUE (created_by, name) frees the name the moment the project is retired.
 */
const retiredName = (id: ProjectId) => `\u0000retired ${id}`;

@injectable()
export class SqliteProjectRepository implements ProjectRepository {
  private readonly insertStmt;
  private readonly byId;
  private readonly byOwner;
  private readonly retireOwned: Database.Transaction<(owner: UserId, id: ProjectId, at: Date) => Project>;
  private readonly retiredIds;
  private readonly purge: Database.Transaction<(id: ProjectId, limit: number) => PurgeStep>;

  constructor(@inject(SqliteDatabaseToken) { db }: SqliteDatabase) {
    this.insertStmt = db.prepare(
      'INSERT INTO projects (id, name, type, created_by, created_at, updated_at) VALUES (@id, @name, @type, @created_by, @created_at, @updated_at)',
    );
    this.byId = db.prepare('SELECT * FROM projects WHERE id = ? AND retired_at IS NULL');
    this.byOwner = db.prepare(
      `SELECT * FROM projects WHERE created_by = @owner AND retired_at IS NULL AND (@name IS NULL OR name = @name) AND (@type IS NULL OR type = @type)
       ORDER BY created_at, id`,
    );
    const owned = db.prepare('SELECT * FROM projects WHERE id = ? AND created_by = ? AND retired_at IS NULL');
    const markRetired = db.prepare('UPDATE projects SET retired_at = ?, name = ? WHERE id = ?');
    this.retireOwned = db.transaction((owner: UserId, id: ProjectId, at: Date): Project => {
      const found = owned.get(id, owner);
      if (found === undefined) throw new Abort(notFound('project', id));
      markRetired.run(at.getTime(), retiredName(id), id);
      return projectFromRow(found);
    });
    this.retiredIds = db.prepare('SELECT id FROM projects WHERE retired_at IS NOT NULL ORDER BY retired_at, id LIMIT ?').pluck();

    const isRetired = db.prepare('SELECT 1 FROM projects WHERE id = ? AND retired_at IS NOT NULL').pluck();
    // Records a step at a time, run by run (CROSS JOIN keeps runs the outer loop) through each run's key.
    // Scoring jobs first, a step at a time as records are: a run's jobs can be as many as its records.
    const removeSomeJobs = db.prepare(
      `DELETE FROM scoring_jobs WHERE rowid IN (
         SELECT j.rowid FROM runs r CROSS JOIN scoring_jobs j WHERE r.project_id = @id AND j.run_id = r.id LIMIT @limit)`,
    );
    const removeSomeRecords = db.prepare(
      `DELETE FROM log_records WHERE rowid IN (
         SELECT l.rowid FROM runs r CROSS JOIN log_records l WHERE r.project_id = @id AND l.run_id = r.id LIMIT @limit)`,
    );
    // Every table keyed by a run (migrations 1 and 2), children first: foreign keys are on. Each finds
    // the project's runs through runs' (project_id, …) key and its own rows through its run_id key.
    const ofRuns = 'run_id IN (SELECT id FROM runs WHERE project_id = ?)';
    const removeRestRecords = db.prepare(`DELETE FROM log_records WHERE ${ofRuns}`);
    const removeRunRows = ['scoring_jobs', 'run_columns', 'run_insights', 'run_scorer_settings'].map((table) => db.prepare(`DELETE FROM ${table} WHERE ${ofRuns}`));
    const removeRuns = db.prepare('DELETE FROM runs WHERE project_id = ?');
    const removeProject = db.prepare('DELETE FROM projects WHERE id = ?');
    // One step, in one transaction (on the writer thread, one write of a group commit). The step that
    // finds fewer records than its limit takes the rest with it: records written meanwhile (by a write
    // that began before the project was retired), the runs, their settings and the project.
    this.purge = db.transaction((id: ProjectId, limit: number): PurgeStep => {
      if (isRetired.get(id) === undefined) return { runs: 0, records: 0, finished: true };
      if (removeSomeJobs.run({ id, limit }).changes >= limit) return { runs: 0, records: 0, finished: false };
      const records = removeSomeRecords.run({ id, limit }).changes;
      if (records >= limit) return { runs: 0, records, finished: false };
      const rest = removeRestRecords.run(id).changes;
      for (const statement of removeRunRows) statement.run(id);
      const runs = removeRuns.run(id).changes;
      removeProject.run(id);
      return { runs, records: records + rest, finished: true };
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

  // IMMEDIATE: the write lock first, waited for (busy timeout). A deferred transaction reads first, and
  // SQLite does not wait to turn a reading transaction into a writing one: while another process (the
  // server, the admin CLI) holds the write lock, or once it has committed since, it fails at once
  // (SQLITE_BUSY, SQLITE_BUSY_SNAPSHOT). Inside the writer thread's transaction this is a savepoint, as before.
  retire(owner: UserId, id: ProjectId, at: Date): Result<Project> {
    return run(() => this.retireOwned.immediate(owner, id, at));
  }

  retired(limit: number): Result<ReadonlyArray<ProjectId>> {
    return run(() => this.retiredIds.all(limit) as ProjectId[]);
  }

  purgeStep(id: ProjectId, limit: number): Result<PurgeStep> {
    return run(() => this.purge.immediate(id, limit));
  }
}
