// Projects and their runs (log streams and experiments).
import { PROJECT_TYPES } from '@tracelight/domain';
import * as t from 'io-ts';
import { Bool, DateTimeOut, Enum, Int, IntegerOut, Name, NonEmptyString, Nullable, Obj, StrQuery, UuidOut, UuidString } from '../shared/primitives.codec';

export const ProjectType = Enum(PROJECT_TYPES, 'ProjectType');
/** `POST /v2/projects`: `type` defaults to `gen_ai`. */
export const ProjectCreateRequest = Obj(
  'ProjectCreateRequest',
  { name: Name },
  { type: ProjectType, create_example_templates: Bool },
  { type: 'gen_ai' as const },
);
export type ProjectCreateRequest = t.TypeOf<typeof ProjectCreateRequest>;
/** `GET /v2/projects?project_name=…&type=…`: both optional filters. */
export const ProjectsQuery = t.partial({ project_name: StrQuery, type: ProjectType }, 'ProjectsQuery');
export type ProjectsQuery = t.TypeOf<typeof ProjectsQuery>;
/** Path of `/v2/projects/{project_id}…`. */
export const ProjectPath = t.type({ project_id: UuidString }, 'ProjectPath');
/**
 * The path of spec operation 4, whose `project_id` the spec types as a plain string: any string is
 * taken, and one that names no project of the caller's (a UUID or not) is 404.
 */
export const ColumnsProjectPath = t.type({ project_id: NonEmptyString }, 'ColumnsProjectPath');
/** `GET /projects/all`: the SDKs' list of projects, by `type` or `project_type` (the JS SDK's name for it). */
export const ProjectsAllQuery = t.partial({ type: ProjectType, project_type: ProjectType }, 'ProjectsAllQuery');
/** The creator of a project, as the origin's UserInfo: Tracelight keeps no names (null). */
export const UserInfo = t.type({ id: UuidOut, email: t.string, first_name: t.union([t.string, t.null]), last_name: t.union([t.string, t.null]) }, 'UserInfo');
/**
 * A project, with what the origin's Python SDK reads of it: `created_by_user`, and `runs`, always an
 * empty list (the origin's RunDB carries organisation and dataset members Tracelight has no counterpart
 * for, and a run missing one would fail the SDK's parse; the log streams and experiments are listed
 * under the project).
 */
export const ProjectResponse = t.type(
  {
    id: UuidOut,
    name: t.string,
    type: ProjectType,
    created_by: UuidOut,
    created_by_user: UserInfo,
    runs: t.array(t.unknown),
    created_at: DateTimeOut,
    updated_at: DateTimeOut,
  },
  'ProjectResponse',
);

/** `POST /v2/projects/{project_id}/log_streams`. */
export const RunCreateRequest = Obj('RunCreateRequest', { name: Name });
export type RunCreateRequest = t.TypeOf<typeof RunCreateRequest>;
/** `POST /v2/projects/{project_id}/experiments`: `task_type` (the origin's TaskType number) kept as sent, 16 when left out. */
export const ExperimentCreateRequest = Obj('ExperimentCreateRequest', { name: Name }, { task_type: Nullable(Int({ min: 0 })) });
const runFields = { id: UuidOut, name: t.string, project_id: UuidOut, created_by: UuidOut, created_at: DateTimeOut, updated_at: DateTimeOut };
export const RunResponse = t.type(runFields, 'RunResponse');
export const LogStreamResponse = t.type(runFields, 'LogStreamResponse');
export const ExperimentResponse = t.type({ ...runFields, task_type: IntegerOut }, 'ExperimentResponse');
