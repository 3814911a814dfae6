// Ingesting traces (all or nothing) and searching records by the column catalogue.
import {
  type DomainError,
  type LogRecord,
  type NodeInput,
  type Page,
  type PageRequest,
  type Principal,
  type ProjectId,
  type RecordFilter,
  type RecordScope,
  type RecordSort,
  type RunId,
  type RunKind,
  type OtelSpan,
  type Project,
  type Run,
  type ScoringPlan,
  asId,
  jobsFor,
  distinctOtelRecordIds,
  storableOtelText,
  invalid,
  isUuid,
  notFound,
  otelToRecords,
  flattenTraces,
  pageFromFound,
  presentColumns,
  presentColumnsOfAll,
  validateSearch,
  mayChangeData,
} from '@tracelight/domain';
import type { Clock, IdGenerator, LogRecordRepository } from '@tracelight/ports';
import * as E from 'fp-ts/Either';
import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import type { ColumnUseCases } from '../columns/columns.use-cases';
import type { ProjectUseCases } from '../projects-runs/project.use-cases';
import { type UseCase, flatMap, readOnly } from '../shared/te';

export interface TracingDeps {
  readonly projects: ProjectUseCases;
  readonly columns: ColumnUseCases;
  readonly records: LogRecordRepository;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  /** Most records one request may carry: bounds the synchronous work (and event-loop time) per request. */
  readonly maxRecordsPerRequest: number;
  /** A search page ends early once the records it holds reach this many bytes stored (RecordQuery.maxBytes). */
  readonly pageBytes: number;
  /** A search stops with TimedOut once it has read for this long (RecordQuery.maxMs). */
  readonly searchMs: number;
  /**
   * The run's scoring plan (ScorerUseCases.scoringPlan): records written are stored with the scoring
   * jobs it gives them. Absent: nothing is scored (an embedder without evaluation).
   */
  readonly scoring?: { scoringPlan(runId: RunId): UseCase<ScoringPlan> };
  /** Told when a write stored scoring jobs, so that idle workers of this process look at once. */
  readonly onJobsQueued?: () => void;
}

export interface RunScope {
  readonly projectId: ProjectId;
  readonly kind: RunKind;
  readonly runId: RunId;
}

export interface IngestTraces {
  readonly traces: ReadonlyArray<NodeInput>;
  readonly sessionId: string | null;
  readonly isComplete: boolean;
}

export interface IngestResult {
  readonly tracesCount: number;
  readonly spansCount: number;
  readonly traceIds: ReadonlyArray<string>;
}

export interface NewSession {
  readonly name: string;
  readonly externalId: string | null;
  readonly userMetadata: Readonly<Record<string, string>>;
}

export interface SearchRecords {
  readonly scope: RecordScope;
  readonly filters: ReadonlyArray<RecordFilter>;
  readonly sort: RecordSort | null;
  readonly page: PageRequest;
}

export class TracingUseCases {
  constructor(private readonly deps: TracingDeps) {}

  /**
   * The refusal of an ingest of `count` traces and spans, when that is more than a request may carry.
   * An edge that can count a request's records before decoding them asks this first, so that an
   * oversized batch is not built whole only to be refused.
   */
  refusesBatchOf(count: number): DomainError | undefined {
    const max = this.deps.maxRecordsPerRequest;
    return count > max ? invalid(['traces'], `this request carries ${count} traces and spans; send at most ${max} per request (split the batch)`) : undefined;
  }

  /** The refusal of an OpenTelemetry export of `count` spans, when that is more than a request may carry (as refusesBatchOf). */
  refusesExportOf(count: number): DomainError | undefined {
    const max = this.deps.maxRecordsPerRequest;
    return count > max ? invalid([], `this export carries ${count} spans; send at most ${max} per request`) : undefined;
  }

  ingestTraces(principal: Principal, scope: RunScope, input: IngestTraces): UseCase<IngestResult> {
    if (!mayChangeData(principal)) return readOnly();
    return pipe(
      this.deps.projects.getRun(principal, scope.projectId, scope.runId, scope.kind),
      flatMap(() =>
        TE.fromEither(
          flattenTraces(input.traces, {
            projectId: scope.projectId,
            runId: scope.runId,
            sessionId: input.sessionId,
            isComplete: input.isComplete,
            now: this.deps.clock.now(),
            newId: () => this.deps.ids.next(),
          }),
        ),
      ),
      flatMap((flat) => {
        const refusal = this.refusesBatchOf(flat.records.length);
        return refusal === undefined ? TE.right(flat) : TE.left(refusal);
      }),
      flatMap((flat) =>
        pipe(
          this.ingestScored(scope.runId, flat.records),
          TE.map(() => ({ tracesCount: flat.traceIds.length, spansCount: flat.spanCount, traceIds: flat.traceIds })),
        ),
      ),
    );
  }

  /** A session groups traces (a conversation, a job); traces name it by `session_id`. */
  createSession(principal: Principal, scope: RunScope, input: NewSession): UseCase<LogRecord> {
    if (!mayChangeData(principal)) return readOnly();
    return pipe(
      this.deps.projects.getRun(principal, scope.projectId, scope.runId, scope.kind),
      flatMap(() => {
        const now = this.deps.clock.now();
        const id = this.deps.ids.next();
        const session: LogRecord = {
          id,
          type: 'session',
          projectId: scope.projectId,
          runId: scope.runId,
          traceId: null,
          parentId: null,
          sessionId: id,
          name: input.name,
          input: '',
          output: null,
          createdAt: now,
          updatedAt: now,
          tags: [],
          userMetadata: input.userMetadata,
          statusCode: null,
          externalId: input.externalId,
          datasetInput: null,
          datasetOutput: null,
          datasetMetadata: {},
          metrics: {},
          isComplete: false,
          hasChildren: false,
          stepNumber: null,
          progressMessage: null,
          errorMessage: null,
          attributes: {},
        };
        return pipe(
          this.ingestScored(scope.runId, [session], presentColumns(session)),
          TE.map(() => session),
        );
      }),
    );
  }

  /**
   * OpenTelemetry spans for a project (named by id or name; it must exist) and a log stream (by
   * name; created on first use, as exporters cannot create one). A log stream created for an export
   * is stored with its records, in one write: a refused export (no room, say) creates none.
   */
  ingestOtel(principal: Principal, projectRef: string, logStreamName: string, spans: ReadonlyArray<OtelSpan>): UseCase<{ readonly spansCount: number }> {
    if (!mayChangeData(principal)) return readOnly();
    // Refused before the log stream is looked up: a refused export creates none.
    const refusal = this.refusesExportOf(spans.length);
    if (refusal !== undefined) return TE.left(refusal);
    return pipe(
      TE.fromEither(pipe(distinctOtelRecordIds(spans), E.flatMap(storableOtelText))),
      flatMap(() => this.findProject(principal, projectRef)),
      flatMap((project) => this.storeInLogStream(principal, project.id, logStreamName, spans)),
      TE.map(() => ({ spansCount: spans.length })),
    );
  }

  private findProject(principal: Principal, projectRef: string): UseCase<Project> {
    const projects = this.deps.projects;
    return isUuid(projectRef)
      ? projects.get(principal, asId<ProjectId>(projectRef))
      : pipe(
          projects.list(principal, { name: projectRef }),
          flatMap((found) => (found[0] ? TE.right(found[0]) : TE.left(notFound('project', projectRef)))),
        );
  }

  /** The spans as records of the project's log stream of that name, creating it with them when there is none. */
  private storeInLogStream(principal: Principal, projectId: ProjectId, logStreamName: string, spans: ReadonlyArray<OtelSpan>): UseCase<void> {
    const projects = this.deps.projects;
    const recordsOf = (run: Run) => otelToRecords(spans, { projectId: run.projectId, runId: run.id, now: this.deps.clock.now() });
    const intoExisting = (run: Run): UseCase<void> => this.ingestScored(run.id, recordsOf(run));
    return pipe(
      projects.listRuns(principal, projectId, 'log_stream', logStreamName),
      flatMap((runs) => {
        if (runs[0]) return intoExisting(runs[0]);
        const run = projects.newRun(principal, projectId, 'log_stream', logStreamName);
        const records = recordsOf(run);
        return pipe(
          this.deps.records.ingestIntoNewRun(run, records, presentColumnsOfAll(records)),
          // Two exporters racing to create the same log stream: the loser stores into the winner's.
          TE.orElse((e) =>
            e._tag === 'Conflict'
              ? pipe(
                  projects.listRuns(principal, projectId, 'log_stream', logStreamName),
                  flatMap((found) => (found[0] ? intoExisting(found[0]) : TE.left(e))),
                )
              : TE.left(e),
          ),
        );
      }),
    );
  }

  /**
   * Stores records of an existing run with the scoring jobs the run's plan gives them, in one write (an
   * outbox: LogRecordRepository.ingest, which also marks each record pending for its jobs' metrics). Every write path
   * that stores records of a run goes through here, so that what it stores is scored.
   */
  ingestScored(runId: RunId, records: ReadonlyArray<LogRecord>, present: ReadonlyArray<string> = presentColumnsOfAll(records)): UseCase<void> {
    const scoring = this.deps.scoring;
    if (scoring === undefined) return this.deps.records.ingest(runId, records, present);
    return pipe(
      scoring.scoringPlan(runId),
      flatMap((plan) => {
        const jobs = jobsFor(records, plan);
        if (jobs.length === 0) return this.deps.records.ingest(runId, records, present);
        return pipe(
          this.deps.records.ingest(runId, records, present, jobs),
          TE.map(() => this.deps.onJobsQueued?.()),
        );
      }),
    );
  }

  search(principal: Principal, scope: RunScope, query: SearchRecords): UseCase<Page<LogRecord>> {
    return pipe(
      this.deps.columns.availableColumns(principal, scope.projectId, scope.kind, scope.runId),
      flatMap((catalogue) => TE.fromEither(validateSearch(catalogue, query.filters, query.sort))),
      flatMap(() =>
        this.deps.records.search({ projectId: scope.projectId, runId: scope.runId, ...query, maxBytes: this.deps.pageBytes, maxMs: this.deps.searchMs }),
      ),
      // A page may end before `limit` (its byte budget): the next one starts after what it holds.
      TE.map((found) => pageFromFound(found, query.page)),
    );
  }
}
