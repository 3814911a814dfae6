// Create or update gateway integration (spec operation 3).
import { GatewayIntegrationCreate, IntegrationRecord } from '@tracelight/api-schema';
import { IntegrationUseCases } from '@tracelight/use-cases';
import { inject, injectable } from 'inversify';
import { type Route, type RouteGroup, route } from '../shared/route';
import { presentIntegration } from './integration.presenter';

@injectable()
export class IntegrationRoutes implements RouteGroup {
  constructor(@inject(IntegrationUseCases) private readonly integrations: IntegrationUseCases) {}

  routes(): ReadonlyArray<Route> {
    const integrations = this.integrations;
    return [
      route({
        method: 'put',
        path: '/integrations/gateway',
        summary: 'Create or update gateway integration',
        description: 'Create or update the gateway integration of the calling user.',
        auth: 'required',
        body: GatewayIntegrationCreate,
        response: IntegrationRecord,
        handle: ({ principal, body }) =>
          integrations.upsertGateway(principal, { token: body.token, endpoint: body.endpoint, useCase: body.use_case }),
        present: presentIntegration,
      }),
      route({
        method: 'get',
        path: '/integrations/gateway',
        summary: 'The gateway integration of the calling user (its endpoint and use case; never its token)',
        auth: 'required',
        response: IntegrationRecord,
        handle: ({ principal }) => integrations.getGateway(principal),
        present: presentIntegration,
      }),
    ];
  }
}
