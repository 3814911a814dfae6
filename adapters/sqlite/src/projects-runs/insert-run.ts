// Inserting a run: on its own (SqliteRunRepository.insert) or in the transaction of the ingest that
// creates it (SqliteLogRecordRepository.ingestIntoNewRun), by the same statement and checks.
import type { Run } from '@tracelight/domain';
import type Database from 'better-sqlite3';
import { underLiveParent } from './live-parent';
import { runToRow } from './project-run.mapper';

/** Inserts a run under its project, which must be live (else Abort with NotFound); a unique violation when the name is taken. */
export type InsertRun = (run: Run) => void;

export const prepareInsertRun = (db: Database.Database): InsertRun => {
  const underLiveProject = underLiveParent(db, 'project');
  const insert = db.prepare(
    `INSERT INTO runs (id, project_id, name, kind, created_by, created_at, updated_at, task_type)
     VALUES (@id, @project_id, @name, @kind, @created_by, @created_at, @updated_at, @task_type)`,
  );
  return (run) => void underLiveProject(run.projectId, () => insert.run(runToRow(run)));
};

/** The Conflict's message when the project already has a run of that kind and name. */
export const runNameTaken = (run: Run): string => `A ${run.kind.replace('_', ' ')} named ${run.name} already exists in this project`;
