// Liveness and readiness, for orchestrators: both answer without credentials.
import { HealthResponse, ReadyResponse } from '@tracelight/api-schema';
import { StorageHealth } from '@tracelight/ports';
import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import { inject, injectable } from 'inversify';
import { type Route, type RouteGroup, route } from '../shared/route';

@injectable()
export class SystemRoutes implements RouteGroup {
  constructor(@inject(StorageHealth) private readonly storage: StorageHealth) {}

  routes(): ReadonlyArray<Route> {
    const storage = this.storage;
    return [
      route({
        method: 'get',
        path: '/healthcheck',
        summary: 'Liveness: the process answers',
        auth: 'none',
        unlimited: true,
        response: HealthResponse,
        handle: () => TE.right({ api_version: 'v2', message: 'ok' }),
        present: (x) => x,
      }),
      route({
        method: 'get',
        path: '/readyz',
        summary: 'Readiness: the database answers (503 when it does not)',
        auth: 'none',
        unlimited: true,
        response: ReadyResponse,
        handle: () => pipe(storage.ping(), TE.map(() => ({ status: 'ready' as const }))),
        present: (x) => x,
      }),
    ];
  }
}
