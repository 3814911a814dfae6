// Projects and their runs (log streams, experiments, metrics testing). Owners only; others see 404.
import {
  type Principal,
  type Project,
  type ProjectDeletion,
  type ProjectFilter,
  type ProjectId,
  type ProjectType,
  type Run,
  type RunId,
  type RunKind,
  asId,
  isVisibleTo,
  mayChangeData,
} from '@tracelight/domain';
import type { Clock, IdGenerator, ProjectRepository, RunRepository } from '@tracelight/ports';
import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import { ExpiringCache } from '../shared/expiring-cache';
import { type UseCase, orNotFound, readThrough, visibleOr, flatMap, readOnly } from '../shared/te';

export interface ProjectDeps {
  readonly projects: ProjectRepository;
  readonly runs: RunRepository;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  /**
   * How long a project or run once read is remembered (0, the default: not at all). A project deleted
   * here is forgotten at once; one deleted by another process (the admin CLI, another server, an
   * offload worker) may still be read here for this long. Writes under it are refused by storage
   * whatever this process remembers.
   */
  readonly knownForMs?: number;
}

export interface NewProject {
  readonly name: string;
  readonly type: ProjectType;
}

export class ProjectUseCases {
  /**
   * Projects and runs never change once stored, and every run-scoped request reads them, so they are
   * remembered; for a while only, as they can be deleted (see `knownForMs`).
   */
  private readonly knownProjects: ExpiringCache<Project>;
  private readonly knownRuns: ExpiringCache<Run>;

  constructor(private readonly deps: ProjectDeps) {
    this.knownProjects = new ExpiringCache<Project>(deps.knownForMs ?? 0, 10_000);
    this.knownRuns = new ExpiringCache<Run>(deps.knownForMs ?? 0, 10_000);
  }

  create(principal: Principal, input: NewProject): UseCase<Project> {
    if (!mayChangeData(principal)) return readOnly();
    const now = this.deps.clock.now();
    return this.deps.projects.insert({
      id: asId<ProjectId>(this.deps.ids.next()),
      name: input.name,
      type: input.type,
      createdBy: principal.userId,
      createdAt: now,
      updatedAt: now,
    });
  }

  /**
   * Deletes the caller's project with everything under it (its runs, their records and settings).
   * NotFound for a project that is not the caller's, as for any other route. Forgotten here at once,
   * whatever the outcome: a project gone elsewhere is not remembered either.
   */
  delete(principal: Principal, projectId: ProjectId): UseCase<ProjectDeletion> {
    if (!mayChangeData(principal)) return readOnly();
    const remove = this.deps.projects.delete(principal.userId, projectId);
    return async () => {
      const outcome = await remove();
      this.knownProjects.deleteWhere((p) => p.id === projectId);
      this.knownRuns.deleteWhere((r) => r.projectId === projectId);
      return outcome;
    };
  }

  list(principal: Principal, filter: ProjectFilter): UseCase<ReadonlyArray<Project>> {
    return this.deps.projects.listByOwner(principal.userId, filter);
  }

  get(principal: Principal, projectId: ProjectId): UseCase<Project> {
    return pipe(
      readThrough(this.knownProjects, projectId, this.deps.clock.elapsedMs(), () => this.deps.projects.findById(projectId)),
      orNotFound('project', projectId),
      visibleOr('project', projectId, (p: Project) => isVisibleTo(p, principal.userId)),
    );
  }

  createRun(principal: Principal, projectId: ProjectId, kind: RunKind, name: string): UseCase<Run> {
    if (!mayChangeData(principal)) return readOnly();
    return pipe(
      this.get(principal, projectId),
      flatMap(() => {
        const now = this.deps.clock.now();
        return this.deps.runs.insert({
          id: asId<RunId>(this.deps.ids.next()),
          projectId,
          name,
          kind,
          createdBy: principal.userId,
          createdAt: now,
          updatedAt: now,
        });
      }),
    );
  }

  listRuns(principal: Principal, projectId: ProjectId, kind: RunKind, name?: string): UseCase<ReadonlyArray<Run>> {
    return pipe(
      this.get(principal, projectId),
      flatMap(() => this.deps.runs.listInProject(projectId, kind, name)),
    );
  }

  /** The run, when it is in a project of the caller's; of the given kind when one is asked for. */
  getRun(principal: Principal, projectId: ProjectId, runId: RunId, kind?: RunKind): UseCase<Run> {
    return pipe(
      this.get(principal, projectId),
      flatMap(() =>
        pipe(
          readThrough(this.knownRuns, `${projectId}/${runId}`, this.deps.clock.elapsedMs(), () => this.deps.runs.findInProject(projectId, runId)),
          orNotFound(kind ?? 'run', runId),
        ),
      ),
      visibleOr(kind ?? 'run', runId, (r: Run) => kind === undefined || r.kind === kind),
    );
  }
}
