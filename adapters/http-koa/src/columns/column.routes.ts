// Spans Available Columns (spec operation 4).
import { ColumnsProjectPath, SpansAvailableColumnsRequest, SpansAvailableColumnsResponse } from '@tracelight/api-schema';
import { ColumnUseCases } from '@tracelight/use-cases';
import { inject, injectable } from 'inversify';
import { type Route, type RouteGroup, route } from '../shared/route';
import { runScopeIn } from '../shared/run-scope';
import { columnsAnswer, presentColumn } from './column.presenter';

@injectable()
export class ColumnRoutes implements RouteGroup {
  constructor(@inject(ColumnUseCases) private readonly columns: ColumnUseCases) {}

  routes(): ReadonlyArray<Route> {
    const columns = this.columns;
    return [
      route({
        method: 'post',
        path: '/projects/{project_id}/spans/available_columns',
        summary: 'Spans Available Columns',
        description: 'The columns that can be shown, filtered or sorted for the traces and spans of one run.',
        auth: 'required',
        readsOnly: true,
        params: ColumnsProjectPath,
        body: SpansAvailableColumnsRequest,
        response: SpansAvailableColumnsResponse,
        handle: ({ principal, params, body }) => {
          const { projectId, kind, runId } = runScopeIn(params.project_id, body);
          return columns.availableColumns(principal, projectId, kind, runId);
        },
        present: (cs) => ({ columns: cs.map(presentColumn) }),
        write: (ctx, cs) => {
          ctx.type = 'application/json; charset=utf-8';
          ctx.body = columnsAnswer(cs);
        },
      }),
    ];
  }
}
