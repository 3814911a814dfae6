// Trace ingestion and record search.
import {
  LogRecordsExportRequest,
  RecordExportLines,
  LogSpansIngestRequest,
  LogSpansIngestResponse,
  LogSpanUpdateRequest,
  LogSpanUpdateResponse,
  LogTraceUpdateRequest,
  LogTraceUpdateResponse,
  LogTracesIngestRequest,
  LogTracesIngestResponse,
  ProjectPath,
  SpanPath,
  TracePath,
  RecordSearchRequest,
  RecordSearchResponse,
  RUN_SCOPE_RULE,
  SessionCreateRequest,
  SessionResponse,
} from '@tracelight/api-schema';
import { type RecordScope, type PatchTarget, invalid } from '@tracelight/domain';
import type * as t from 'io-ts';
import { TracingUseCases, type UseCase } from '@tracelight/use-cases';
import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import { inject, injectable } from 'inversify';
import { type Decoder, type Route, type RouteGroup, route } from '../shared/route';
import { runScopeIn, runScopeOf } from '../shared/run-scope';
import { presentRecordPage } from './log-record.presenter';
import { EXPORTS_PER_USER, type ExportsBusy, ExportsInProgress, type RecordExport, writeExport } from './record-export';
import { recordsInIngestBody, toFilter, toPatch, toSpanInputs, toTraceInputs } from './tracing.request-mapper';

/** A PATCH body of a trace or a span: the same members, and the one naming the record. */
type UpdateBody = Omit<t.TypeOf<typeof LogTraceUpdateRequest>, 'trace_id'> & { readonly trace_id?: string; readonly span_id?: string };

const ROOT_SCOPES: Readonly<Record<'trace' | 'span' | 'session', RecordScope>> = { trace: 'traces', span: 'spans', session: 'sessions' };

/** A body's member naming the record must be the path's (the SDKs send both): 422 at the member otherwise. */
const samePathId = (member: string, body: string, path: string): UseCase<void> =>
  body.toLowerCase() === path.toLowerCase() ? TE.right(undefined) : TE.left(invalid([member], `${member} must be the ${member} of the path (${path})`, body));

@injectable()
export class TracingRoutes implements RouteGroup {
  /** One map for the process: the route group is a singleton. */
  private readonly exports = new ExportsInProgress(EXPORTS_PER_USER);

  constructor(@inject(TracingUseCases) private readonly tracing: TracingUseCases) {}

  routes(): ReadonlyArray<Route> {
    const tracing = this.tracing;
    const search = (scope: RecordScope, noun: string) =>
      route({
        method: 'post',
        path: `/projects/{project_id}/${scope}/search`,
        summary: `Search the ${noun} of one run by the column catalogue, a page at a time`,
        auth: 'required',
        readsOnly: true,
        params: ProjectPath,
        body: RecordSearchRequest,
        response: RecordSearchResponse,
        bodyRule: RUN_SCOPE_RULE,
        timesOut: 'the search read for TRACELIGHT_SEARCH_TIMEOUT_MS without finishing and was stopped (`detail` says so): narrow it',
        handle: ({ principal, params, body }) =>
          tracing.search(principal, runScopeIn(params.project_id, body), {
              scope,
              filters: (body.filters ?? []).map(toFilter),
              sort: body.sort ? { columnId: body.sort.column_id, ascending: body.sort.ascending } : null,
            page: { startingToken: body.starting_token ?? 0, limit: body.limit ?? 100 },
          }),
        present: presentRecordPage,
      });
    const update = (target: PatchTarget) =>
      route({
        method: 'patch',
        path: target === 'trace' ? '/projects/{project_id}/traces/{trace_id}' : '/projects/{project_id}/spans/{span_id}',
        summary: `Immediate mode: change a stored ${target} (what is sent overwrites, tags are added, what is left out or null stays)`,
        auth: 'required',
        // One route shape for both: the member naming the record differs (trace_id, span_id).
        params: (target === 'trace' ? TracePath : SpanPath) as unknown as Decoder<{ readonly project_id: string } & Readonly<Record<string, string>>>,
        body: (target === 'trace' ? LogTraceUpdateRequest : LogSpanUpdateRequest) as unknown as Decoder<UpdateBody>,
        response: target === 'trace' ? LogTraceUpdateResponse : LogSpanUpdateResponse,
        bodyRule: RUN_SCOPE_RULE,
        handle: ({ principal, params, body }) => {
          const member = target === 'trace' ? 'trace_id' : 'span_id';
          const pathId = params[member]!;
          const run = runScopeOf(body);
          return pipe(
            samePathId(member, body[member] ?? '', pathId),
            TE.flatMap(() => tracing.updateRecord(principal, runScopeIn(params.project_id, body), target, pathId, toPatch(body))),
            TE.map((result) => ({
              project_id: params.project_id,
              project_name: result.projectName,
              [run.field]: run.id,
              session_id: result.sessionId,
              records_count: result.recordsCount,
              [member]: result.record.id,
            })),
          );
        },
        present: (x) => x,
      });
    return [
      route({
        method: 'post',
        path: '/projects/{project_id}/traces',
        summary: 'Ingest traces with their nested spans: every record of the request is stored, or none',
        auth: 'required',
        offload: true,
        conflict: 'A trace or span of the request has the id of a session stored in the run: nothing was stored',
        params: ProjectPath,
        body: LogTracesIngestRequest,
        response: LogTracesIngestResponse,
        bodyRule: RUN_SCOPE_RULE,
        // Counted before decoding: a batch of too many records is refused without building them.
        admits: (body) => tracing.refusesBatchOf(recordsInIngestBody(body)),
        handle: ({ principal, params, body }) => {
          const run = runScopeOf(body);
          return pipe(
            tracing.ingestTraces(principal, runScopeIn(params.project_id, body), {
              traces: toTraceInputs(body.traces),
              sessionId: body.session_id ?? null,
              sessionExternalId: body.session_external_id ?? null,
              isComplete: body.is_complete ?? true,
            }),
            TE.map((result) => ({
              project_id: params.project_id,
              project_name: result.projectName,
              [run.field]: run.id,
              session_id: result.sessionId,
              records_count: result.tracesCount + result.spansCount,
              traces_count: result.tracesCount,
              spans_count: result.spansCount,
              ...(body.include_trace_ids ? { trace_ids: result.traceIds } : {}),
            })),
          );
        },
        present: (x) => x,
      }),
      route({
        method: 'post',
        path: '/projects/{project_id}/spans',
        summary: 'Immediate mode: add spans under a trace, below the trace or one of its spans (neither need be stored yet): every span is stored, or none',
        auth: 'required',
        offload: true,
        conflict:
          'What the run stores does not fit the request: trace_id names a stored span or session, parent_id a stored record other than that trace or one of its spans, or a span has the id of a stored trace or session. Nothing was stored',
        params: ProjectPath,
        body: LogSpansIngestRequest,
        response: LogSpansIngestResponse,
        bodyRule: RUN_SCOPE_RULE,
        // The spans at any depth, counted before decoding as an ingest's are.
        admits: (body) => tracing.refusesBatchOf(recordsInIngestBody(body, 'spans'), 'spans'),
        handle: ({ principal, params, body }) => {
          const run = runScopeOf(body);
          return pipe(
            tracing.appendSpans(principal, runScopeIn(params.project_id, body), {
              spans: toSpanInputs(body.spans),
              traceId: body.trace_id,
              parentId: body.parent_id,
              isComplete: body.is_complete ?? true,
            }),
            TE.map((result) => ({
              project_id: params.project_id,
              project_name: result.projectName,
              [run.field]: run.id,
              session_id: result.sessionId,
              records_count: result.recordsCount,
              trace_id: body.trace_id.toLowerCase(),
              parent_id: body.parent_id.toLowerCase(),
            })),
          );
        },
        present: (x) => x,
      }),
      update('trace'),
      update('span'),
      route({
        method: 'post',
        path: '/projects/{project_id}/export_records',
        summary: "Export a run's records of one root type, filtered as a search and sorted by created_at, as a stream of JSON lines (or CSV)",
        description:
          'Each line is one record: with `column_ids`, an object of exactly those columns (a metric by its id, `metrics/<name>`), else the record whole as a search answers it. ' +
          '`json` is answered as `jsonl` (a line a record); `csv` has a header line of the columns (the run’s catalogue when none are named) and a value is its text (JSON for a list or an object). ' +
          'The records are read a page at a time as the answer is sent: memory stays one page whatever the run holds. `redact` is taken and has no effect (Tracelight stores no redacted copy).',
        auth: 'required',
        readsOnly: true,
        params: ProjectPath,
        body: LogRecordsExportRequest,
        bodyRule: RUN_SCOPE_RULE,
        response: RecordExportLines,
        responseType: 'application/jsonl',
        timesOut: 'reading the first page took TRACELIGHT_SEARCH_TIMEOUT_MS: narrow the filters',
        handle: ({ principal, params, body }): UseCase<RecordExport | ExportsBusy> => {
          // Taken before anything is read, given back when the answer is done with (writeExport) or refused here.
          const release = this.exports.take(principal.userId);
          if (release === undefined) return TE.right({ busy: EXPORTS_PER_USER });
          return pipe(
            tracing.exportRecords(principal, runScopeIn(params.project_id, body), {
              scope: ROOT_SCOPES[body.root_type],
              filters: (body.filters ?? []).map(toFilter),
              sort: body.sort ? { columnId: body.sort.column_id, ascending: body.sort.ascending } : null,
              columnIds: body.column_ids ?? null,
            }),
            // The first page is read before answering, so that a failure there is a status, not a cut stream.
            TE.flatMap((cursor) => pipe(cursor.next(), TE.map((first) => ({ cursor, first, format: body.export_format, release })))),
            TE.orElse((e) => {
              release();
              return TE.left(e);
            }),
          );
        },
        present: () => null,
        write: writeExport,
      }),
      route({
        method: 'post',
        path: '/projects/{project_id}/sessions',
        summary: 'Start a session: traces that name it by session_id belong to it',
        auth: 'required',
        params: ProjectPath,
        body: SessionCreateRequest,
        response: SessionResponse,
        bodyRule: RUN_SCOPE_RULE,
        handle: ({ principal, params, body }) =>
          tracing.createSession(principal, runScopeIn(params.project_id, body), {
            name: body.name ?? '',
            externalId: body.external_id ?? null,
            userMetadata: body.user_metadata ?? {},
          }),
        present: (s) => ({ id: s.id, name: s.name, project_id: s.projectId, run_id: s.runId, external_id: s.externalId, created_at: s.createdAt.toISOString() }),
      }),
      search('traces', 'traces'),
      search('spans', 'spans'),
      search('sessions', 'sessions'),
    ];
  }
}
