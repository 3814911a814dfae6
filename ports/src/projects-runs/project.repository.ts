import type { Project, ProjectFilter, ProjectId, PurgeStep, UserId } from '@tracelight/domain';
import type { Option } from 'fp-ts/Option';
import type { Result } from '../system/result';

/**
 * Projects. Deleting one is two things: `retire`, at once, after which the project is gone for every
 * reader and writer; then `purgeStep` until finished, which removes what it held a step at a time (a
 * project can hold millions of records: seconds to minutes of deleting, which no request should wait
 * for). A retired project stays listed by `retired` until purged, so a purge cut short is taken up again.
 */
export interface ProjectRepository {
  /** Conflict when the owner already has a project of that name. */
  insert(project: Project): Result<Project>;
  /** None for a retired project. */
  findById(id: ProjectId): Result<Option<Project>>;
  /** The owner's projects, oldest first, narrowed by the filter; never a retired one. */
  listByOwner(owner: UserId, filter: ProjectFilter): Result<ReadonlyArray<Project>>;
  /**
   * Retires the owner's project, in one short write: from then on no read finds it or its runs, its
   * name is free, and a write under it or one of its runs (`runs.insert`, `logRecords.ingest`,
   * `insights.replace`, `runScorers.replace`) is NotFound and leaves nothing behind, even one already
   * under way. Answers the project as it was. NotFound when the owner has no such project (retired
   * already included).
   */
  retire(owner: UserId, id: ProjectId, at: Date): Result<Project>;
  /** Retired projects not yet purged, longest retired first, at most `limit`. */
  retired(limit: number): Result<ReadonlyArray<ProjectId>>;
  /**
   * One step of purging a retired project: removes at most `limit` of its records (traces, spans,
   * sessions), and once none is left the rest (its runs, their insights, scorer settings and column
   * presence, and the project), each step a write of its own. A project that is not retired (or no
   * longer exists) is left as it is: finished, nothing removed.
   */
  purgeStep(id: ProjectId, limit: number): Result<PurgeStep>;
}
export const ProjectRepository = Symbol.for('tracelight.ProjectRepository');
