// Scorers, their versions (List All Versions For Scorer is spec operation 5) and run scorer settings.
import {
  CodeScorerVersionForm,
  CreateLLMScorerVersionRequest,
  CreateLunaScorerVersionRequest,
  CreateScorerRequest,
  ListScorersQuery,
  ListScorersRequest,
  ListScorersResponse,
  ListScorerVersionsQuery,
  ListScorerVersionsResponse,
  RunScorerSettingsResponse,
  ScorerResponse,
  ScorerVersion,
  RunPath,
  RunScorerSettingsRequest,
  ScorerPath,
  ScorerVersionsPath,
} from '@tracelight/api-schema';
import { type ProjectId, type RunId, type ScorerId, asId } from '@tracelight/domain';
import { ScorerUseCases } from '@tracelight/use-cases';
import * as t from 'io-ts';
import { inject, injectable } from 'inversify';
import { type Route, type RouteGroup, route } from '../shared/route';
import {
  presentRunScorers,
  presentScorer,
  presentScorerWithLatest,
  presentVersion,
  presentVersionPage,
} from './scorer.presenter';
import { toCreateScorer, toLlmVersion, toLunaVersion, toScorerFilter } from './scorer.request-mapper';


@injectable()
export class ScorerRoutes implements RouteGroup {
  constructor(@inject(ScorerUseCases) private readonly scorers: ScorerUseCases) {}

  routes(): ReadonlyArray<Route> {
    const scorers = this.scorers;
    const scorerId = (p: { scorer_id: string }) => asId<ScorerId>(p.scorer_id);
    return [
      route({
        method: 'post',
        path: '/scorers',
        summary: 'Create a scorer',
        auth: 'required',
        conflict: 'The caller has a scorer of that name',
        body: CreateScorerRequest,
        response: ScorerResponse,
        handle: ({ principal, body }) => scorers.create(principal, toCreateScorer(body)),
        present: (s) => presentScorer(s),
      }),
      route({
        method: 'get',
        path: '/scorers',
        summary: 'List the caller’s scorers',
        auth: 'required',
        handle: ({ principal }) => scorers.list(principal),
        response: t.array(ScorerResponse),
        present: (ss) => ss.map(presentScorerWithLatest),
      }),
      route({
        method: 'post',
        path: '/scorers/list',
        summary: 'List the caller’s scorers that pass the filters, a page at a time (the SDKs’ Scorers().list, getScorers)',
        description:
          'Filters by `name`: `name` and `label` (exact unless `case_sensitive` is false), `scorer_type`, `creator` (the caller, by id or email), `tags`, `created_at`, `updated_at`; all must hold. ' +
          'Sorted by name when `sort` says so, else oldest first. Paging in the query, as the versions list.',
        auth: 'required',
        readsOnly: true,
        query: ListScorersQuery,
        body: ListScorersRequest,
        response: ListScorersResponse,
        handle: ({ principal, query, body }) =>
          scorers.search(principal, (body.filters ?? []).map(toScorerFilter), body.sort ? { ascending: body.sort.ascending } : null, {
            startingToken: query.starting_token,
            limit: query.limit,
          }),
        present: (page) => ({
          starting_token: page.startingToken,
          limit: page.limit,
          paginated: true,
          next_starting_token: page.nextStartingToken,
          scorers: page.items.map(presentScorerWithLatest),
        }),
      }),
      route({
        method: 'get',
        path: '/scorers/{scorer_id}',
        summary: 'One scorer, with its latest version',
        auth: 'required',
        params: ScorerPath,
        response: ScorerResponse,
        handle: ({ principal, params }) => scorers.getWithLatest(principal, scorerId(params)),
        present: presentScorerWithLatest,
      }),
      route({
        method: 'get',
        path: '/scorers/{scorer_id}/versions',
        summary: 'List All Versions For Scorer',
        description: 'The versions of one scorer, by version ascending.',
        auth: 'required',
        params: ScorerVersionsPath,
        query: ListScorerVersionsQuery,
        response: ListScorerVersionsResponse,
        handle: ({ principal, params, query }) =>
          scorers.listVersions(principal, scorerId(params), { startingToken: query.starting_token, limit: query.limit }),
        present: presentVersionPage,
      }),
      route({
        method: 'post',
        path: '/scorers/{scorer_id}/version/llm',
        summary: 'Create the next version of a scorer as an LLM judge',
        auth: 'required',
        params: ScorerPath,
        body: CreateLLMScorerVersionRequest,
        response: ScorerVersion,
        handle: ({ principal, params, body }) => scorers.createLlmVersion(principal, scorerId(params), toLlmVersion(body)),
        present: presentVersion,
      }),
      route({
        method: 'post',
        path: '/scorers/{scorer_id}/version/code',
        summary: 'Create the next version of a scorer from an uploaded source file (multipart field `file`)',
        auth: 'required',
        params: ScorerPath,
        bodyKind: 'multipart',
        body: CodeScorerVersionForm,
        response: ScorerVersion,
        handle: ({ principal, params, body }) =>
          scorers.createCodeVersion(principal, scorerId(params), {
            fileName: body.file.filename,
            code: body.file.content.toString('utf8'),
            ...(body.scoreable_node_types !== undefined ? { scoreableNodeTypes: body.scoreable_node_types } : {}),
          }),
        present: presentVersion,
      }),
      route({
        method: 'get',
        path: '/scorers/{scorer_id}/version/code',
        summary: 'The source file of the latest code version',
        auth: 'required',
        params: ScorerPath,
        response: t.string,
        responseType: 'text/x-python',
        handle: ({ principal, params }) => scorers.latestCode(principal, scorerId(params)),
        present: (r) => r.code,
        write: (ctx, r) => {
          ctx.status = 200;
          ctx.type = 'text/x-python; charset=utf-8';
          ctx.attachment(r.fileName || 'scorer.py');
          ctx.body = r.code;
        },
      }),
      route({
        method: 'post',
        path: '/scorers/{scorer_id}/version/luna',
        summary: 'Create the next version of a scorer as a fine-tuned small model',
        auth: 'required',
        params: ScorerPath,
        body: CreateLunaScorerVersionRequest,
        response: ScorerVersion,
        handle: ({ principal, params, body }) => scorers.createLunaVersion(principal, scorerId(params), toLunaVersion(body)),
        present: presentVersion,
      }),
      route({
        method: 'post',
        path: '/projects/{project_id}/runs/{run_id}/scorer-settings',
        summary: 'Choose the scorers that run on a run (replaces the selection)',
        auth: 'required',
        params: RunPath,
        body: RunScorerSettingsRequest,
        response: RunScorerSettingsResponse,
        handle: ({ principal, params, body }) =>
          scorers.replaceRunScorers(
            principal,
            asId<ProjectId>(params.project_id),
            asId<RunId>(params.run_id),
            body.scorers.map((s) => ({
              scorerId: asId<ScorerId>(s.scorer_id),
              version: s.version ?? null,
              ...(s.sample_rate !== undefined && s.sample_rate !== null ? { sampleRate: s.sample_rate } : {}),
            })),
          ),
        present: presentRunScorers,
      }),
      route({
        method: 'get',
        path: '/projects/{project_id}/runs/{run_id}/scorer-settings',
        summary: 'The scorers that run on a run',
        auth: 'required',
        params: RunPath,
        response: RunScorerSettingsResponse,
        handle: ({ principal, params }) =>
          scorers.getRunScorers(principal, asId<ProjectId>(params.project_id), asId<RunId>(params.run_id)),
        present: presentRunScorers,
      }),
    ];
  }
}
