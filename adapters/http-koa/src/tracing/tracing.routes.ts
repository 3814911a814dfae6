// Trace ingestion and record search.
import {
  LogTracesIngestRequest,
  LogTracesIngestResponse,
  ProjectPath,
  RecordSearchRequest,
  RecordSearchResponse,
  RUN_SCOPE_RULE,
  SessionCreateRequest,
  SessionResponse,
} from '@tracelight/api-schema';
import type { RecordScope } from '@tracelight/domain';
import { TracingUseCases } from '@tracelight/use-cases';
import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import { inject, injectable } from 'inversify';
import { type Route, type RouteGroup, route } from '../shared/route';
import { runScopeIn, runScopeOf } from '../shared/run-scope';
import { presentRecordPage } from './log-record.presenter';
import { recordsInIngestBody, toFilter, toTraceInputs } from './tracing.request-mapper';

@injectable()
export class TracingRoutes implements RouteGroup {
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
            tracing.ingestTraces(
              principal,
              runScopeIn(params.project_id, body),
              { traces: toTraceInputs(body.traces), sessionId: body.session_id ?? null, isComplete: body.is_complete ?? true },
            ),
            TE.map((result) => ({
              project_id: params.project_id,
              [run.field]: run.id,
              session_id: body.session_id ?? null,
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
