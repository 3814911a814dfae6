// Projects and their runs (log streams, experiments, metrics testing). Owners only; others see 404.
import {
  type Principal,
  type Project,
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
}

export interface NewProject {
  readonly name: string;
  readonly type: ProjectType;
}

export class ProjectUseCases {
  /** Projects and runs never change once stored: every run-scoped request reads them, so they are remembered. */
  private readonly knownProjects = new ExpiringCache<Project>(Number.POSITIVE_INFINITY, 10_000);
  private readonly knownRuns = new ExpiringCache<Run>(Number.POSITIVE_INFINITY, 10_000);

  constructor(private readonly deps: ProjectDeps) {}

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

  list(principal: Principal, filter: ProjectFilter): UseCase<ReadonlyArray<Project>> {
    return this.deps.projects.listByOwner(principal.userId, filter);
  }

  get(principal: Principal, projectId: ProjectId): UseCase<Project> {
    return pipe(
      readThrough(this.knownProjects, projectId, () => this.deps.projects.findById(projectId)),
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
          readThrough(this.knownRuns, `${projectId}/${runId}`, () => this.deps.runs.findInProject(projectId, runId)),
          orNotFound(kind ?? 'run', runId),
        ),
      ),
      visibleOr(kind ?? 'run', runId, (r: Run) => kind === undefined || r.kind === kind),
    );
  }
}
