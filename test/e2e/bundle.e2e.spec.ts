// The production bundles (`pnpm bundle`, `pnpm bundle:admin`, what the Dockerfile runs): each is a
// directory of compiled code (bundled into a file per thread or process) and its own production
// node_modules, outside this checkout. The server
// started from it serves, uses its writer thread and offload worker, and stops cleanly; the admin CLI
// from its bundle works on the same data.
import { execFile, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { http } from '../support/http';
import { ADMIN, startServer } from '../support/server';
import { E2E_ENGINE } from '../support/storage';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
/** The SQLite driver, as the adapter has it, to read a backup's copy with. */
const BETTER_SQLITE3 = path.join(ROOT, 'adapters', 'sqlite', 'node_modules', 'better-sqlite3');
const out = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-bundle-'));

/**
 * Makes both bundles before the tests are collected, from pnpm's store alone (`--offline`: the packages
 * `pnpm install` put there), so that the suite needs no network. A store that lacks one of them (pruned,
 * say) skips the suite, saying so in one line; any other failure fails it.
 */
const bundled = ((): boolean => {
  for (const [script, dir] of [['bundle', 'server'], ['bundle:admin', 'admin']] as const) {
    const made = spawnSync('pnpm', [script, path.join(out, dir), '--offline'], { cwd: ROOT, encoding: 'utf8' });
    if (made.status === 0) continue;
    const said = `${made.stdout}${made.stderr}`;
    if (/ERR_PNPM_NO_OFFLINE/.test(said)) {
      console.warn(`production bundles skipped: pnpm's store lacks a package they need, and this suite does not use the network (${/ERR_PNPM_NO_OFFLINE\w*/.exec(said)?.[0]})`);
      return false;
    }
    throw new Error(`pnpm ${script} failed:\n${said}`);
  }
  return true;
})();
/**
 * `pnpm deploy` wrote the bins it links (pino's, while the server's production dependencies had it) to the
 * target taken relative to the workspace but resolved from the deployed package's folder (pnpm issues 10981
 * and 11246): from a checkout two folders deep, `<checkout>/tmp/…/server/node_modules/.bin`. Should such a
 * copy be written, it goes too, and the folders of the checkout left empty above it, so that a test run
 * leaves the checkout as it was.
 */
const removeStrayCopy = (dir: string): void => {
  const stray = path.join(ROOT, 'apps', 'server', path.relative(ROOT, dir));
  fs.rmSync(stray, { recursive: true, force: true });
  for (let up = path.dirname(stray); up.startsWith(ROOT + path.sep); up = path.dirname(up)) {
    if (!fs.existsSync(up)) continue;
    if (fs.readdirSync(up).length > 0) break;
    fs.rmdirSync(up);
  }
};
afterAll(() => {
  fs.rmSync(out, { recursive: true, force: true });
  removeStrayCopy(path.join(out, 'server'));
});

/** Every package directory under a bundle's node_modules (pnpm's store layout: `.pnpm/<name>@<version>…`). */
const packagesOf = (bundle: string): string[] => fs.readdirSync(path.join(out, bundle, 'node_modules', '.pnpm'));

(bundled ? describe : describe.skip)('production bundles', () => {
  it('hold compiled code and production dependencies only', () => {
    for (const bundle of ['server', 'admin']) {
      const dev = packagesOf(bundle).filter((p) => /^(jest|typescript|@swc\+|autocannon|testcontainers|fast-check|ajv@|esbuild|@esbuild\+)/.test(p));
      expect([bundle, dev]).toEqual([bundle, []]);
      const ours = fs.readdirSync(path.join(out, bundle, 'node_modules', '.pnpm')).filter((p) => p.startsWith('@tracelight+'));
      // Each one's code is bundled into its dist/ (one file per thread or process): of ours, only the
      // console's built files come beside the server's.
      expect([bundle, ours.map((p) => p.split('@file')[0])]).toEqual([bundle, bundle === 'server' ? ['@tracelight+console'] : []]);
      for (const p of ours) {
        const dir = path.join(out, bundle, 'node_modules', '.pnpm', p, 'node_modules', ...p.split('@file')[0]!.replace('+', '/').split('/'));
        expect([p, fs.readdirSync(dir).sort()]).toEqual([p, ['dist', 'package.json']]);
      }
    }
    // The server's bundles and their source maps; not what tsc compiled them from.
    expect(fs.readdirSync(path.join(out, 'server', 'dist')).sort()).toEqual(
      ['main', 'offload.worker', 'sandbox.child', 'sqlite-search.worker', 'sqlite-writer.worker'].flatMap((f) => [`${f}.js`, `${f}.js.map`]),
    );
    // The admin CLI's, and the process a backup's copy is made in.
    expect(fs.readdirSync(path.join(out, 'admin', 'dist')).sort()).toEqual(['main', 'sqlite-backup.process'].flatMap((f) => [`${f}.js`, `${f}.js.map`]));
  });

  it('serve from outside the checkout: probes, docs, sign-in, an ingest through the offload worker and the writer thread, a code scorer compiled in a sandbox process, then a clean stop; the admin CLI works on the same data', async () => {
    const server = await startServer({ TRACELIGHT_OFFLOAD_MIN_BYTES: '0', TRACELIGHT_SANDBOX_WORKERS: '1' }, undefined, { main: path.join(out, 'server', 'dist', 'main.js') });
    const call = http(server.baseUrl);
    try {
      expect((await call('GET', '/healthcheck')).status).toBe(200);
      expect((await call('GET', '/readyz')).status).toBe(200);
      expect((await call('GET', '/docs/swagger-ui.css')).status).toBe(200);
      // The console's built files come with the server: its page and the script the page names.
      const page = await call('GET', '/console/');
      expect(page.status).toBe(200);
      const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(page.text)?.[1];
      expect((await call('GET', script ?? '/console/assets/missing.js')).status).toBe(200);
      const token = (await call('POST', '/login', { form: { username: ADMIN.email, password: ADMIN.password } })).body.access_token as string;
      const auth = { bearer: token };
      const project = (await call('POST', '/v2/projects', { auth, json: { name: 'bundled' } })).body.id as string;
      const stream = (await call('POST', `/v2/projects/${project}/log_streams`, { auth, json: { name: 'bundled' } })).body.id as string;
      const ingest = await call('POST', `/v2/projects/${project}/traces`, {
        auth,
        json: { log_stream_id: stream, traces: [{ name: 'from the bundle', input: 'in', output: 'out', spans: [{ type: 'llm', name: 'call', input: 'q', output: 'a' }] }] },
      });
      expect(ingest.status).toBe(200);
      const found = await call('POST', `/v2/projects/${project}/traces/search`, { auth, json: { log_stream_id: stream } });
      expect(found.body.records.map((r: { name: string }) => r.name)).toEqual(['from the bundle']);
      // A code scorer's upload is compiled in a sandbox process, which loads Pyodide from the bundle's
      // node_modules: Python read the file (a syntax error names its line), and a good one is stored.
      const scorer = (await call('POST', '/v2/scorers', { auth, json: { name: 'bundled_code', scorer_type: 'code' } })).body.id as string;
      const upload = (code: string) => {
        const form = new FormData();
        form.append('file', new Blob([code]), 'scorer.py');
        return call('POST', `/v2/scorers/${scorer}/version/code`, { auth, multipart: form });
      };
      const refused = await upload('def scorer_fn(**kwargs)\n    return 1\n');
      expect([refused.status, refused.body.detail?.[0]?.msg]).toEqual([422, expect.stringMatching(/^Value error, line 1: SyntaxError: /)]);
      const stored = await upload('def scorer_fn(*, node_output, **kwargs):\n    return len(node_output)\n');
      expect([stored.status, stored.body.version]).toEqual([200, 1]);
      const metrics = (await call('GET', '/metrics')).text;
      expect(metrics).toMatch(/^tracelight_http_offloaded_requests_total\{route="\/v2\/projects\/:project_id\/traces"\} 1$/m);
      // The admin CLI's bundle, on the running server's data: the key it makes works over HTTP.
      const made = await run(process.execPath, [path.join(out, 'admin', 'dist', 'main.js'), 'create-api-key', '--email', ADMIN.email, '--description', 'from the admin bundle'], {
        env: { PATH: process.env['PATH'] ?? '', ...server.storageEnv },
      });
      const apiKey = (JSON.parse(made.stdout) as { api_key: string }).api_key;
      const projects = await call('GET', '/v2/projects', { auth: { apiKey } });
      expect(projects.body.map((p: { id: string }) => p.id)).toContain(project);
      // On SQLite, a backup, copied by the bundle's own process script: the copy holds what was ingested.
      if (E2E_ENGINE === 'sqlite') {
        const copy = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-bundle-backup-')), 'copy.db');
        const backedUp = await run(process.execPath, [path.join(out, 'admin', 'dist', 'main.js'), 'backup', '--out', copy], { env: { PATH: process.env['PATH'] ?? '', ...server.storageEnv } });
        expect(backedUp.stdout).toMatch(/^backed up to .*copy\.db \(\d+ bytes\)/);
        const names = spawnSync(process.execPath, ['-e', `const D = require(${JSON.stringify(BETTER_SQLITE3)}); console.log(new D(process.argv[1], { readonly: true }).prepare("SELECT name FROM log_records WHERE type = 'trace'").pluck().all().join())`, copy], { encoding: 'utf8' });
        expect([names.status, names.stdout.trim()]).toEqual([0, 'from the bundle']);
      }
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});
