// The typed client as someone else's app gets it: the tarball `pnpm pack` makes, installed with npm into a
// scratch project outside this workspace, with no network (npm --offline: the package depends on nothing),
// then used from CommonJS, from an ES module and from TypeScript against a real server.
import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { ADMIN, type RunningServer, startServer } from '../support/server';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-client-package-'));
let tarball: string;
let server: RunningServer;

beforeAll(async () => {
  // `pnpm pack` runs the package's prepack: the bundles and the one declaration file of dist/pkg.
  const packed = execFileSync('pnpm', ['pack', '--pack-destination', scratch], { cwd: path.join(ROOT, 'packages/client'), encoding: 'utf8' });
  tarball = path.join(scratch, path.basename(packed.trim().split('\n').at(-1)!));
  const app = path.join(scratch, 'app');
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'someone-elses-app', private: true }));
  await run('npm', ['install', tarball, '--offline', '--no-audit', '--no-fund'], { cwd: app, env: { ...process.env, npm_config_cache: path.join(scratch, 'npm-cache') } });
  server = await startServer();
});
afterAll(async () => {
  await server?.stop();
  fs.rmSync(scratch, { recursive: true, force: true });
});

const app = () => path.join(scratch, 'app');
/** Runs a file of the scratch app with Node, the server's address and the admin's credentials in its environment. */
const runApp = async (file: string, source: string): Promise<string> => {
  fs.writeFileSync(path.join(app(), file), source);
  const { stdout } = await run(process.execPath, [file], { cwd: app(), env: { PATH: process.env['PATH'] ?? '', URL: server.baseUrl, EMAIL: ADMIN.email, PASSWORD: ADMIN.password } });
  return stdout.trim();
};

describe('the packed client', () => {
  it('holds its two bundles and one declaration file, and depends on nothing', () => {
    const listed = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).trim().split('\n').sort();
    expect(listed).toEqual(['package/LICENSE', 'package/README.md', 'package/dist/pkg/index.cjs', 'package/dist/pkg/index.d.mts', 'package/dist/pkg/index.d.ts', 'package/dist/pkg/index.mjs', 'package/package.json']);
    const manifest = JSON.parse(fs.readFileSync(path.join(app(), 'node_modules/@tracelight/client/package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toMatchObject({ name: '@tracelight/client', license: 'Apache-2.0', main: './dist/pkg/index.cjs', types: './dist/pkg/index.d.ts' });
    expect(manifest['dependencies']).toBeUndefined();
    expect(manifest['peerDependencies']).toBeUndefined();
    // Installed alone: nothing of this workspace, nor io-ts, came with it.
    expect(fs.readdirSync(path.join(app(), 'node_modules')).filter((d) => !d.startsWith('.'))).toEqual(['@tracelight']);
    // No Node module in either bundle: the same code runs in browsers (fetch and the web's built-ins only).
    for (const bundle of ['index.cjs', 'index.mjs']) expect(fs.readFileSync(path.join(app(), 'node_modules/@tracelight/client/dist/pkg', bundle), 'utf8')).not.toMatch(/require\(|from "node:|from 'node:/);
  });

  it('makes its first call from CommonJS', async () => {
    const said = await runApp(
      'first-call.cjs',
      `const { TracelightClient } = require('@tracelight/client');
       const client = new TracelightClient(process.env.URL, { login: { email: process.env.EMAIL, password: process.env.PASSWORD } });
       client.currentUser().then((me) => console.log(me.email, me.role));`,
    );
    expect(said).toBe(`${ADMIN.email} admin`);
  });

  it('sends a trace and finds it again from an ES module', async () => {
    const said = await runApp(
      'send-and-find.mjs',
      `import { TracelightClient } from '@tracelight/client';
       const client = new TracelightClient(process.env.URL, { login: { email: process.env.EMAIL, password: process.env.PASSWORD } });
       const project = await client.createProject({ name: 'someone elses app' });
       const stream = await client.createLogStream(project.id, 'production');
       await client.ingestTraces(project.id, { log_stream_id: stream.id, traces: [{ name: 'greeting', input: 'Hi', output: 'Hello!', spans: [{ type: 'llm', name: 'chat', input: 'Hi', output: 'Hello!', model: 'gpt-4o-mini' }] }] });
       const page = await client.searchTraces(project.id, { log_stream_id: stream.id }, { filters: [{ column_id: 'name', type: 'text', operator: 'eq', value: 'greeting' }] });
       console.log(page.records.map((r) => r.name + ': ' + r.output).join());`,
    );
    expect(said).toBe('greeting: Hello!');
  });

  it('types a TypeScript app from the package alone, and refuses a call that does not fit them', async () => {
    fs.writeFileSync(
      path.join(app(), 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', noEmit: true, skipLibCheck: false, lib: ['es2022', 'dom'], types: [] } }),
    );
    fs.writeFileSync(
      path.join(app(), 'typed.mts'),
      `import { TracelightClient, TracelightError, type Project, type StoredRecord } from '@tracelight/client';
       const client = new TracelightClient('http://127.0.0.1:8088', { apiKey: 'a key' });
       const project: Project = await client.createProject({ name: 'typed' });
       const records: StoredRecord[] = (await client.searchSpans(project.id, { log_stream_id: project.id }, { limit: 10 })).records;
       const named: string = project.name;
       export const seen = [records.length, named, new TracelightError(404, 'not found').status];`,
    );
    await run(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: app() });
    // A misspelt member is an error: the types are the API's, not \`any\`.
    fs.writeFileSync(path.join(app(), 'typed.mts'), `import { TracelightClient } from '@tracelight/client';\nawait new TracelightClient('http://x', { apiKey: 'k' }).createProject({ nmae: 'typo' });\n`);
    const refused = await run(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: app() }).then(() => '', (e: { stdout: string }) => e.stdout);
    expect(refused).toMatch(/typed\.mts\(2,\d+\): error TS\d+: Object literal may only specify known properties, .*'nmae' does not exist/);
  });
});
