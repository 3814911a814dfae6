// Builds what the published package holds, in dist/pkg (run by `pnpm pack`, as prepack): the client as
// CommonJS and as an ES module, one file each, for Node 20+ and browsers (it needs only fetch and the web's
// built-ins), and its types in one declaration file that carries everything it names (the API's codecs and
// io-ts's types, inlined), so that the package depends on nothing, and on no package of this workspace.
import { execFileSync } from 'node:child_process';
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(pkg, 'dist', 'pkg');
fs.rmSync(out, { recursive: true, force: true });

// The code: only type imports leave the client's sources, so each bundle is the client alone.
for (const [format, file] of [['cjs', 'index.cjs'], ['esm', 'index.mjs']]) {
  await esbuild.build({
    absWorkingDir: pkg,
    entryPoints: ['src/index.ts'],
    outfile: path.join(out, file),
    bundle: true,
    platform: 'neutral',
    format,
    target: 'es2022',
    logLevel: 'warning',
  });
}

// The types: dts-bundle-generator inlines the declarations of the packages named, checks that the file
// compiles alone, and writes it; a copy as .d.mts types the ES module.
const tsconfig = path.join(out, 'tsconfig.json');
fs.writeFileSync(
  tsconfig,
  JSON.stringify({ extends: '../../tsconfig.json', compilerOptions: { composite: false, incremental: false, declarationMap: false, rootDir: '../../src' }, include: ['../../src'], exclude: ['../../src/**/*.spec.ts'] }),
);
const generator = path.join(pkg, 'node_modules', '.bin', 'dts-bundle-generator');
execFileSync(generator, ['--silent', '--no-banner', '--export-referenced-types', 'false', '--project', tsconfig, '--external-inlines', '@tracelight/api-schema', '@tracelight/domain', 'io-ts', 'fp-ts', '-o', path.join(out, 'index.d.ts'), '--', path.join(pkg, 'src', 'index.ts')], { stdio: 'inherit' });
fs.rmSync(tsconfig);
fs.copyFileSync(path.join(out, 'index.d.ts'), path.join(out, 'index.d.mts'));
console.log(`client package: ${fs.readdirSync(out).sort().join(', ')} in dist/pkg`);
