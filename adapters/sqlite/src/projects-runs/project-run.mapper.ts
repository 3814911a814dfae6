// projects and runs rows ⇄ domain.
import { type Project, type ProjectId, type Run, type RunId, type UserId, PROJECT_TYPES, RUN_KINDS } from '@tracelight/domain';
import * as t from 'io-ts';
import { IdString, MsDate, decodeOrThrow, nullable, row } from '../shared/row-codecs';

const oneOf = <T extends string>(values: ReadonlyArray<T>) =>
  t.keyof(Object.fromEntries(values.map((v) => [v, null])) as Record<T, null>);

const ProjectRow = row({
  id: IdString<ProjectId>(),
  name: t.string,
  type: oneOf(PROJECT_TYPES),
  created_by: IdString<UserId>(),
  created_at: MsDate,
  updated_at: MsDate,
});

export const projectFromRow = (stored: unknown): Project => {
  const r = decodeOrThrow(ProjectRow, stored);
  return { id: r.id, name: r.name, type: r.type, createdBy: r.created_by, createdAt: r.created_at, updatedAt: r.updated_at };
};

export const projectToRow = (p: Project) => ({
  id: p.id,
  name: p.name,
  type: p.type,
  created_by: p.createdBy,
  created_at: p.createdAt.getTime(),
  updated_at: p.updatedAt.getTime(),
});

const RunRow = row({
  id: IdString<RunId>(),
  project_id: IdString<ProjectId>(),
  name: t.string,
  kind: oneOf(RUN_KINDS),
  created_by: IdString<UserId>(),
  created_at: MsDate,
  updated_at: MsDate,
  task_type: nullable(t.number),
});

export const runFromRow = (stored: unknown): Run => {
  const r = decodeOrThrow(RunRow, stored);
  return {
    id: r.id,
    projectId: r.project_id,
    name: r.name,
    kind: r.kind,
    createdBy: r.created_by,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    taskType: r.task_type,
  };
};

export const runToRow = (r: Run) => ({
  id: r.id,
  project_id: r.projectId,
  name: r.name,
  kind: r.kind,
  created_by: r.createdBy,
  created_at: r.createdAt.getTime(),
  updated_at: r.updatedAt.getTime(),
  task_type: r.taskType,
});
