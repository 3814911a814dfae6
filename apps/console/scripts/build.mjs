// Builds the console (type check, vite build, compressed companions) unless nothing it is built from has
// changed since its last build: `pnpm start` runs `pnpm build` each time, and a vite build, unlike tsc -b,
// is not incremental. `--force` builds whatever the dates say.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const app = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** What the build reads: the console's own files, the typed client's sources, the codecs' types, the tool versions. */
const INPUTS = ['src', 'index.html', 'vite.config.mts', 'tsconfig.json', 'package.json', 'scripts', '../../packages/client/src', '../../packages/api-schema/dist', '../../tsconfig.base.json', '../../pnpm-lock.yaml'];
/** Written once a build has succeeded; outside dist/, which the server serves and the bundles carry. */
const STAMP = path.join(app, 'node_modules', '.cache', 'console-build.stamp');

/** The latest change under `file`: a directory's own date counts, as a file added or removed changes it. */
const newest = (file) => {
  const stat = fs.statSync(file);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return fs.readdirSync(file).reduce((latest, entry) => Math.max(latest, newest(path.join(file, entry))), stat.mtimeMs);
};

const upToDate = () =>
  fs.existsSync(STAMP) &&
  fs.existsSync(path.join(app, 'dist', 'index.html')) &&
  INPUTS.map((i) => path.resolve(app, i)).every((i) => fs.existsSync(i) && newest(i) <= fs.statSync(STAMP).mtimeMs);

if (!process.argv.includes('--force') && upToDate()) {
  console.log('console: dist/ is up to date');
} else {
  // tsc and vite as the workspace installed them: this package's node_modules/.bin, then the root's.
  const bin = (name) => [path.join(app, 'node_modules', '.bin', name), path.resolve(app, '../../node_modules/.bin', name)].find((f) => fs.existsSync(f)) ?? name;
  const step = (command, args) => execFileSync(bin(command), args, { cwd: app, stdio: 'inherit' });
  fs.rmSync(STAMP, { force: true });
  step('tsc', ['-p', 'tsconfig.json']);
  step('vite', ['build']);
  execFileSync(process.execPath, ['scripts/compress.mjs'], { cwd: app, stdio: 'inherit' });
  fs.mkdirSync(path.dirname(STAMP), { recursive: true });
  fs.writeFileSync(STAMP, '');
}
