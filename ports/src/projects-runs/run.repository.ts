import type { ProjectId, Run, RunId, RunKind } from '@tracelight/domain';
import type { Option } from 'fp-ts/Option';
import type { Result } from '../system/result';

export interface RunRepository {
  /** Conflict when the project already has a run of that kind and name; NotFound when the project does not exist (any more). */
  insert(run: Run): Result<Run>;
  /**
   * The run, if it is the project's. Reads look at runs alone: the runs of a deleted project (retired,
   * ProjectRepository.retire) are found until it is purged, so a caller checks the project first, as
   * every use case does (ProjectUseCases.get): a project's runs are reached through the project.
   */
  findInProject(projectId: ProjectId, runId: RunId): Result<Option<Run>>;
  /** The project's runs of one kind, oldest first; optionally only the one with that name. As findInProject, whatever the project's state. */
  listInProject(projectId: ProjectId, kind: RunKind, name?: string): Result<ReadonlyArray<Run>>;
}
export const RunRepository = Symbol.for('tracelight.RunRepository');
