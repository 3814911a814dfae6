// The Koa HTTP adapter: routes, validation → 422, credentials → 401, domain errors → statuses.
export * from './app';
export * from './http.module';
export * from './shared/logger';
export * from './shared/route';
export * from './auth/presented-credentials';
export * from './errors/domain-error.mapper';
export * from './openapi/openapi.document';
export * from './shared/metrics';
export { answeredOnConnection } from './shared/answered-status';
export { requestIdOf } from './shared/access-log.middleware';
export * from './shared/offload';
export * from './shared/route-runner';
export * from './console/console-assets';
