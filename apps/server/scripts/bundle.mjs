// Bundles the server's entry points, compiled by tsc into dist/tsc, into one file each in dist/: the
// server (dist/main.js) and the scripts of its threads (the offload worker, SQLite's writer and search
// threads, the code scorers' sandbox). A start then reads a few files instead of resolving and compiling some 900 CommonJS modules
// on each thread (about 0.4 s of the main thread's start on a loaded 2-core machine; see docs/benchmarks.md).
// Skipped when no input changed since the last bundle, so that `pnpm start` does not redo it.
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const app = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(app, 'dist');
const sqlite = path.resolve(app, '../../adapters/sqlite/dist/shared');
const sandbox = path.resolve(app, '../../adapters/pyodide-sandbox/dist');
const ENTRIES = {
  main: path.join(dist, 'tsc', 'main.js'),
  'offload.worker': path.join(dist, 'tsc', 'offload.worker.js'),
  'sqlite-writer.worker': path.join(sqlite, 'sqlite-writer.worker.js'),
  'sqlite-search.worker': path.join(sqlite, 'sqlite-search.worker.js'),
  // Each adapter finds its thread's script beside its own code (`<its dist>/../dist/<name>.js`): bundled
  // into main.js, that is this dist/, where the bundle of each script is written.
  'sandbox.child': path.join(sandbox, 'sandbox.child.js'),
};
/**
 * Loaded from node_modules at run time, never bundled: the native addon, the MongoDB driver, loaded
 * only on MongoDB and carrying optional modules of its own, and Pyodide, which reads its interpreter and
 * standard library from its package's folder. Each is a dependency of this app.
 */
const EXTERNAL = ['better-sqlite3', 'mongodb', 'pyodide'];
/** What the last bundle was made from (esbuild's metafile): its inputs are compared with the bundles. */
const META = path.join(dist, 'bundle.meta.json');
/** Beside the inputs esbuild reads: this script, and the lockfile (a package upgraded in node_modules). */
const ALSO = [fileURLToPath(import.meta.url), path.resolve(app, '../../pnpm-lock.yaml')];

const outputs = Object.keys(ENTRIES).map((name) => path.join(dist, `${name}.js`));

/** True when every bundle exists and is newer than everything the last bundle was made from. */
const upToDate = () => {
  if (!fs.existsSync(META) || outputs.some((o) => !fs.existsSync(o))) return false;
  const made = Math.min(...outputs.map((o) => fs.statSync(o).mtimeMs));
  const inputs = [...Object.keys(JSON.parse(fs.readFileSync(META, 'utf8')).inputs).map((i) => path.resolve(app, i)), ...ALSO];
  return inputs.every((i) => fs.existsSync(i) && fs.statSync(i).mtimeMs <= made);
};

if (upToDate()) {
  console.log('bundle: dist/ is up to date');
} else {
  const started = performance.now();
  const result = await esbuild.build({
    absWorkingDir: app,
    entryPoints: ENTRIES,
    outdir: dist,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    external: EXTERNAL,
    // Classes keep their names (error messages, inversify's reports), as in the compiled code.
    keepNames: true,
    // `node --enable-source-maps dist/main.js` then names the TypeScript sources' lines in stack traces.
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
    // require.resolve of a package's files (the console's built assets, Swagger UI's) is left as written:
    // it finds them in node_modules at run time, as it should.
    logOverride: { 'require-resolve-not-external': 'silent' },
  });
  fs.writeFileSync(META, JSON.stringify(result.metafile));
  console.log(`bundle: ${Object.keys(ENTRIES).length} entry points into dist/ in ${Math.round(performance.now() - started)} ms`);
}
