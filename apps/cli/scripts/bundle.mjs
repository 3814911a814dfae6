// Bundles the admin CLI, compiled by tsc into dist/tsc, into dist/main.js, with the script of a backup's
// process (forked by the SQLite adapter) beside it: each command then reads one file instead of resolving
// and compiling some 370 CommonJS modules (see docs/operations.md, "Admin CLI").
import * as esbuild from 'esbuild';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundle } from '../../../scripts/bundle.mjs';

const app = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
await bundle({
  esbuild,
  app,
  entries: {
    main: path.join(app, 'dist', 'tsc', 'main.js'),
    'sqlite-backup.process': path.resolve(app, '../../adapters/sqlite/dist/shared/sqlite-backup.process.js'),
  },
  // The native addon, and the MongoDB driver, loaded only on MongoDB and carrying optional modules of its own.
  external: ['better-sqlite3', 'mongodb'],
  also: [fileURLToPath(import.meta.url)],
  clean: true,
});
