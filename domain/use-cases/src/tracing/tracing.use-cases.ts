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
  type PatchTarget,
  type RecordPatch,
  type SpanType,
  type Project,
  type Run,
  type ScoringPlan,
  type NewScoringJob,
  asId,
  isReadyToScore,
  jobsFor,
  distinctOtelRecordIds,
  storableOtelText,
  invalid,
  isUuid,
  rekeyedId,
  notFound,
  otelToRecords,
  flattenSpans,
  appendClash,
  flattenTraces,
  pageFromFound,
  presentColumns,
  presentColumnsOfAll,
  validateSearch,
  mayChangeData,
} from '@tracelight/domain';
import type { Clock, IdGenerator, LogRecordRepository, RecordPosition } from '@tracelight/ports';
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
  /**
   * The traces go into the run's session with this external id, made now when the run has none
   * (findOrCreateSession): the origin's Python SDK 2.x names a session so. Read only without `sessionId`.
   */
  readonly sessionExternalId?: string | null;
  readonly isComplete: boolean;
}

export interface IngestResult {
  readonly tracesCount: number;
  readonly spansCount: number;
  readonly traceIds: ReadonlyArray<string>;
  /** The session the traces went into as a whole (sent, or found by its external id); null for none. */
  readonly sessionId: string | null;
  /** The project's name (the SDKs' answer carries it). */
  readonly projectName: string;
}

/** Spans sent on their own, under a trace (immediate mode). */
export interface AppendSpans {
  readonly spans: ReadonlyArray<NodeInput & { readonly type: SpanType }>;
  readonly traceId: string;
  readonly parentId: string;
  readonly isComplete: boolean;
}

/** What an immediate-mode write answers besides its records: the project's name, and the trace's session. */
export interface ImmediateResult {
  readonly projectName: string;
  readonly sessionId: string | null;
  readonly recordsCount: number;
}

/** An export's records, a page at a time: `next` answers the next page, null after the last. */
export interface RecordCursor {
  /** The columns asked for (ExportRecords.columnIds), or null for all. */
  readonly columnIds: ReadonlyArray<string> | null;
  /** The ids of the run's catalogue (standard columns, then metrics), in its order. */
  readonly catalogue: ReadonlyArray<string>;
  next(): UseCase<ReadonlyArray<LogRecord> | null>;
}

export interface ExportRecords {
  readonly scope: RecordScope;
  readonly filters: ReadonlyArray<RecordFilter>;
  readonly sort: RecordSort | null;
  /** The columns each record is exported with (ids of the run's catalogue); null: all of them. */
  readonly columnIds: ReadonlyArray<string> | null;
}

/** The traces and their spans at any depth. */
const nodesIn = (nodes: ReadonlyArray<NodeInput>): number => nodes.reduce((n, node) => n + 1 + nodesIn(node.spans ?? []), 0);

/** Records an export reads a page at a time: bounded by count and by TracingDeps.pageBytes. */
export const EXPORT_PAGE_RECORDS = 1000;

/**
 * The session id an ingest's records carry while the session of its `session_external_id` is still to be
 * found or made: no UUID, so no client can send it as a session id of its own.
 */
const SESSION_TO_COME = 'session of session_external_id';

/** The records, those that carry SESSION_TO_COME put in `sessionId` (a trace that named its own session keeps it). */
const inSession = (records: ReadonlyArray<LogRecord>, sessionId: string): ReadonlyArray<LogRecord> =>
  records.map((r) => (r.sessionId === SESSION_TO_COME ? { ...r, sessionId } : r));

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
   * The refusal of an ingest of `count` traces and spans, when that is more than a request may carry,
   * placed at the request's list of them (`traces` of a batch, `spans` of immediate mode). An edge that
   * can count a request's records before decoding them asks this first, so that an oversized batch is
   * not built whole only to be refused.
   */
  refusesBatchOf(count: number, list: 'traces' | 'spans' = 'traces'): DomainError | undefined {
    const max = this.deps.maxRecordsPerRequest;
    const what = list === 'traces' ? 'traces and spans' : 'spans';
    return count > max ? invalid([list], `this request carries ${count} ${what}; send at most ${max} per request (split the batch)`) : undefined;
  }

  /** The refusal of an OpenTelemetry export of `count` spans, when that is more than a request may carry (as refusesBatchOf). */
  refusesExportOf(count: number): DomainError | undefined {
    const max = this.deps.maxRecordsPerRequest;
    return count > max ? invalid([], `this export carries ${count} spans; send at most ${max} per request`) : undefined;
  }

  ingestTraces(principal: Principal, scope: RunScope, input: IngestTraces): UseCase<IngestResult> {
    if (!mayChangeData(principal)) return readOnly();
    const externalId = input.sessionId === null ? (input.sessionExternalId ?? null) : null;
    let projectName = '';
    let named = input.sessionId;
    return pipe(
      this.deps.projects.getRunIn(principal, scope.projectId, scope.runId, scope.kind),
      flatMap(({ project }) => {
        projectName = project.name;
        const refusal = this.refusesBatchOf(nodesIn(input.traces));
        return refusal === undefined ? TE.right(undefined) : TE.left(refusal);
      }),
      flatMap(() => this.sessionAsStored(scope.runId, input.sessionId)),
      // Flattened (and so every refusal of the batch decided) before a session is made for its external
      // id: a refused batch makes none. Its records carry a stand-in for that session until it is known.
      flatMap((asStored) => {
        named = asStored;
        return TE.fromEither(
          flattenTraces(input.traces, {
            projectId: scope.projectId,
            runId: scope.runId,
            sessionId: externalId === null ? asStored : SESSION_TO_COME,
            isComplete: input.isComplete,
            now: this.deps.clock.now(),
            newId: () => this.deps.ids.next(),
          }),
        );
      }),
      flatMap((flat) => {
        const refusal = this.refusesBatchOf(flat.records.length);
        return refusal === undefined ? TE.right(flat) : TE.left(refusal);
      }),
      flatMap((flat) =>
        externalId === null
          ? TE.right({ flat, sessionId: named })
          : pipe(
              this.deps.records.findOrCreateSession(scope.runId, this.newSession(scope, { name: '', externalId, userMetadata: {} })),
              TE.map((session) => ({ flat: { ...flat, records: inSession(flat.records, session.id) }, sessionId: session.id })),
            ),
      ),
      flatMap(({ flat, sessionId }) =>
        pipe(
          this.ingestScored(scope.runId, flat.records),
          TE.map(() => ({ tracesCount: flat.traceIds.length, spansCount: flat.spanCount, traceIds: flat.traceIds, sessionId, projectName })),
        ),
      ),
    );
  }

  /**
   * The session id a batch names, as stored: a version-7 id held from before the upgrade names the
   * session re-keyed to its version-4 form, unless the run holds a session under the version-7 id itself
   * (one the re-key migration left, its version-4 form being a record's). Anything else, as sent: the id
   * is the client's to give, stored or not. Read only for a version-7 id.
   */
  private sessionAsStored(runId: RunId, sessionId: string | null): UseCase<string | null> {
    if (sessionId === null || rekeyedId(sessionId) === sessionId) return TE.right(sessionId);
    const rekeyed = rekeyedId(sessionId);
    return pipe(
      this.deps.records.findByIds(runId, [sessionId, rekeyed]),
      TE.map((found) => {
        const isSession = (id: string) => found.some((r) => r.id === id && r.type === 'session');
        return isSession(sessionId) || !isSession(rekeyed) ? sessionId : rekeyed;
      }),
    );
  }

  /**
   * Spans sent on their own under a trace (immediate mode: the SDKs' `POST …/spans`), with the same
   * rules as a batch: every span stored or none, ids kept, a span under a stored session's id refused.
   * The trace and the parent need not be stored yet (the SDKs send them concurrently): whichever
   * arrives second is linked to the first. What is stored must fit (appendClash: the trace a trace, the
   * parent of that trace, no span under a stored trace's id), or nothing is. The spans take their
   * trace's session when it is stored.
   */
  appendSpans(principal: Principal, scope: RunScope, input: AppendSpans): UseCase<ImmediateResult> {
    if (!mayChangeData(principal)) return readOnly();
    const place = { traceId: input.traceId.toLowerCase(), parentId: input.parentId.toLowerCase() };
    return pipe(
      this.deps.projects.getRunIn(principal, scope.projectId, scope.runId, scope.kind),
      flatMap(({ project }) =>
        pipe(
          TE.fromEither(
            flattenSpans(input.spans, place, {
              projectId: scope.projectId,
              runId: scope.runId,
              sessionId: null,
              isComplete: input.isComplete,
              now: this.deps.clock.now(),
              newId: () => this.deps.ids.next(),
            }),
          ),
          flatMap((records) => {
            const refusal = this.refusesBatchOf(records.length, 'spans');
            return refusal === undefined ? TE.right(records) : TE.left(refusal);
          }),
          // One read of what the run holds under every id the request names. Checked before the write,
          // not in it: a trace stored in between under a span's id is replaced as a batch would replace it.
          flatMap((records) =>
            pipe(
              this.deps.records.findByIds(scope.runId, [...new Set([place.traceId, place.parentId, ...records.map((r) => r.id)])]),
              flatMap((stored) => {
                const clash = appendClash(stored, place, records);
                if (clash !== undefined) return TE.left(clash);
                const trace = stored.find((r) => r.id === place.traceId);
                const sessionId = trace?.sessionId ?? null;
                return TE.right({ records: sessionId === null ? records : records.map((r) => ({ ...r, sessionId })), sessionId });
              }),
            ),
          ),
          flatMap(({ records, sessionId }) =>
            pipe(
              this.ingestScored(scope.runId, records),
              TE.map(() => ({ projectName: project.name, sessionId, recordsCount: records.length })),
            ),
          ),
        ),
      ),
    );
  }

  /**
   * A partial update of a stored trace or span (immediate mode: the SDKs' `PATCH …/traces/{id}` and
   * `…/spans/{id}`): read, changed and written back in one transaction, with the scoring jobs the run's
   * plan gives the record, which storage keeps when the PATCH completes it or changes what its scorers
   * read (scoringOnWrite). NotFound for an id that is not a record of that kind in the run.
   */
  updateRecord(principal: Principal, scope: RunScope, target: PatchTarget, id: string, patch: RecordPatch): UseCase<ImmediateResult & { readonly record: LogRecord }> {
    if (!mayChangeData(principal)) return readOnly();
    const recordId = id.toLowerCase();
    return pipe(
      this.deps.projects.getRunIn(principal, scope.projectId, scope.runId, scope.kind),
      flatMap(({ project }) =>
        pipe(
          this.jobsOfStored(scope.runId, recordId),
          flatMap((jobs) =>
            pipe(
              this.deps.records.update(scope.runId, recordId, target, patch, this.deps.clock.now(), jobs),
              TE.map((record) => {
                // Whether storage kept them or not: a look by idle workers that finds nothing costs little.
                if (jobs.length > 0) this.deps.onJobsQueued?.();
                return { record, projectName: project.name, sessionId: record.sessionId, recordsCount: 1 };
              }),
            ),
          ),
        ),
      ),
    );
  }

  /**
   * The jobs the run's plan gives a stored record (none without scoring, or when there is no such
   * record: the update answers NotFound). What a PATCH changes (its input, output, completeness) is not
   * what chooses them (type, id, trace), so they are chosen from the record as read before the update.
   */
  private jobsOfStored(runId: RunId, id: string): UseCase<ReadonlyArray<NewScoringJob>> {
    const scoring = this.deps.scoring;
    if (scoring === undefined) return TE.right([]);
    return pipe(
      scoring.scoringPlan(runId),
      flatMap((plan) =>
        plan.length === 0
          ? TE.right([])
          : pipe(
              this.deps.records.findByIds(runId, [id]),
              TE.map((found) => jobsFor(found, plan)),
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
        const session = this.newSession(scope, input);
        return pipe(
          this.ingestScored(scope.runId, [session], presentColumns(session)),
          TE.map(() => session),
        );
      }),
    );
  }

  private newSession(scope: RunScope, input: NewSession): LogRecord {
    const now = this.deps.clock.now();
    const id = this.deps.ids.next();
    return {
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
      createdAtMicros: 0,
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
    // A project id from before the upgrade (an exporter's `project` header) is read as its re-keyed form.
    return isUuid(projectRef)
      ? projects.get(principal, asId<ProjectId>(rekeyedId(projectRef)))
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
   * The records of a run that pass the filters, in created_at order (the default, newest first; or
   * oldest first), read a page at a time as the caller pulls them (the SDKs' `export_records`): memory
   * stays one page whatever the run's size, and each page starts after the last one read (keyset), so
   * each costs what it reads and records stored meanwhile shift nothing. Another sort is refused (422):
   * paged by offset it read the run again for each page (quadratic, cut off by the search budget on a
   * large run) and skipped or repeated records when others were stored meanwhile.
   * The filters, sort and columns are checked against the run's catalogue before anything is read.
   */
  exportRecords(principal: Principal, scope: RunScope, query: ExportRecords): UseCase<RecordCursor> {
    const sort = query.sort ?? { columnId: 'created_at', ascending: false };
    return pipe(
      this.deps.columns.availableColumns(principal, scope.projectId, scope.kind, scope.runId),
      flatMap((catalogue) =>
        TE.fromEither(
          pipe(
            validateSearch(catalogue, query.filters, sort),
            E.flatMap(() =>
              sort.columnId === 'created_at'
                ? E.right(undefined)
                : E.left(invalid(['sort', 'column_id'], `an export is sorted by created_at only (ascending or not), not by ${sort.columnId}: sort what it gives, or search page by page`, sort.columnId)),
            ),
            E.flatMap(() => {
              const known = new Set(catalogue.map((c) => c.id));
              const unknown = (query.columnIds ?? []).findIndex((c) => !known.has(c));
              return unknown < 0 ? E.right(catalogue.map((c) => c.id)) : E.left(invalid(['column_ids', unknown], `unknown column ${query.columnIds![unknown]}`, query.columnIds![unknown]));
            }),
          ),
        ),
      ),
      TE.map((catalogue): RecordCursor => {
        let after: RecordPosition | undefined;
        let done = false;
        return {
          columnIds: query.columnIds,
          catalogue,
          next: () => async () => {
            if (done) return E.right(null);
            const found = await this.deps.records.search({
              projectId: scope.projectId,
              runId: scope.runId,
              scope: query.scope,
              filters: query.filters,
              sort,
              page: { startingToken: 0, limit: EXPORT_PAGE_RECORDS },
              ...(after !== undefined ? { after } : {}),
              maxBytes: this.deps.pageBytes,
              maxMs: this.deps.searchMs,
            })();
            if (E.isLeft(found)) return found;
            const { items, more } = found.right;
            const last = items[items.length - 1];
            done = !more || last === undefined;
            if (last !== undefined) after = { createdAt: last.createdAt, createdAtMicros: last.createdAtMicros, id: last.id };
            return E.right(items.length === 0 && done ? null : items);
          },
        };
      }),
    );
  }

  /**
   * Stores records of an existing run with the scoring jobs the run's plan gives them, in one write (an
   * outbox: LogRecordRepository.ingest, which also marks each record pending for its jobs' metrics). Every write path
   * that stores records of a run goes through here, so that what it stores is scored. A record not ready
   * to score (isReadyToScore: sent incomplete, its output to come by PATCH) gets none: updateRecord
   * queues its jobs when it is completed.
   */
  ingestScored(runId: RunId, records: ReadonlyArray<LogRecord>, present: ReadonlyArray<string> = presentColumnsOfAll(records)): UseCase<void> {
    const scoring = this.deps.scoring;
    if (scoring === undefined) return this.deps.records.ingest(runId, records, present);
    return pipe(
      scoring.scoringPlan(runId),
      flatMap((plan) => {
        const jobs = jobsFor(records.filter(isReadyToScore), plan);
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
