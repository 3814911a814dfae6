// Projects and their runs (log streams, experiments, metrics testing). Owners only; others see 404.
import {
  type Principal,
  type Project,
  type ProjectFilter,
  type ProjectId,
  type ProjectType,
  type PurgeStep,
  type Run,
  type RunId,
  type RunKind,
  asId,
  conflict,
  DEFAULT_EXPERIMENT_TASK_TYPE,
  isVisibleTo,
  mayChangeData,
  PURGE_STEP_RECORDS,
} from '@tracelight/domain';
import type { Clock, IdGenerator, ProjectRepository, RunRepository } from '@tracelight/ports';
import * as E from 'fp-ts/Either';
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

/** How a run is created (ProjectUseCases.createRun). */
export interface NewRunOptions {
  /** An experiment's task type (DEFAULT_EXPERIMENT_TASK_TYPE when left out); ignored for other runs. */
  readonly taskType?: number | null;
  /**
   * `answer`: a name the project already has for a run of that kind answers that run, instead of a
   * Conflict. Clients that look a run up by name and create it when they find none (the origin's SDKs,
   * several at once: three parallel first calls of the JS SDK in streaming mode) then all get the one run.
   */
  readonly existing?: 'conflict' | 'answer';
}

export interface NewProject {
  readonly name: string;
  readonly type: ProjectType;
}

/** How a purge goes (ProjectUseCases.purge). */
export interface PurgeOptions {
  /** Asked between steps: true stops the purge there (it goes on from there another time). */
  readonly stop?: () => boolean;
  /** Runs between steps, given how long the step took: a process sharing the database leaves others room to write. */
  readonly pause?: (stepMs: number) => Promise<void>;
  /** Told of each step once it is done, the one before a failure included (a metric counts them so). */
  readonly onStep?: (step: PurgeStep) => void;
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
   * Deletes the caller's project with everything under it (its runs, their records and settings): it is
   * retired at once, gone for every reader and writer, and what it held is purged after (`purge`, by
   * whoever runs it: the server's purge job, the admin CLI). Answers the project as it was. NotFound for
   * a project that is not the caller's, as for any other route. Forgotten here at once, whatever the
   * outcome: a project gone elsewhere is not remembered either.
   */
  delete(principal: Principal, projectId: ProjectId): UseCase<Project> {
    if (!mayChangeData(principal)) return readOnly();
    const retire = this.deps.projects.retire(principal.userId, projectId, this.deps.clock.now());
    return async () => {
      const outcome = await retire();
      this.knownProjects.deleteWhere((p) => p.id === projectId);
      this.knownRuns.deleteWhere((r) => r.projectId === projectId);
      return outcome;
    };
  }

  /** Retired projects still to be purged, longest waiting first. */
  retired(limit: number): UseCase<ReadonlyArray<ProjectId>> {
    return this.deps.projects.retired(limit);
  }

  /**
   * Purges a retired project, a step of PURGE_STEP_RECORDS records at a time, until nothing of it is
   * left or `stop` says so. Answers what it removed, and whether it finished; the steps it took stay
   * taken when one fails (`onStep` has been told of each).
   */
  purge(projectId: ProjectId, options: PurgeOptions = {}): UseCase<PurgeStep> {
    return async () => {
      let runs = 0;
      let records = 0;
      for (;;) {
        const began = this.deps.clock.elapsedMs();
        const step = await this.deps.projects.purgeStep(projectId, PURGE_STEP_RECORDS)();
        if (E.isLeft(step)) return step;
        options.onStep?.(step.right);
        runs += step.right.runs;
        records += step.right.records;
        if (step.right.finished || options.stop?.()) return E.right({ runs, records, finished: step.right.finished });
        await options.pause?.(this.deps.clock.elapsedMs() - began);
      }
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

  createRun(principal: Principal, projectId: ProjectId, kind: RunKind, name: string, options: NewRunOptions = {}): UseCase<Run> {
    if (!mayChangeData(principal)) return readOnly();
    const insert: UseCase<Run> = pipe(
      this.get(principal, projectId),
      flatMap(() => this.deps.runs.insert(this.newRun(principal, projectId, kind, name, options.taskType))),
    );
    if (options.existing !== 'answer') return insert;
    // The run of that name, if there is one (it may have been made a moment ago by a client racing this one).
    const stored: UseCase<Run> = pipe(
      this.deps.runs.listInProject(projectId, kind, name),
      flatMap((runs) => (runs[0] ? TE.right(runs[0]) : TE.left(conflict(`no ${kind} named ${name}`)))),
    );
    return pipe(
      insert,
      TE.orElse((e): UseCase<Run> => (e._tag === 'Conflict' ? pipe(stored, TE.mapLeft(() => e)) : TE.left(e))),
    );
  }

  /**
   * The run `createRun` would insert, not stored: for a write that stores it with what goes in it, in
   * one transaction (an OTLP export's log stream, LogRecordRepository.ingestIntoNewRun). The caller
   * has checked that the principal may change data and sees the project.
   */
  newRun(principal: Principal, projectId: ProjectId, kind: RunKind, name: string, taskType?: number | null): Run {
    const now = this.deps.clock.now();
    const task = kind === 'experiment' ? (taskType ?? DEFAULT_EXPERIMENT_TASK_TYPE) : null;
    return { id: asId<RunId>(this.deps.ids.next()), projectId, name, kind, createdBy: principal.userId, createdAt: now, updatedAt: now, taskType: task };
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
      this.getRunIn(principal, projectId, runId, kind),
      TE.map(({ run }) => run),
    );
  }

  /** getRun, with the project it is in (answers name it). */
  getRunIn(principal: Principal, projectId: ProjectId, runId: RunId, kind?: RunKind): UseCase<{ readonly project: Project; readonly run: Run }> {
    return pipe(
      this.get(principal, projectId),
      flatMap((project) =>
        pipe(
          readThrough(this.knownRuns, `${projectId}/${runId}`, this.deps.clock.elapsedMs(), () => this.deps.runs.findInProject(projectId, runId)),
          orNotFound(kind ?? 'run', runId),
          visibleOr(kind ?? 'run', runId, (r: Run) => kind === undefined || r.kind === kind),
          TE.map((run) => ({ project, run })),
        ),
      ),
    );
  }
}
