// One Jest run over every workspace package. Workspace imports resolve to TypeScript sources,
// so unit and integration tests need no build; e2e tests start the built server (`pnpm build`).
const packages = {
  '@tracelight/domain': 'domain/model',
  '@tracelight/use-cases': 'domain/use-cases',
  '@tracelight/ports': 'ports',
  '@tracelight/api-schema': 'packages/api-schema',
  '@tracelight/config': 'packages/config',
  '@tracelight/worker-calls': 'packages/worker-calls',
  '@tracelight/testkit': 'packages/testkit',
  '@tracelight/scoring-workers': 'packages/scoring-workers',
  '@tracelight/client': 'packages/client',
  '@tracelight/credentials': 'adapters/credentials',
  '@tracelight/sqlite': 'adapters/sqlite',
  '@tracelight/mongodb': 'adapters/mongodb',
  '@tracelight/http-koa': 'adapters/http-koa',
  '@tracelight/openai-gateway': 'adapters/openai-gateway',
  '@tracelight/pyodide-sandbox': 'adapters/pyodide-sandbox',
  '@tracelight/server': 'apps/server',
  '@tracelight/cli': 'apps/cli',
  '@tracelight/evaluator': 'apps/evaluator',
};
const moduleNameMapper = {};
for (const [name, dir] of Object.entries(packages)) {
  moduleNameMapper[`^${name}$`] = `<rootDir>/${dir}/src/index.ts`;
}

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: '<rootDir>/test/support/environment.js',
  testMatch: ['<rootDir>/**/*.spec.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/'],
  moduleNameMapper,
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          target: 'es2022',
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: false },
        },
        module: { type: 'commonjs' },
      },
    ],
  },
  // A bound against a hung test, not a timing: a loaded 2-core machine takes several times as long as an
  // idle one over the slowest tests (a fuzz run, a crash and restart), and a test cut off by a time limit
  // it would have met given the time says nothing about the code. What waits for something inside a test
  // (a server's start, a log line) has a bound of its own that fails saying what it waited for.
  testTimeout: 600_000,
  // Three files at a time even on 2 cores (Jest would take one): an e2e file spends most of its time
  // waiting on the server process it started, and the tests keep no time limit a busy machine can miss.
  // On 2 cores the SQLite run's Jest took 660 s one file at a time, 322 s two at a time, 293 s three.
  maxWorkers: Math.max(3, require('node:os').availableParallelism() - 1),
  globalSetup: '<rootDir>/test/support/temp-dir.setup.js',
  globalTeardown: '<rootDir>/test/support/temp-dir.teardown.js',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
