// Binds the HTTP edge: every route group and the app that mounts them.
import { ContainerModule } from 'inversify';
import { HttpApp } from './app';
import { ColumnRoutes } from './columns/column.routes';
import { IdentityRoutes } from './identity/identity.routes';
import { InsightsRoutes } from './insights/insights.routes';
import { IntegrationRoutes } from './integrations/integration.routes';
import { ProjectRoutes } from './projects-runs/project.routes';
import { ScorerRoutes } from './scorers/scorer.routes';
import { HttpLogger, HttpOptions } from './shared/logger';
import { HttpMetrics } from './shared/metrics';
import { RouteGroup } from './shared/route';
import { TracingRoutes } from './tracing/tracing.routes';
import { OtlpRoutes } from './otlp/otlp.routes';
import { SystemRoutes } from './system/system.routes';
import { EvaluationRoutes } from './evaluation/evaluation.routes';

export const httpModule = (options: HttpOptions, logger: HttpLogger, metrics: HttpMetrics = new HttpMetrics()) =>
  new ContainerModule(({ bind }) => {
    bind(HttpOptions).toConstantValue(options);
    bind(HttpLogger).toConstantValue(logger);
    for (const group of [SystemRoutes, IdentityRoutes, ProjectRoutes, InsightsRoutes, IntegrationRoutes, ColumnRoutes, ScorerRoutes, EvaluationRoutes, TracingRoutes, OtlpRoutes]) {
      bind<RouteGroup>(RouteGroup).to(group).inSingletonScope();
    }
    bind(HttpMetrics).toConstantValue(metrics);
    bind(HttpApp).toSelf().inSingletonScope();
  });
