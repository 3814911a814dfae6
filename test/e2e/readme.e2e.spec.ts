// The README's quick start and the API page's walk-through, followed word for word against a fresh server:
// each block marked `<!-- readme-test: … -->` / `<!-- docs-test: … -->` is run as written (bash, Node), the
// server's address put in place of http://127.0.0.1:8088, and what it sent is then found through the API.
import { execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { http } from '../support/http';
import { type RunningServer, startServer } from '../support/server';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
/** The admin the README's first command makes. */
const README_ADMIN = { TRACELIGHT_ADMIN_EMAIL: 'admin@example.com', TRACELIGHT_ADMIN_PASSWORD: 'change-me-please' };

/** The code block right after `<!-- <kind>-test: <name> -->` in `file`. */
const block = (file: string, marker: string): string => {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const at = text.indexOf(`<!-- ${marker} -->`);
  if (at < 0) throw new Error(`${file} has no block marked ${marker}`);
  const fenced = /```[a-z]*\n([\s\S]*?)\n```/.exec(text.slice(at));
  return fenced![1]!;
};

let server: RunningServer;
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-readme-'));
beforeAll(async () => {
  server = await startServer(README_ADMIN);
});
afterAll(() => server.stop());

/**
 * Runs shell `script` with bash against `on`: its stdout, stderr and exit code. Its stdin is closed: bash
 * reads ~/.bashrc when its stdin is a socket (as Node's pipes are), taking it for a remote shell.
 */
const bash = (script: string, on: RunningServer = server) =>
  new Promise<{ stdout: string; stderr: string; code: number | null }>((resolve) => {
    const child = spawn('bash', ['-c', script.replaceAll('http://127.0.0.1:8088', on.baseUrl)], { env: { PATH: process.env['PATH'] ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ stdout, stderr, code }));
  });
/** Runs JavaScript `source` with Node, the workspace's packages on its path (what `npm install` would give). */
const node = async (name: string, source: string, env: Record<string, string>) => {
  const file = path.join(work, name);
  fs.writeFileSync(file, source.replaceAll('http://127.0.0.1:8088', server.baseUrl));
  return run(process.execPath, [file], { env: { PATH: process.env['PATH'] ?? '', NODE_PATH: path.join(ROOT, 'node_modules'), ...env } });
};

/** The key, project and log stream the set-up block made, said by its last line. */
const madeBy = (stdout: string) => {
  const m = /^API key (\S+) \(shown once\), project (\S+), log stream (\S+)$/m.exec(stdout);
  if (!m) throw new Error(`the set-up said:\n${stdout}`);
  return { key: m[1]!, project: m[2]!, logStream: m[3]! };
};

describe('the README quick start, as written', () => {
  let made: ReturnType<typeof madeBy>;

  it('sets up, sends a trace and finds it again', async () => {
    const said = await bash([block('README.md', 'readme-test: set-up'), block('README.md', 'readme-test: send'), block('README.md', 'readme-test: find')].join('\n'));
    expect([said.code, said.stderr]).toEqual([0, '']);
    made = madeBy(said.stdout);
    const [, sent, found] = said.stdout.trim().split('\n');
    expect(JSON.parse(sent!)).toMatchObject({ project_name: 'chatbot', log_stream_id: made.logStream, records_count: 2, traces_count: 1, spans_count: 1 });
    expect(JSON.parse(found!).records).toEqual([expect.objectContaining({ type: 'trace', name: 'weather question', input: 'What is the weather in Paris?', output: 'Sunny, 24 °C.', tags: ['quick-start'] })]);
  });

  it('stops at the sign-in on a wrong password, saying why, and sends nothing with an empty token', async () => {
    // A request of its own marks where this test's lines begin: every line before it is logged before it.
    await http(server.baseUrl)('GET', '/healthcheck', { headers: { 'X-Request-Id': 'before-the-wrong-password' } });
    const before = server.output.indexOf(await server.waitForOutput('"request_id":"before-the-wrong-password"')) + 1;
    const said = await bash(block('README.md', 'readme-test: set-up').replace('password=change-me-please', 'password=not-the-password'));
    expect(said.code).toBe(1);
    expect(said.stderr.trim()).toBe('no access_token in: {"detail":"Incorrect username or password"}');
    expect(said.stdout).toBe('');
    // The one request it made was the sign-in (each request logs one line).
    await server.waitForOutput(/"path":"\/login","status":401/);
    const requests = server.output.slice(before).filter((l) => l.includes('"message":"request"'));
    expect(requests.map((l) => (JSON.parse(l) as { path: string }).path)).toEqual(['/login']);
  });

  const tracesOf = async (logStreamName: string) => {
    const call = http(server.baseUrl);
    const auth = { apiKey: made.key };
    const streams = (await call('GET', `/v2/projects/${made.project}/log_streams`, { auth })).body as Array<{ id: string; name: string }>;
    const stream = streams.find((s) => s.name === logStreamName);
    if (!stream) return [];
    return (await call('POST', `/v2/projects/${made.project}/spans/search`, { auth, json: { log_stream_id: stream.id } })).body.records as Array<Record<string, unknown>>;
  };

  it('sends spans from OpenTelemetry, which land in the log stream the headers name', async () => {
    await node('otel.cjs', block('README.md', 'readme-test: opentelemetry'), { KEY: made.key });
    expect(await tracesOf('otel')).toEqual([expect.objectContaining({ type: 'llm', name: 'chat', input: 'Hi', output: 'Hello!', model: 'gpt-4o-mini' })]);
  });

  it('sends a trace from Galileo\'s JS SDK, unchanged', async () => {
    await node('galileo.cjs', block('README.md', 'readme-test: galileo-js'), { GALILEO_API_KEY: made.key, GALILEO_API_URL: server.baseUrl, GALILEO_LOG_LEVEL: 'error' });
    // The SDK sends the LLM call's text as messages.
    expect(await tracesOf('sdk')).toEqual([
      expect.objectContaining({ type: 'llm', input: [{ role: 'user', content: 'Who wrote Les Misérables?' }], output: { role: 'assistant', content: 'Victor Hugo.' }, model: 'gpt-4o-mini' }),
    ]);
  });
});

describe('the API page\'s walk-through of the five operations, as written', () => {
  // A fresh server, as the page starts from the README's first command.
  let fresh: RunningServer;
  beforeAll(async () => {
    fresh = await startServer(README_ADMIN);
  });
  afterAll(() => fresh.stop());

  it('answers each operation as its comments say, and deletes the project at the end', async () => {
    const said = await bash([block('docs/api.md', 'docs-test: walk-through set-up'), block('docs/api.md', 'docs-test: walk-through operations')].join('\n'), fresh);
    expect([said.code, said.stderr]).toEqual([0, '']);
    const lines = said.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const [settings, insights, refreshed, gateway, columns, first, second, deleted] = lines;
    expect(settings).toMatchObject({ scorers: [expect.objectContaining({ version: null })] });
    expect(insights).toMatchObject({ insights: { logstream: { enabled: true, start_time: '2026-11-23T08:00:00.000Z' } } });
    expect(refreshed).toMatchObject({ access_token: expect.any(String), token_type: 'bearer' });
    expect(gateway).toMatchObject({ name: 'gateway', extra: { endpoint: 'https://gateway.example.com/relay', use_case: 'CUSTOMER_SUPPORT' } });
    expect(JSON.stringify(gateway)).not.toContain('<GATEWAY_TOKEN>');
    const ids = (columns!['columns'] as Array<{ id: string }>).map((c) => c.id);
    expect([ids.length, ids.at(-1)]).toEqual([35, 'metrics/toxicity']);
    expect([(first!['versions'] as Array<{ version: number }>).map((v) => v.version), first!['next_starting_token']]).toEqual([[1, 2], 2]);
    expect([(second!['versions'] as Array<{ version: number }>).map((v) => v.version), second!['next_starting_token']]).toEqual([[3], null]);
    expect(deleted).toEqual({ message: 'Project deleted' });
  });
});
