// The MongoDB run (`pnpm test:mongodb`, which test/mongo-wire/with-mongodb points at a MongoDB): every
// spec of the MongoDB adapter, the repository contract suite and each new port's contract among them, and
// the black-box suites that exercise storage, against MONGODB_URI and TRACELIGHT_E2E_DATABASE_URL.
const base = require('./jest.config.js');

/**
 * Black-box suites left to the SQLite run: what they test is the server's own, the same on any engine
 * (HTTP parsing and its limits, in-process bounds, CORS, V8 flags, logging, the console's files, the
 * packed client); docs/storage.md lists them. The console's pages run here too, in Chromium: they are
 * how people read their traces.
 */
const NOT_STORAGE = ['http-edge', 'bounds', 'cors', 'v8-settings', 'log-buffer', 'log-write-errors', 'console-serving', 'client-package'];

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  testMatch: ['<rootDir>/adapters/mongodb/**/*.spec.ts', '<rootDir>/test/**/*.e2e.spec.ts'],
  testPathIgnorePatterns: [...base.testPathIgnorePatterns, ...NOT_STORAGE.map((name) => `/test/e2e/${name}\\.e2e\\.spec\\.ts$`)],
  globalSetup: '<rootDir>/test/support/mongodb-run.setup.js',
  reporters: ['default', ['<rootDir>/test/support/summary-reporter.js', { engine: 'MongoDB' }]],
};
