// The wire format: io-ts codecs that validate requests and describe responses, and the 422 reporter.
export * from './shared/validation-error';
export * from './shared/json-body';
export * from './shared/primitives.codec';
export * from './shared/decode';
export * from './shared/error.codec';
export * from './shared/system.codec';
export * from './shared/json-schema';
export * from './shared/field-rule';
export * from './identity/identity.codec';
export * from './projects-runs/project.codec';
export * from './insights/insights.codec';
export * from './integrations/integration.codec';
export * from './columns/column.codec';
export * from './scorers/scorer.codec';
export * from './tracing/trace.codec';
export * from './evaluation/evaluation.codec';
