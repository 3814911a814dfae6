import type { ProjectId, Run, RunId, RunKind } from '@tracelight/domain';
import type { Option } from 'fp-ts/Option';
import type { Result } from '../system/result';

export interface RunRepository {
  /** Conflict when the project already has a run of that kind and name; NotFound when the project does not exist (any more). */
  insert(run: Run): Result<Run>;
  findInProject(projectId: ProjectId, runId: RunId): Result<Option<Run>>;
  /** The project's runs of one kind, oldest first; optionally only the one with that name. */
  listInProject(projectId: ProjectId, kind: RunKind, name?: string): Result<ReadonlyArray<Run>>;
}
export const RunRepository = Symbol.for('tracelight.RunRepository');
