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
  asId,
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

/** Where an OpenTelemetry export is stored. */
export interface OtelDestination {
  /** The project, by name or id. */
  readonly project: string;
  /**
   * Whether the caller's project of that name is created when there is none: for a project named by
   * an exporter's own configuration (Phoenix's project name, Langfuse's public key), which has no step
   * that creates one here. A project named by the `project` header must exist.
   */
  readonly createsProject: boolean;
  /** The log stream, by name: created on first use. */
  readonly logStream: string;
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
          this.deps.records.ingest(scope.runId, flat.records, presentColumnsOfAll(flat.records)),
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
          this.deps.records.ingest(scope.runId, [session], presentColumns(session)),
          TE.map(() => session),
        );
      }),
    );
  }

  /**
   * OpenTelemetry spans for a project (named by id or name; it must exist, unless the destination says
   * it is created on first use) and a log stream (by name; created on first use, as exporters cannot
   * create one). A log stream created for an export is stored with its records, in one write: a
   * refused export (no room, say) creates none.
   */
  ingestOtel(principal: Principal, destination: OtelDestination, spans: ReadonlyArray<OtelSpan>): UseCase<{ readonly spansCount: number }> {
    if (!mayChangeData(principal)) return readOnly();
    // Refused before the log stream is looked up: a refused export creates none.
    const refusal = this.refusesExportOf(spans.length);
    if (refusal !== undefined) return TE.left(refusal);
    const project = destination.createsProject ? this.projectCreatedOnFirstUse(principal, destination.project) : this.findProject(principal, destination.project);
    return pipe(
      TE.fromEither(pipe(distinctOtelRecordIds(spans), E.flatMap(storableOtelText))),
      flatMap(() => project),
      flatMap((found) => this.storeInLogStream(principal, found.id, destination.logStream, spans)),
      TE.map(() => ({ spansCount: spans.length })),
    );
  }

  /**
   * The caller's project of that name, created when there is none (a project named by id must exist).
   * Two exports racing to create it: the loser finds the winner's.
   */
  private projectCreatedOnFirstUse(principal: Principal, projectRef: string): UseCase<Project> {
    if (isUuid(projectRef)) return this.findProject(principal, projectRef);
    const projects = this.deps.projects;
    const named = () => projects.list(principal, { name: projectRef });
    return pipe(
      named(),
      flatMap((found) =>
        found[0]
          ? TE.right(found[0])
          : pipe(
              projects.create(principal, { name: projectRef, type: 'gen_ai' }),
              TE.orElse((e) =>
                e._tag === 'Conflict' ? pipe(named(), flatMap((again) => (again[0] ? TE.right(again[0]) : TE.left(e)))) : TE.left(e),
              ),
            ),
      ),
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
    const intoExisting = (run: Run): UseCase<void> => {
      const records = recordsOf(run);
      return this.deps.records.ingest(run.id, records, presentColumnsOfAll(records));
    };
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
