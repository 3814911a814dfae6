// Tracelight's use cases: small classes that take their ports and return TaskEither<DomainError, _>.
export * from './shared/te';
export * from './identity/identity.use-cases';
export * from './projects-runs/project.use-cases';
export * from './insights/insights.use-cases';
export * from './integrations/integration.use-cases';
export * from './scorers/scorer.use-cases';
export * from './columns/columns.use-cases';
export * from './tracing/tracing.use-cases';
export * from './tracing/retention.use-cases';
export * from './evaluation/scorer-runner';
export * from './evaluation/gateways';
export * from './evaluation/llm-judge.runner';
export * from './evaluation/code-scorer.runner';
export * from './evaluation/code-upload';
export * from './evaluation/scoring-jobs.use-cases';
export * from './evaluation/evaluation.use-cases';
