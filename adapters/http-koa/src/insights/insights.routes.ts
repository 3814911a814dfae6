// Upsert Insights Config (spec operation 1) and its read counterpart.
import { RunInsightsRequest, RunInsightsResponse, RunPath } from '@tracelight/api-schema';
import { type ProjectId, type RunId, asId } from '@tracelight/domain';
import { InsightsUseCases } from '@tracelight/use-cases';
import { inject, injectable } from 'inversify';
import { type Route, type RouteGroup, route } from '../shared/route';
import { presentInsights } from './insights.presenter';

const PATH = '/projects/{project_id}/runs/{run_id}/insights-settings';

@injectable()
export class InsightsRoutes implements RouteGroup {
  constructor(@inject(InsightsUseCases) private readonly insights: InsightsUseCases) {}

  routes(): ReadonlyArray<Route> {
    const insights = this.insights;
    return [
      route({
        method: 'patch',
        path: PATH,
        summary: 'Upsert Insights Config',
        description: 'Create or replace the insights settings of one run.',
        auth: 'required',
        params: RunPath,
        body: RunInsightsRequest,
        response: RunInsightsResponse,
        handle: ({ principal, params, body }) =>
          insights.replace(principal, asId<ProjectId>(params.project_id), asId<RunId>(params.run_id), {
            logstream: body.insights?.logstream
              ? {
                  ...(body.insights.logstream.enabled !== undefined ? { enabled: body.insights.logstream.enabled } : {}),
                  ...(body.insights.logstream.start_time !== undefined ? { startTime: body.insights.logstream.start_time } : {}),
                }
              : null,
          }),
        present: presentInsights,
      }),
      route({
        method: 'get',
        path: PATH,
        summary: 'The insights settings of one run (the default when never set)',
        auth: 'required',
        params: RunPath,
        response: RunInsightsResponse,
        handle: ({ principal, params }) =>
          insights.get(principal, asId<ProjectId>(params.project_id), asId<RunId>(params.run_id)),
        present: presentInsights,
      }),
    ];
  }
}
