import type { Project, ProjectDeletion, ProjectFilter, ProjectId, UserId } from '@tracelight/domain';
import type { Option } from 'fp-ts/Option';
import type { Result } from '../system/result';

export interface ProjectRepository {
  /** Conflict when the owner already has a project of that name. */
  insert(project: Project): Result<Project>;
  findById(id: ProjectId): Result<Option<Project>>;
  /** The owner's projects, oldest first, narrowed by the filter. */
  listByOwner(owner: UserId, filter: ProjectFilter): Result<ReadonlyArray<Project>>;
  /**
   * Removes the owner's project and everything keyed by it or its runs: the runs, their records
   * (traces, spans, sessions), column presence, insights and scorer settings. NotFound when the owner
   * has no project of that id. Once it has answered, a write under the project or one of its runs
   * (`runs.insert`, `logRecords.ingest`, `insights.replace`, `runScorers.replace`) is NotFound and
   * leaves nothing behind, even one that was already under way: no orphan outlives a deletion.
   */
  delete(owner: UserId, id: ProjectId): Result<ProjectDeletion>;
}
export const ProjectRepository = Symbol.for('tracelight.ProjectRepository');
