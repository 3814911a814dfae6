// Shared test support: the repository contract suite, fixtures and deterministic fakes.
export * from './fixtures';
export * from './repository-contract';
export * from './rekey-scenario';
export * from './results';
export * from './scoring-queue-contract';
export * from './openai-stub';
export * from './code-sandbox-contract';
