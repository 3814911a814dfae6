// Bundles the server's entry points, compiled by tsc into dist/tsc, into one file each in dist/: the
// server (dist/main.js) and the scripts of its threads (the offload worker, SQLite's writer and search
// threads, the code scorers' sandbox). A start then reads a few files instead of resolving and compiling some 900 CommonJS modules
// on each thread (about 0.4 s of the main thread's start on a loaded 2-core machine; see docs/benchmarks.md).
// Skipped when no input changed since the last bundle, so that `pnpm start` does not redo it.
import * as esbuild from 'esbuild';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundle } from '../../../scripts/bundle.mjs';

const app = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sqlite = path.resolve(app, '../../adapters/sqlite/dist/shared');
const sandbox = path.resolve(app, '../../adapters/pyodide-sandbox/dist');
await bundle({
  esbuild,
  app,
  entries: {
    main: path.join(app, 'dist', 'tsc', 'main.js'),
    'offload.worker': path.join(app, 'dist', 'tsc', 'offload.worker.js'),
    'sqlite-writer.worker': path.join(sqlite, 'sqlite-writer.worker.js'),
    'sqlite-search.worker': path.join(sqlite, 'sqlite-search.worker.js'),
    // Each adapter finds its thread's script beside its own code (`<its dist>/../dist/<name>.js`): bundled
    // into main.js, that is this dist/, where the bundle of each script is written.
    'sandbox.child': path.join(sandbox, 'sandbox.child.js'),
  },
  /**
   * Loaded from node_modules at run time, never bundled: the native addon, the MongoDB driver, loaded
   * only on MongoDB and carrying optional modules of its own, and Pyodide, which reads its interpreter and
   * standard library from its package's folder. Each is a dependency of this app.
   */
  external: ['better-sqlite3', 'mongodb', 'pyodide'],
  also: [fileURLToPath(import.meta.url)],
});
