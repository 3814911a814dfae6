import { type ProjectId, type Run, type RunId, type RunKind, notFound } from '@tracelight/domain';
import type { Result, RunRepository } from '@tracelight/ports';
import * as O from 'fp-ts/Option';
import { inject, injectable } from 'inversify';
import { run } from '../shared/run';
import { SqliteDatabase, SqliteDatabaseToken } from '../shared/sqlite-database';
import { type InsertRun, prepareInsertRun, runNameTaken } from './insert-run';
import { runFromRow } from './project-run.mapper';

@injectable()
export class SqliteRunRepository implements RunRepository {
  private readonly insertRun: InsertRun;
  private readonly inProject;
  private readonly listStmt;

  constructor(@inject(SqliteDatabaseToken) { db }: SqliteDatabase) {
    this.insertRun = prepareInsertRun(db);
    this.inProject = db.prepare('SELECT * FROM runs WHERE project_id = ? AND id = ?');
    this.listStmt = db.prepare(
      'SELECT * FROM runs WHERE project_id = @project AND kind = @kind AND (@name IS NULL OR name = @name) ORDER BY created_at, id',
    );
  }

  insert(r: Run): Result<Run> {
    return run(() => {
      this.insertRun(r);
      return r;
    }, runNameTaken(r), notFound('project', r.projectId));
  }

  findInProject(projectId: ProjectId, runId: RunId): Result<O.Option<Run>> {
    return run(() => O.map(runFromRow)(O.fromNullable(this.inProject.get(projectId, runId))));
  }

  listInProject(projectId: ProjectId, kind: RunKind, name?: string): Result<ReadonlyArray<Run>> {
    return run(() => this.listStmt.all({ project: projectId, kind, name: name ?? null }).map(runFromRow));
  }
}
