// Bundles an app's entry points, compiled by tsc, into one file each in its dist/ (esbuild), unless no
// input changed since the last bundle: the apps' scripts/bundle.mjs call it with their entry points.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `esbuild`: the app's own (each app lists it; the workspace root does not). `entries`: bundle name →
 * compiled script. `external`: packages loaded from node_modules at run time, never bundled (a native
 * addon, a driver with optional modules of its own, a package that reads files from its folder): each
 * must be a dependency of the app. `also`: files whose change makes a new bundle, beside the inputs
 * esbuild reads (the app's script; the lockfile is always one: a package upgraded in node_modules).
 */
export const bundle = async ({ esbuild, app, entries, external, also = [], clean = false }) => {
  const dist = path.join(app, 'dist');
  /** What the last bundle was made from (esbuild's metafile): its inputs are compared with the bundles. */
  const meta = path.join(dist, 'bundle.meta.json');
  const inputsBesides = [fileURLToPath(import.meta.url), path.resolve(app, '../../pnpm-lock.yaml'), ...also];
  const outputs = Object.keys(entries).map((name) => path.join(dist, `${name}.js`));

  /** True when every bundle exists and is newer than everything the last bundle was made from. */
  const upToDate = () => {
    if (!fs.existsSync(meta) || outputs.some((o) => !fs.existsSync(o))) return false;
    const made = Math.min(...outputs.map((o) => fs.statSync(o).mtimeMs));
    const inputs = [...Object.keys(JSON.parse(fs.readFileSync(meta, 'utf8')).inputs).map((i) => path.resolve(app, i)), ...inputsBesides];
    return inputs.every((i) => fs.existsSync(i) && fs.statSync(i).mtimeMs <= made);
  };

  const name = path.basename(app);
  if (upToDate()) {
    console.log(`bundle: ${name}'s dist/ is up to date`);
    return;
  }
  const started = performance.now();
  const result = await esbuild.build({
    absWorkingDir: app,
    entryPoints: entries,
    outdir: dist,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    external,
    // No keepNames: it wraps every named function and class in a call that redefines its `name`, at each
    // evaluation, so the closures made on every request (Koa's middleware, the route runner's) each took
    // a defineProperty, and V8 optimized less around them: /healthcheck cost 68.5 µs of CPU a request, 45.4
    // without (docs/benchmarks.md). Names stay as written: tsc's output is CommonJS, which esbuild wraps
    // module by module and never renames; only the ESM files of a few packages (@opentelemetry/api) are
    // hoisted into one scope, where a clashing name may get a suffix.
    keepNames: false,
    // `node --enable-source-maps dist/main.js` then names the TypeScript sources' lines in stack traces.
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
    // require.resolve of a package's files (the console's built assets, Swagger UI's) is left as written:
    // it finds them in node_modules at run time, as it should.
    logOverride: { 'require-resolve-not-external': 'silent' },
  });
  fs.writeFileSync(meta, JSON.stringify(result.metafile));
  if (clean) {
    // dist/ then holds the bundles alone: what tsc wrote there before its output moved to dist/tsc goes.
    const kept = new Set(['tsc', path.basename(meta), ...outputs.flatMap((o) => [path.basename(o), `${path.basename(o)}.map`])]);
    for (const entry of fs.readdirSync(dist)) if (!kept.has(entry)) fs.rmSync(path.join(dist, entry), { recursive: true, force: true });
  }
  console.log(`bundle: ${Object.keys(entries).length} entry points into ${name}'s dist/ in ${Math.round(performance.now() - started)} ms`);
};
