// The typed client against the running server: the whole flow, the four schemes, token renewal,
// timeouts and errors. Where a failure has to be provoked (a refresh that gets no answer, a response
// that arrives late) a fetch wrapper does it, or a proxy in front of the server that answers 503 for
// it; everything else is the real server's answer. Token renewal and backoff run on a fake clock given
// to the client, moved forward by the tests instead of waiting.
import { execFile } from 'node:child_process';
import * as net from 'node:net';
import * as zlib from 'node:zlib';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { TracelightClient, TracelightError } from '@tracelight/client';
import * as ts from 'typescript';
import { startFailingProxy } from '../support/proxy';
import { ADMIN, type RunningServer, startServer } from '../support/server';
import { startWorld, type World } from '../support/world';

const ROOT = path.resolve(__dirname, '../..');
const CLI = path.join(ROOT, 'apps/cli/dist/main.js');

/** The short world's tokens live 40 s, so that a quarter of their lifetime (10 s) is under the client's 30 s cap… */
const TOKEN_TTL = 40;
/** …and its sessions (the refresh cookie) 120 s. */
const SESSION_TTL = 120;
/** The client refreshes a token once it is in its last quarter… */
const REFRESH_AT = TOKEN_TTL * 0.75;
/** …and holds it spent a second before its lifetime runs out: its iat is rounded down to the second. */
const SPENT_AT = TOKEN_TTL - 1;

let w: World;
/**
 * Short-lived tokens and sessions, and revocation seen at once. The tests move the client's clock through
 * a token's lifetime in an instant of real time: 40 s is far longer than a test takes on a loaded machine,
 * so no token really expires under a test (none of them needs the server to refuse an expired one).
 */
let short: World;
beforeAll(async () => {
  [w, short] = await Promise.all([
    startWorld(),
    startWorld({ TRACELIGHT_TOKEN_TTL_SECONDS: String(TOKEN_TTL), TRACELIGHT_REFRESH_TOKEN_TTL_SECONDS: String(SESSION_TTL), TRACELIGHT_CREDENTIAL_CACHE_MS: '0' }),
  ]);
});
afterAll(() => Promise.all([w.server.stop(), short.server.stop()]));

/**
 * The client's clock (ClientOptions.now) in the tests of tokens and waits: it stands still until the test
 * sets it, so a token's age or a backoff's wait is what the test says, however long the real exchanges
 * take. It starts at the real time, or `skew` seconds off it: the client never reads the server's clock
 * against its own.
 */
const fakeClock = (skew = 0) => {
  const start = Date.now() + skew * 1000;
  let at = start;
  return {
    now: () => at,
    /** Sets the clock to `seconds` after its start (never back). */
    at: (seconds: number) => {
      at = Math.max(at, start + seconds * 1000);
    },
    /** Seconds since its start. */
    elapsed: () => (at - start) / 1000,
  };
};
const claimsOf = (token: string | undefined): { iat: number; exp: number } =>
  JSON.parse(Buffer.from(token?.split('.')[1] ?? '', 'base64url').toString('utf8')) as { iat: number; exp: number };
const unique = (prefix: string) => `${prefix}-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;
const failureOf = (call: Promise<unknown>): Promise<TracelightError> =>
  call.then(
    () => {
      throw new Error('the call succeeded');
    },
    (e: unknown) => e as TracelightError,
  );

interface Sent {
  readonly path: string;
  readonly token: string | undefined;
  readonly body: RequestInit['body'];
  readonly headers: Headers;
  /** The refresh cookie its answer set (`refresh_token=…`), once the answer has come. */
  setCookie?: string | undefined;
  /** The answer's status, once it has come. */
  status?: number;
}
/**
 * A fetch that notes each request (path, bearer token, body, headers) and the refresh cookie its answer
 * set, and hands it to `send`, the real server by default.
 */
const recording = (baseUrl: string, send: (path: string, input: string, init: RequestInit | undefined) => Promise<Response> = (_, input, init) => fetch(input, init)) => {
  const sent: Sent[] = [];
  const impl: typeof fetch = async (input, init) => {
    const url = String(input);
    const path = url.replace(baseUrl, '');
    const headers = new Headers(init?.headers);
    const entry: Sent = { path, token: headers.get('authorization')?.replace(/^Bearer /, ''), body: init?.body, headers };
    sent.push(entry);
    const res = await send(path, url, init);
    entry.setCookie = res.headers.getSetCookie().find((c) => c.startsWith('refresh_token='))?.split(';')[0];
    entry.status = res.status;
    return res;
  };
  return { sent, fetch: impl, paths: () => sent.map((s) => s.path) };
};

/** A port nothing listens on: connecting to it is refused. */
const closedPort = async (): Promise<number> => {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
};

/** Freezes the server: connections are still accepted, nothing answers. Thawed by the returned function, or after 10 s. */
const freeze = (server: RunningServer): (() => void) => {
  process.kill(server.pid, 'SIGSTOP');
  const thaw = () => {
    clearTimeout(timer);
    process.kill(server.pid, 'SIGCONT');
  };
  const timer = setTimeout(thaw, 10_000);
  return thaw;
};

const revokeSessions = (server: RunningServer, email: string) =>
  promisify(execFile)(process.execPath, [CLI, 'revoke-sessions', '--email', email], { env: { PATH: process.env['PATH'] ?? '', ...server.storageEnv } });

/** Protobuf's wire format, as much of it as an OTLP export of one span takes. */
const varint = (n: number): Buffer => {
  const out: number[] = [];
  for (; n > 0x7f; n >>>= 7) out.push((n & 0x7f) | 0x80);
  return Buffer.from([...out, n]);
};
const delimited = (field: number, value: Uint8Array | string): Buffer => {
  const bytes = Buffer.from(value);
  return Buffer.concat([varint((field << 3) | 2), varint(bytes.length), bytes]);
};
const fixed64 = (field: number, value: bigint): Buffer => {
  const bytes = Buffer.alloc(9);
  bytes[0] = (field << 3) | 1;
  bytes.writeBigUInt64LE(value, 1);
  return bytes;
};
interface OtelSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly name: string;
  readonly startNs: bigint;
}
/** ExportTraceServiceRequest → ResourceSpans (2: scopeSpans) → ScopeSpans (2: spans) → Span. */
const otlpProtobuf = (span: OtelSpan): Buffer =>
  delimited(1, delimited(2, delimited(2, Buffer.concat([
    delimited(1, Buffer.from(span.traceId, 'hex')),
    delimited(2, Buffer.from(span.spanId, 'hex')),
    delimited(5, span.name),
    fixed64(7, span.startNs),
    fixed64(8, span.startNs + 1_000_000n),
  ]))));
const otlpJson = (span: OtelSpan) => ({
  resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: span.traceId, spanId: span.spanId, name: span.name, startTimeUnixNano: String(span.startNs), endTimeUnixNano: String(span.startNs + 1_000_000n) }] }] }],
});
const randomHex = (bytes: number) => Buffer.from(Array.from({ length: bytes }, () => Math.floor(Math.random() * 256))).toString('hex');

/**
 * The lines of `source` on which TypeScript reports an error, compiled against the built client's
 * declarations. Jest strips types without checking them, so this is how a test sees the client's types.
 */
const lineOfTypeErrors = (source: string): number[] => {
  const file = path.join(ROOT, 'test/e2e/client-types.check.ts');
  const options: ts.CompilerOptions = {
    strict: true,
    exactOptionalPropertyTypes: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: ['node'],
    typeRoots: [path.join(ROOT, 'node_modules/@types')],
    baseUrl: ROOT,
    paths: { '@tracelight/client': ['packages/client/dist/index.d.ts'] },
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.readFile = (name) => (name === file ? source : readFile(name));
  host.fileExists = (name) => name === file || fileExists(name);
  const program = ts.createProgram([file], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => (d.file?.fileName === file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : -1));
};

describe('TracelightClient', () => {
  it('walks the spec operations with every credential scheme', async () => {
    const admin = new TracelightClient(w.server.baseUrl, { login: { email: ADMIN.email, password: ADMIN.password } });
    const { api_key } = await admin.createApiKey({ description: 'client' });
    const clients = [
      admin,
      new TracelightClient(w.server.baseUrl, { apiKey: api_key }),
      new TracelightClient(w.server.baseUrl, { apiKey: api_key, header: 'Service-AO-API-Key' }),
      new TracelightClient(w.server.baseUrl, { bearer: (await admin.login(ADMIN.email, ADMIN.password)).access_token }),
      new TracelightClient(w.server.baseUrl, { basic: { email: ADMIN.email, password: ADMIN.password } }),
    ];
    for (const [i, c] of clients.entries()) {
      const project = await c.createProject({ name: `client-${i}-${Date.now()}` });
      const stream = await c.createLogStream(project.id, 'prod');
      expect((await c.upsertInsights(project.id, stream.id, { insights: { logstream: { enabled: true } } })).insights.logstream.enabled).toBe(true);
      expect((await c.upsertGatewayIntegration({ token: 'secret', endpoint: 'https://gw.example.com/x', use_case: 'CLIENT' })).provider).toBe('gateway');
      const scorer = await c.createScorer({ name: `s-${i}-${Date.now()}`, scorer_type: 'llm' });
      await c.createLlmVersion(scorer.id, { instructions: 'judge' });
      await c.createCodeVersion(scorer.id, 'scorer.py', 'def scorer_fn(**kw):\n    return 1\n');
      await c.setRunScorers(project.id, stream.id, [{ scorer_id: scorer.id }]);
      expect((await c.availableColumns(project.id, { log_stream_id: stream.id })).columns).toHaveLength(35);
      expect((await c.listScorerVersions(scorer.id, { limit: 1 })).next_starting_token).toBe(1);
      await c.ingestTraces(project.id, { log_stream_id: stream.id, traces: [{ input: 'hi', output: 'hello', spans: [{ type: 'llm', input: 'hi' }] }] });
      expect((await c.searchSpans(project.id, { log_stream_id: stream.id })).records).toHaveLength(1);
    }
  });

  it('reaches run scorer settings, a code version’s source, session search, readiness and runs by name', async () => {
    const rec = recording(w.server.baseUrl);
    const c = new TracelightClient(w.server.baseUrl, { bearer: w.adminToken }, { fetch: rec.fetch });
    expect(await c.readyz()).toEqual({ status: 'ready' });

    const project = await c.createProject({ name: unique('client-routes'), type: 'llm_monitor', create_example_templates: false });
    expect(project.type).toBe('llm_monitor');
    const stream = await c.createLogStream(project.id, 'prod');
    await c.createLogStream(project.id, 'staging');
    expect((await c.listLogStreams(project.id, { name: 'prod' })).map((r) => r.id)).toEqual([stream.id]);
    const experiment = await c.createExperiment(project.id, 'nightly');
    await c.createExperiment(project.id, 'weekly');
    expect((await c.listExperiments(project.id, { name: 'nightly' })).map((r) => r.id)).toEqual([experiment.id]);

    const scorer = await c.createScorer({ name: unique('code-scorer'), scorer_type: 'code' });
    const source = 'def scorer_fn(**kw):\n    return 1\n';
    const version = await c.createCodeVersion(scorer.id, 'scorer.py', source, { validation_result: '{"result":"ok"}', scoreable_node_types: ['llm', 'tool'] });
    expect(version.scoreable_node_types).toEqual(['llm', 'tool']);
    // The server keeps validation_result without showing it: look at the form the client sent.
    const form = rec.sent.find((s) => s.path === `/v2/scorers/${scorer.id}/version/code`)?.body as FormData;
    expect(form.get('validation_result')).toBe('{"result":"ok"}');
    expect(await c.getScorerCode(scorer.id)).toBe(source);

    expect(await c.getRunScorers(project.id, stream.id)).toEqual({ run_id: stream.id, scorers: [] });
    await c.setRunScorers(project.id, stream.id, [{ scorer_id: scorer.id, version: 1 }]);
    expect(await c.getRunScorers(project.id, stream.id)).toEqual({ run_id: stream.id, scorers: [{ scorer_id: scorer.id, version: 1, sample_rate: 1 }] });

    const first = await c.createSession(project.id, { log_stream_id: stream.id, name: 'first' });
    const second = await c.createSession(project.id, {
      log_stream_id: stream.id,
      name: 'second',
      previous_session_id: first.id,
      user_metadata: { team: 'search' },
    });
    const sessions = await c.searchSessions(project.id, { log_stream_id: stream.id }, { sort: { column_id: 'created_at', ascending: true } });
    expect(sessions.records.map((r) => r['id'])).toEqual([first.id, second.id]);
    expect(sessions.records[1]).toMatchObject({ name: 'second', user_metadata: { team: 'search' } });
  });

  it('ingests traces with every field the request codec takes, and answers as the response codec (and so the OpenAPI document) says', async () => {
    const c = new TracelightClient(w.server.baseUrl, { bearer: w.adminToken });
    const project = await c.createProject({ name: unique('client-ingest') });
    const stream = await c.createLogStream(project.id, 'prod');
    const experiment = await c.createExperiment(project.id, 'nightly');
    const traceIds = [crypto.randomUUID(), crypto.randomUUID()];
    const logged = await c.ingestTraces(project.id, {
      log_stream_id: stream.id,
      reliable: true,
      client_version: '1.33.1',
      logging_method: 'typescript_client',
      is_complete: true,
      include_trace_ids: true,
      traces: traceIds.map((id, i) => ({
        id,
        input: `question ${i}`,
        created_at: i === 0 ? '2026-01-01T10:00:00+02:00' : new Date('2026-01-01T09:00:00Z'),
        spans: [{ type: 'llm' as const, input: 'q', model: 'gpt-4o-mini', metrics: { num_input_tokens: 3 } }],
      })),
    });
    expect(logged).toEqual({ project_id: project.id, project_name: project.name, log_stream_id: stream.id, session_id: null, records_count: 4, traces_count: 2, spans_count: 2, trace_ids: traceIds });
    // A timestamp given as text with its offset, or as a Date.
    const traces = await c.searchTraces(project.id, { log_stream_id: stream.id }, { sort: { column_id: 'created_at', ascending: true } });
    expect(traces.records.map((r) => [r.id, r.created_at])).toEqual([
      [traceIds[0], '2026-01-01T08:00:00.000Z'],
      [traceIds[1], '2026-01-01T09:00:00.000Z'],
    ]);

    const experimented = await c.ingestTraces(project.id, { experiment_id: experiment.id, traces: [{ input: 'x' }] });
    expect(experimented).toEqual({ project_id: project.id, project_name: project.name, experiment_id: experiment.id, session_id: null, records_count: 1, traces_count: 1, spans_count: 0 });

    // The document the server serves, generated from the response codec, names every field answered.
    const doc = (await (await fetch(`${w.server.baseUrl}/openapi.json`)).json()) as { components: { schemas: Record<string, { properties: object; required: string[] }> } };
    const schema = doc.components.schemas['LogTracesIngestResponse'];
    expect(Object.keys(schema?.properties ?? {}).sort()).toEqual(
      ['project_id', 'project_name', 'session_id', 'records_count', 'traces_count', 'spans_count', 'log_stream_id', 'experiment_id', 'metrics_testing_id', 'trace_ids'].sort(),
    );
    expect(schema?.required).toEqual(['project_id', 'project_name', 'session_id', 'records_count', 'traces_count', 'spans_count']);
  });

  it('reaches the routes the origin’s SDKs add: projects/all, experiments’ task types, immediate mode, scorers/list and export_records', async () => {
    const c = new TracelightClient(w.server.baseUrl, { bearer: w.adminToken });
    const project = await c.createProject({ name: unique('client-sdk-routes') });
    expect((await c.listAllProjects({ type: 'gen_ai' })).map((p) => p.id)).toContain(project.id);
    expect((await c.createExperiment(project.id, 'typed', { task_type: 7 })).task_type).toBe(7);
    expect((await c.listExperiments(project.id)).map((e) => e.task_type)).toEqual([7]);
    const stream = await c.createLogStream(project.id, 'live');
    const run = { log_stream_id: stream.id };
    const [traceId, spanId] = [crypto.randomUUID(), crypto.randomUUID()];
    expect(await c.appendSpans(project.id, run, { trace_id: traceId, parent_id: traceId, spans: [{ type: 'tool', id: spanId, created_at: '2026-01-01T00:00:00.000007Z' }] })).toMatchObject({ trace_id: traceId, records_count: 1 });
    await c.ingestTraces(project.id, { ...run, traces: [{ id: traceId, input: 'q' }], is_complete: false });
    expect(await c.updateSpan(project.id, run, spanId, { output: 'found' })).toMatchObject({ span_id: spanId });
    expect(await c.updateTrace(project.id, run, traceId, { output: 'a', is_complete: true, tags: ['done'] })).toMatchObject({ trace_id: traceId, project_name: project.name });
    const lines = (await c.exportRecords(project.id, run, { root_type: 'span', column_ids: ['id', 'output', 'created_at'] })).trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toEqual([{ id: spanId, output: 'found', created_at: '2026-01-01T00:00:00.000007Z' }]);
    const scorer = await c.createScorer({ name: unique('client-listed'), scorer_type: 'code' });
    const page = await c.searchScorers({ filters: [{ name: 'name', operator: 'eq', value: scorer.name }] }, { limit: 10 });
    expect(page.scorers.map((s) => s.id)).toEqual([scorer.id]);
  });

  it('types roles, project types and request fields as the codecs do', () => {
    const source = [
      "import { TracelightClient } from '@tracelight/client';",
      'declare const c: TracelightClient;',
      "void c.createProject({ name: 'p', type: 'llm_monitor', create_example_templates: true });",
      "void c.createProject({ name: 'p', type: 'chat' }); // ✗",
      "void c.listProjects({ type: 'prompt_evaluation' });",
      "void c.listProjects({ type: 'chat' }); // ✗",
      "void c.createUser({ email: 'a@example.com', password: 'long enough', role: 'read_only' });",
      "void c.createUser({ email: 'a@example.com', password: 'long enough', role: 'god' }); // ✗",
      "void c.createSession('p', { log_stream_id: 'r', previous_session_id: 's', user_metadata: { team: 't' } });",
      "void c.createCodeVersion('s', 'f.py', 'code', { validation_result: '{}', scoreable_node_types: ['llm'] });",
      "void c.listLogStreams('p', { name: 'prod' }, { signal: AbortSignal.timeout(1000) });",
      "void c.ingestTraces('p', { log_stream_id: 'r', traces: [], reliable: true, client_version: '1.33.1', logging_method: 'typescript_client', is_complete: false, include_trace_ids: true, session_id: null });",
      "void c.ingestTraces('p', { experiment_id: 'r', traces: [{ created_at: '2026-01-01T10:00:00+02:00', user_metadata: { k: 'v' }, spans: [{ type: 'llm', created_at: new Date(), metrics: { num_input_tokens: 3 }, spans: [{ type: 'tool' }] }] }] });",
      "void c.ingestTraces('p', { log_stream_id: 'r', traces: [{ spans: [{ type: 'chat' }] }] }); // ✗",
      "void c.ingestTraces('p', { log_stream_id: 'r', traces: [], reliable: 'yes' }); // ✗",
      "void c.ingestTraces('p', { traces: [] }); // ✗",
      "void c.ingestTraces('p', { log_stream_id: 'r', traces: [] }).then((r) => [r.project_id, r.log_stream_id, r.experiment_id, r.metrics_testing_id, r.trace_ids?.[0], r.records_count]);",
      "void c.ingestTraces('p', { log_stream_id: 'r', traces: [] }).then((r) => r.run_id); // ✗",
      "void new TracelightClient('http://h', { apiKey: 'k', header: 'Galileo-API-Key' });",
      "void new TracelightClient('http://h', { apiKey: 'k', header: 'X-API-Key' }); // ✗",
      "void new TracelightClient('http://h', { login: { apiKey: 'k' } });",
      "void new TracelightClient('http://h', { login: { email: 'a@example.com' } }); // ✗",
      "void c.exportOtlpTraces({ project: 'p', logstream: 'l' }, new Uint8Array(0));",
      "void c.exportOtlpTraces({ project: 'p', logstream: 'l', path: '/otel/traces' }, { resourceSpans: [] });",
      "void c.exportOtlpTraces({ project: 'p' }, { resourceSpans: [] }); // ✗",
      "void c.exportOtlpTraces({ project: 'p', logstream: 'l', path: '/v2/traces' }, { resourceSpans: [] }); // ✗",
      "void c.exportOtlpTraces({ project: 'p', logstream: 'l' }, 'bytes'); // ✗",
      "void c.searchSpans('p', { log_stream_id: 'r' }, { filters: [{ column_id: 'name', type: 'text', operator: 'contains', value: 'x', case_sensitive: true }, { column_id: 'created_at', type: 'date', operator: 'between', value: [new Date(), '2026-01-01T00:00:00Z'] }], sort: { column_id: 'created_at' } });",
      "void c.searchSpans('p', { log_stream_id: 'r' }, { filters: [{ column_id: 'name', type: 'text', operator: 'gt', value: 'x' }] }); // ✗",
      "void c.searchSpans('p', { log_stream_id: 'r' }, { filters: [{ column_id: 'status_code', type: 'number', operator: 'gte', value: '500' }] }); // ✗",
      "void c.searchSpans('p', { log_stream_id: 'r' }, { limit: '10' }); // ✗",
      "void c.createSession('p', { log_stream_id: 'r', name: 'n', previous_session_id: null, user_metadata: { k: 'v' } });",
      "void c.createSession('p', { log_stream_id: 'r', user_metadata: { k: 1 } }); // ✗",
      'const code: Promise<string> = c.getScorerCode(\'s\');',
      'void code;',
    ].join('\n');
    const marked = source.split('\n').flatMap((line, i) => (line.endsWith('// ✗') ? [i + 1] : []));
    expect(lineOfTypeErrors(source)).toEqual(marked);
  });

  it('exports OTLP traces as protobuf or JSON, at either path, into the log stream its headers name; OTLP errors are TracelightErrors', async () => {
    const { api_key } = await w.client.createApiKey({ description: 'otlp' });
    const rec = recording(w.server.baseUrl);
    const c = new TracelightClient(w.server.baseUrl, { apiKey: api_key }, { fetch: rec.fetch });
    const project = await c.createProject({ name: unique('client-otlp') });
    const span = (name: string): OtelSpan => ({ traceId: randomHex(16), spanId: randomHex(8), name, startNs: BigInt(Date.now()) * 1_000_000n });
    const [proto, json] = [span('sent as protobuf'), span('sent as JSON')];

    expect(await c.exportOtlpTraces({ project: project.id, logstream: 'proto' }, otlpProtobuf(proto))).toEqual({});
    expect(await c.exportOtlpTraces({ project: project.name, logstream: 'json', path: '/otel/traces' }, otlpJson(json))).toEqual({});
    const exports = rec.sent.filter((s) => s.path.endsWith('/traces'));
    expect(exports.map((s) => [s.path, s.headers.get('content-type'), s.headers.get('project'), s.headers.get('logstream'), s.headers.get('service-api-key')])).toEqual([
      ['/v1/traces', 'application/x-protobuf', project.id, 'proto', api_key],
      ['/otel/traces', 'application/json', project.name, 'json', api_key],
    ]);
    for (const [logstream, sent] of [['proto', proto], ['json', json]] as const) {
      const streams = await c.listLogStreams(project.id, { name: logstream });
      expect(streams).toHaveLength(1);
      const spans = await c.searchSpans(project.id, { log_stream_id: streams[0]!.id });
      expect(spans.records.map((r) => [r.name, r.trace_id])).toEqual([[sent.name, expect.stringMatching(new RegExp(`^${sent.traceId.slice(0, 8)}-`))]]);
    }

    // Errors come as a google.rpc.Status, in the request's encoding: its message is the detail.
    const nowhere = { project: unique('no-such-project'), logstream: 'x' };
    expect(await failureOf(c.exportOtlpTraces(nowhere, otlpJson(span('lost'))))).toMatchObject({ status: 404, detail: 'Project not found' });
    expect(await failureOf(c.exportOtlpTraces(nowhere, otlpProtobuf(span('lost'))))).toMatchObject({ status: 404, detail: 'Project not found' });
    const garbled = await failureOf(c.exportOtlpTraces({ project: project.id, logstream: 'proto' }, Buffer.from([0x0a, 0xff, 0xff, 0xff])));
    expect(garbled).toBeInstanceOf(TracelightError);
    expect([garbled.status, garbled.detail]).toEqual([400, expect.stringMatching(/^body: Value error, not an OTLP protobuf trace export: /)]);
    const anonymous = new TracelightClient(w.server.baseUrl, { apiKey: 'not a key' });
    expect(await failureOf(anonymous.exportOtlpTraces({ project: project.id, logstream: 'proto' }, otlpProtobuf(span('refused'))))).toMatchObject({ status: 401 });
  });

  it('sends trace ingestion and OTLP exports gzip-compressed when asked, and the server stores what was compressed', async () => {
    const { api_key } = await w.client.createApiKey({ description: 'gzip' });
    const rec = recording(w.server.baseUrl);
    const c = new TracelightClient(w.server.baseUrl, { apiKey: api_key }, { fetch: rec.fetch });
    const project = await c.createProject({ name: unique('client-gzip') });
    const stream = await c.createLogStream(project.id, 'prod');
    const ingest = { log_stream_id: stream.id, traces: [{ input: 'a question asked again and again '.repeat(200), output: 'gzipped' }] };
    expect(await c.ingestTraces(project.id, ingest, { gzip: true })).toMatchObject({ records_count: 1 });
    const otel: OtelSpan = { traceId: randomHex(16), spanId: randomHex(8), name: 'gzipped protobuf', startNs: BigInt(Date.now()) * 1_000_000n };
    expect(await c.exportOtlpTraces({ project: project.id, logstream: 'gzipped' }, otlpProtobuf(otel), { gzip: true })).toEqual({});

    const [sentIngest, sentOtlp] = rec.sent.filter((s) => s.path.endsWith('/traces'));
    for (const [sent, type, original] of [
      [sentIngest, 'application/json', Buffer.from(JSON.stringify(ingest))],
      [sentOtlp, 'application/x-protobuf', Buffer.from(otlpProtobuf(otel))],
    ] as const) {
      expect([sent!.headers.get('content-encoding'), sent!.headers.get('content-type')]).toEqual(['gzip', type]);
      expect(zlib.gunzipSync(sent!.body as Uint8Array)).toEqual(original);
    }
    expect((sentIngest!.body as Uint8Array).byteLength).toBeLessThan(JSON.stringify(ingest).length / 10);
    const stored = await c.searchTraces(project.id, { log_stream_id: stream.id });
    expect(stored.records.map((r) => [r.input, r.output])).toEqual([[ingest.traces[0]!.input, 'gzipped']]);
    const [otlpStream] = await c.listLogStreams(project.id, { name: 'gzipped' });
    expect((await c.searchSpans(project.id, { log_stream_id: otlpStream!.id })).records.map((r) => r.name)).toEqual(['gzipped protobuf']);
    // Without the option, bodies go as they are.
    await c.ingestTraces(project.id, { log_stream_id: stream.id, traces: [{ input: 'plain' }] });
    expect(rec.sent.at(-1)!.headers.get('content-encoding')).toBeNull();
  });

  it('sends an API key under the header it is told: the spec’s two, or the SDKs’ aliases the server takes', async () => {
    const { api_key } = await w.client.createApiKey({ description: 'aliases' });
    for (const header of ['Service-API-Key', 'Service-AO-API-Key', 'Galileo-API-Key', 'Splunk-AO-API-Key'] as const) {
      const rec = recording(w.server.baseUrl);
      const c = new TracelightClient(w.server.baseUrl, { apiKey: api_key, header }, { fetch: rec.fetch });
      expect((await c.currentUser()).email).toBe(ADMIN.email);
      expect([...rec.sent[0]!.headers.entries()]).toEqual([[header.toLowerCase(), api_key]]);
    }
  });

  it('bounds every exchange: a timeout, an aborted call and a refused connection are TracelightErrors with status 0', async () => {
    const { api_key } = await w.client.createApiKey({ description: 'frozen' });
    const keyed = new TracelightClient(w.server.baseUrl, { apiKey: api_key }, { timeoutMs: 300 });
    const signingIn = new TracelightClient(w.server.baseUrl, { login: ADMIN }, { timeoutMs: 300 });
    const patient = new TracelightClient(w.server.baseUrl, { apiKey: api_key });
    const thaw = freeze(w.server);
    try {
      const timedOut = await failureOf(keyed.listProjects());
      expect(timedOut).toBeInstanceOf(TracelightError);
      expect(timedOut).toMatchObject({ name: 'TracelightError', status: 0, detail: 'timed out after 300 ms' });
      expect(await failureOf(signingIn.currentUser())).toMatchObject({ status: 0, detail: 'timed out after 300 ms' });
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 200);
      expect(await failureOf(patient.listProjects({}, { signal: controller.signal }))).toMatchObject({ status: 0, detail: 'the call was aborted' });
    } finally {
      thaw();
    }
    expect(await keyed.listProjects()).toEqual(expect.any(Array));

    const nowhere = new TracelightClient(`http://127.0.0.1:${await closedPort()}`, { apiKey: api_key });
    const refused = await failureOf(nowhere.healthcheck());
    expect(refused).toBeInstanceOf(TracelightError);
    expect(refused).toMatchObject({ status: 0, detail: expect.stringMatching(/^network error: connect ECONNREFUSED/) });
  });

  it('reports errors as TracelightError, with Retry-After on a 429; a trailing slash on the base URL is fine', async () => {
    const slashed = new TracelightClient(`${w.server.baseUrl}/`, { bearer: w.adminToken });
    expect((await slashed.currentUser()).email).toBe(ADMIN.email);

    const error = await failureOf(slashed.getProject('not-a-uuid'));
    expect(error).toBeInstanceOf(TracelightError);
    expect(error.name).toBe('TracelightError');
    expect(error.status).toBe(422);
    expect(error.retryAfter).toBeUndefined();
    expect(error.detail).toEqual([expect.objectContaining({ loc: ['path', 'project_id'], type: 'uuid_parsing' })]);

    const limited = await startServer({ TRACELIGHT_RATE_LIMIT_PER_MINUTE: '1' });
    try {
      const c = new TracelightClient(limited.baseUrl, { basic: ADMIN });
      await c.currentUser();
      const tooMany = await failureOf(c.currentUser());
      expect(tooMany).toMatchObject({ name: 'TracelightError', status: 429, detail: 'Too many requests' });
      expect(tooMany.retryAfter).toBeGreaterThanOrEqual(1);
      expect(tooMany.retryAfter).toBeLessThanOrEqual(60);
    } finally {
      await limited.stop();
    }
  });

  it('runs where there is no Node Buffer (a browser): Basic with a UTF-8 password, and a login token refreshed only near its expiry', async () => {
    const password = 'pässwörd 🔑 long enough';
    const email = `${unique('nobuffer')}@example.com`;
    await w.client.createUser({ email, password });
    // A process of its own, where the client's modules see no Buffer (Node's own fetch still needs the global one).
    const dist = path.join(ROOT, 'packages/client/dist');
    const script = `
      const Module = require('node:module');
      const compile = Module.prototype._compile;
      Module.prototype._compile = function (content, filename) {
        return compile.call(this, filename.startsWith(${JSON.stringify(dist + path.sep)}) ? '"use strict";var Buffer = undefined;' + content : content, filename);
      };
      const { TracelightClient } = require(${JSON.stringify(path.join(dist, 'index.js'))});
      const base = ${JSON.stringify(w.server.baseUrl)};
      const paths = [];
      const fetchSeen = (url, init) => (paths.push(new URL(url).pathname), fetch(url, init));
      (async () => {
        const basic = new TracelightClient(base, { basic: { email: ${JSON.stringify(email)}, password: ${JSON.stringify(password)} } });
        const me = await basic.currentUser();
        const login = new TracelightClient(base, { login: { email: ${JSON.stringify(email)}, password: ${JSON.stringify(password)} } }, { fetch: fetchSeen });
        for (let i = 0; i < 3; i++) await login.currentUser();
        process.stdout.write(JSON.stringify({ basic: me.email, paths }));
      })().catch((e) => { process.stderr.write(String(e && e.stack || e)); process.exit(1); });`;
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', script]);
    expect(JSON.parse(stdout)).toEqual({ basic: email, paths: ['/login', '/v2/current_user', '/v2/current_user', '/v2/current_user'] });
  });

  it('goes on with the token refreshToken() returns', async () => {
    const rec = recording(w.server.baseUrl);
    const c = new TracelightClient(w.server.baseUrl, { login: ADMIN }, { fetch: rec.fetch });
    await c.currentUser();
    const { access_token } = await c.refreshToken();
    await c.currentUser();
    expect(rec.paths()).toEqual(['/login', '/v2/current_user', '/v2/refresh_token', '/v2/current_user']);
    expect(access_token).not.toBe(rec.sent[1]?.token);
    expect(rec.sent[3]?.token).toBe(access_token);
  });

  it('refreshes a login token in the last quarter of its lifetime, and at most 30 s before its end, not on every request', async () => {
    const clock = fakeClock();
    const rec = recording(short.server.baseUrl);
    const c = new TracelightClient(short.server.baseUrl, { login: ADMIN }, { fetch: rec.fetch, now: clock.now });
    await c.listProjects();
    clock.at(REFRESH_AT - 0.1);
    await c.listProjects();
    expect(rec.paths()).toEqual(['/login', '/v2/projects', '/v2/projects']);
    // Past 30 s of its 40 the token is within its last quarter, and not yet spent.
    clock.at(REFRESH_AT + 0.05);
    await c.listProjects();
    expect(rec.paths()).toEqual(['/login', '/v2/projects', '/v2/projects', '/v2/refresh_token', '/v2/projects']);
    expect(rec.sent[4]?.token).not.toBe(rec.sent[2]?.token);

    // An hour's token (the other world's) is refreshed 30 s before its lifetime runs out, not in its last quarter.
    const hourly = fakeClock();
    const hourlyRec = recording(w.server.baseUrl);
    const h = new TracelightClient(w.server.baseUrl, { login: ADMIN }, { fetch: hourlyRec.fetch, now: hourly.now });
    await h.listProjects();
    hourly.at(3600 - 30 - 0.1);
    await h.listProjects();
    hourly.at(3600 - 30 + 0.05);
    await h.listProjects();
    expect(hourlyRec.paths()).toEqual(['/login', '/v2/projects', '/v2/projects', '/v2/refresh_token', '/v2/projects']);
  });

  it.each([
    ['an hour ahead of', 3600],
    ['an hour behind', -3600],
  ])('keeps time on its own clock, %s the server’s: refreshes in the last quarter, and never sends a spent token or cookie', async (_, skew) => {
    const clock = fakeClock(skew);
    const rec = recording(short.server.baseUrl);
    const c = new TracelightClient(short.server.baseUrl, { login: ADMIN }, { fetch: rec.fetch, now: clock.now });
    await c.listProjects();
    clock.at(REFRESH_AT - 0.1);
    await c.listProjects();
    clock.at(REFRESH_AT + 0.05);
    await c.listProjects();
    // The refreshed token is timed from its refresh: once it is spent, the sign-in's cookie renews it.
    const refreshed = clock.elapsed();
    clock.at(refreshed + SPENT_AT + 0.05);
    await c.listProjects();
    // The cookie that renewal set lives at most the session's 120 s: past it, and the token, the client signs in.
    const renewed = clock.elapsed();
    clock.at(renewed + SESSION_TTL);
    await c.listProjects();
    const tokens = [...new Set(rec.sent.flatMap((s) => (s.token === undefined ? [] : [s.token])))];
    const credential = (s: Sent) => (s.token !== undefined ? `token ${tokens.indexOf(s.token) + 1}` : s.headers.has('cookie') ? 'cookie' : 'none');
    // Every answer a 200: the server never held a token or a cookie the client sent spent.
    expect(rec.sent.map((s) => [s.path, credential(s), s.status])).toEqual([
      ['/login', 'none', 200],
      ['/v2/projects', 'token 1', 200],
      ['/v2/projects', 'token 1', 200],
      ['/v2/refresh_token', 'token 1', 200],
      ['/v2/projects', 'token 2', 200],
      ['/v2/refresh_token', 'cookie', 200],
      ['/v2/projects', 'token 3', 200],
      ['/login', 'none', 200],
      ['/v2/projects', 'token 4', 200],
    ]);
    expect(rec.sent[5]?.headers.get('cookie')).toBe(rec.sent[0]?.setCookie);
  });

  it('keeps its token while a refresh gets no answer, and takes the one refreshed after the wait', async () => {
    let refresh: 'refused connection' | 'working' = 'refused connection';
    const nowhere = `http://127.0.0.1:${await closedPort()}`;
    const rec = recording(short.server.baseUrl, (path, input, init) => {
      if (path !== '/v2/refresh_token' || refresh === 'working') return fetch(input, init);
      return fetch(`${nowhere}${path}`, init);
    });
    const clock = fakeClock();
    const c = new TracelightClient(short.server.baseUrl, { login: ADMIN }, { fetch: rec.fetch, now: clock.now });
    await c.listProjects();
    const first = rec.sent[1]?.token;
    // Into the last quarter of the token's lifetime, when a request refreshes it first.
    clock.at(REFRESH_AT + 0.05);
    await c.listProjects();
    refresh = 'working';
    // The first wait after a failed refresh is at most 1 s.
    clock.at(REFRESH_AT + 0.05 + 1.05);
    await c.listProjects();
    expect(rec.sent.map((s) => [s.path, s.token === first ? 'first' : 'other'])).toEqual([
      ['/login', 'other'],
      ['/v2/projects', 'first'],
      ['/v2/refresh_token', 'first'],
      ['/v2/projects', 'first'],
      ['/v2/refresh_token', 'first'],
      ['/v2/projects', 'other'],
    ]);
  });

  it('after a refresh answered 503, waits (at most until the token is spent) before the next one and sends the token it holds meanwhile', async () => {
    const proxy = await startFailingProxy(short.server.baseUrl);
    const times = (n: number, call: () => Promise<unknown>) => Promise.all(Array.from({ length: n }, call));
    const inTurn = async (n: number, call: () => Promise<unknown>) => {
      for (let i = 0; i < n; i++) await call();
    };
    try {
      const clock = fakeClock();
      const c = new TracelightClient(proxy.baseUrl, { login: ADMIN }, { now: clock.now });
      await c.listProjects();
      const first = proxy.passed[1]?.token;
      proxy.failing.add('/v2/refresh_token');

      // In the token's last quarter every request would refresh it: after one failure, none does for a
      // while (at least 0.5 s, and the clock stands still over these calls)…
      clock.at(REFRESH_AT + 0.05);
      await c.listProjects();
      await times(5, () => c.listProjects());
      await inTurn(3, () => c.listProjects());
      expect(proxy.count('/v2/refresh_token')).toBe(1);
      // …at most 1 s the first time; then one request tries again, and the others wait once more (1-2 s).
      clock.at(REFRESH_AT + 1.1);
      await inTurn(10, () => c.listProjects());
      expect(proxy.count('/v2/refresh_token')).toBe(2);
      // A third failure, a second before the token is spent, waits 2-4 s: past the token's lifetime.
      clock.at(SPENT_AT - 1);
      await inTurn(3, () => c.listProjects());
      expect(proxy.count('/v2/refresh_token')).toBe(3);
      expect(new Set(proxy.passed.filter((p) => p.path === '/v2/projects').map((p) => p.token))).toEqual(new Set([first]));

      // The wait ends when the token is spent: the client renews it with the refresh cookie (503 too,
      // here), then signs in again, and sends no spent token.
      clock.at(SPENT_AT + 0.05);
      const spent = proxy.passed.length;
      await c.listProjects();
      const signedIn = proxy.passed.length;
      expect(proxy.passed.slice(spent).map((p) => [p.path, p.status, p.token === first])).toEqual([
        ['/v2/refresh_token', 503, false],
        ['/login', 200, false],
        ['/v2/projects', 200, false],
      ]);
      const second = proxy.passed[signedIn - 1]?.token;

      // A token taken clears the failures: the next failed refresh waits at most 1 s again (a fourth
      // failure in a row would wait 4-8 s), and the refresh after it goes on with the new token.
      const secondAt = clock.elapsed();
      clock.at(secondAt + REFRESH_AT + 0.05);
      await c.listProjects();
      proxy.failing.delete('/v2/refresh_token');
      clock.at(secondAt + REFRESH_AT + 1.1);
      await inTurn(3, () => c.listProjects());
      expect(proxy.passed.slice(signedIn).map((p) => [p.path, p.status, p.token === second])).toEqual([
        ['/v2/refresh_token', 503, true],
        ['/v2/projects', 200, true],
        ['/v2/refresh_token', 200, true],
        ['/v2/projects', 200, false],
        ['/v2/projects', 200, false],
        ['/v2/projects', 200, false],
      ]);
    } finally {
      await proxy.stop();
    }
  });

  it('answers a failed sign-in to the calls that come right after it, and signs in again after a wait', async () => {
    const proxy = await startFailingProxy(w.server.baseUrl);
    try {
      proxy.failing.add('/login');
      const clock = fakeClock();
      const c = new TracelightClient(proxy.baseUrl, { login: ADMIN }, { now: clock.now });
      // Calls made together share one sign-in, and its error…
      const together = await Promise.all(Array.from({ length: 5 }, () => failureOf(c.listProjects())));
      expect(together.map((e) => e.status)).toEqual([503, 503, 503, 503, 503]);
      // …and the calls right after it get that error at once, without a sign-in of their own.
      for (let i = 0; i < 10; i++) expect(await failureOf(c.listProjects())).toMatchObject({ status: 503, detail: 'Service temporarily unavailable' });
      expect(proxy.passed.map((p) => p.path)).toEqual(['/login']);
      proxy.failing.delete('/login');
      // The first wait is at most 1 s.
      clock.at(1.05);
      await c.listProjects();
      expect(proxy.passed.map((p) => [p.path, p.status])).toEqual([
        ['/login', 503],
        ['/login', 200],
        ['/v2/projects', 200],
      ]);

      // A refused password too: asking again at once would be refused again, and counts against the address.
      const wrong = new TracelightClient(proxy.baseUrl, { login: { email: ADMIN.email, password: 'not the password' } });
      const refusals = proxy.passed.length;
      for (let i = 0; i < 5; i++) expect(await failureOf(wrong.currentUser())).toMatchObject({ status: 401 });
      expect(proxy.passed.slice(refusals).map((p) => [p.path, p.status])).toEqual([['/login', 401]]);
    } finally {
      await proxy.stop();
    }
  });

  it('waits at least as long as a failed sign-in’s Retry-After before signing in again', async () => {
    const proxy = await startFailingProxy(w.server.baseUrl);
    try {
      proxy.failing.add('/login');
      proxy.retryAfter = 30;
      const clock = fakeClock();
      const c = new TracelightClient(proxy.baseUrl, { login: ADMIN }, { now: clock.now });
      expect(await failureOf(c.listProjects())).toMatchObject({ status: 503, retryAfter: 30 });
      proxy.failing.delete('/login');
      // Past the longest wait of its own backoff (1 s after a first failure), the server's 30 s still hold…
      clock.at(29.9);
      expect(await failureOf(c.listProjects())).toMatchObject({ status: 503, retryAfter: 30 });
      expect(proxy.passed.map((p) => p.path)).toEqual(['/login']);
      // …and once they are over, the client signs in.
      clock.at(30.05);
      await c.listProjects();
      expect(proxy.passed.map((p) => [p.path, p.status])).toEqual([
        ['/login', 503],
        ['/login', 200],
        ['/v2/projects', 200],
      ]);
    } finally {
      await proxy.stop();
    }
  });

  it('renews a spent token with the refresh cookie its sign-in set (password or API key), once for calls made together', async () => {
    const { api_key } = await new TracelightClient(short.server.baseUrl, { login: ADMIN }).createApiKey({ description: 'cookie' });
    const recs = [recording(short.server.baseUrl), recording(short.server.baseUrl)] as const;
    const clock = fakeClock();
    const clients = [
      new TracelightClient(short.server.baseUrl, { login: ADMIN }, { fetch: recs[0].fetch, now: clock.now }),
      new TracelightClient(short.server.baseUrl, { login: { apiKey: api_key } }, { fetch: recs[1].fetch, now: clock.now }),
    ];
    await Promise.all(clients.map((c) => c.listProjects()));
    clock.at(SPENT_AT + 0.05);
    await Promise.all(clients.map((c) => Promise.all(Array.from({ length: 5 }, () => c.listProjects()))));
    for (const [rec, signIn] of [[recs[0], '/login'], [recs[1], '/login/api_key']] as const) {
      expect(rec.paths()).toEqual([signIn, '/v2/projects', '/v2/refresh_token', ...Array<string>(5).fill('/v2/projects')]);
      const [signedIn, first, refresh, ...after] = rec.sent;
      expect(signedIn?.setCookie).toMatch(/^refresh_token=./);
      // The spent token is not sent: the cookie the sign-in set is.
      expect([refresh?.token, refresh?.headers.get('cookie')]).toEqual([undefined, signedIn?.setCookie]);
      expect(new Set(after.map((s) => s.token)).size).toBe(1);
      expect(after[0]?.token).not.toBe(first?.token);
      expect(claimsOf(after[0]?.token).exp).toBeGreaterThan(Date.now() / 1000);
    }
  });

  it('goes on with the cookie a refresh sets, and signs in again once the cookie is refused', async () => {
    const user = { email: `${unique('cookie')}@example.com`, password: 'a cookie password' };
    await new TracelightClient(short.server.baseUrl, { login: ADMIN }).createUser(user);
    const rec = recording(short.server.baseUrl);
    const clock = fakeClock();
    const c = new TracelightClient(short.server.baseUrl, { login: user }, { fetch: rec.fetch, now: clock.now });
    await c.listProjects();
    clock.at(SPENT_AT + 0.05);
    await c.listProjects();
    // The session is revoked (the cookie with it) while its token is unused; once that token is spent…
    await revokeSessions(short.server, user.email);
    clock.at(2 * (SPENT_AT + 0.05));
    await c.listProjects();
    expect(rec.sent.map((s) => [s.path, s.headers.get('cookie') === null ? 'no cookie' : 'cookie'])).toEqual([
      ['/login', 'no cookie'],
      ['/v2/projects', 'no cookie'],
      ['/v2/refresh_token', 'cookie'],
      ['/v2/projects', 'no cookie'],
      ['/v2/refresh_token', 'cookie'],
      ['/login', 'no cookie'],
      ['/v2/projects', 'no cookie'],
    ]);
    // …the cookie sent is the one the first refresh set, in place of the sign-in's, and it is refused.
    expect(rec.sent[2]?.setCookie).toMatch(/^refresh_token=./);
    expect(rec.sent[2]?.setCookie).not.toBe(rec.sent[0]?.setCookie);
    expect(rec.sent[4]?.headers.get('cookie')).toBe(rec.sent[2]?.setCookie);
    // The 401 expires the refused cookie; the client drops it and signs in again, which sets a new one.
    expect(rec.sent[4]?.setCookie).toBe('refresh_token=');
    expect(rec.sent[5]?.setCookie).toMatch(/^refresh_token=./);
    expect(rec.sent[6]?.token).not.toBe(rec.sent[3]?.token);
  });
  it('keeps a person’s session (session credentials) with the refresh cookie alone: no password held, a reload resumes it, sign-out ends it', async () => {
    // A browser's cookie jar, shared by the pages of one origin: the refresh cookie the server sets is
    // sent back with every request, as a browser sends a SameSite=Strict cookie to its own origin.
    let jar: string | undefined;
    const browserFetch: typeof fetch = async (input, init) => {
      const headers = new Headers(init?.headers);
      if (jar !== undefined && !headers.has('cookie')) headers.set('cookie', jar);
      const res = await fetch(input, { ...init, headers });
      const set = res.headers.getSetCookie().find((c) => c.startsWith('refresh_token='))?.split(';')[0];
      if (set !== undefined) jar = set === 'refresh_token=' ? undefined : set;
      return res;
    };
    const user = { email: `${unique('session')}@example.com`, password: 'a session password' };
    await new TracelightClient(short.server.baseUrl, { login: ADMIN }).createUser(user);
    const recs = [recording(short.server.baseUrl, (_, input, init) => browserFetch(input, init)), recording(short.server.baseUrl, (_, input, init) => browserFetch(input, init))] as const;
    const clock = fakeClock();
    const page = new TracelightClient(short.server.baseUrl, { session: 'cookie' }, { fetch: recs[0].fetch, now: clock.now });
    // Before any sign-in there is no session: the refresh finds no cookie, and its 401 is the answer.
    expect((await failureOf(page.currentUser())).status).toBe(401);
    expect((await failureOf(page.startSession(user.email, 'wrong password'))).detail).toBe('Incorrect username or password');
    await page.startSession(user.email, user.password);
    expect((await page.currentUser()).email).toBe(user.email);
    expect(jar).toMatch(/^refresh_token=./);
    // Once the token is spent the cookie renews it; no password is ever sent again.
    clock.at(SPENT_AT + 0.05);
    expect((await page.currentUser()).email).toBe(user.email);
    expect(recs[0].paths().slice(-2)).toEqual(['/v2/refresh_token', '/v2/current_user']);
    // Another page of the same browser (a reload) holds no token: the cookie resumes the session.
    const reloaded = new TracelightClient(short.server.baseUrl, { session: 'cookie' }, { fetch: recs[1].fetch, now: clock.now });
    expect((await reloaded.currentUser()).email).toBe(user.email);
    expect(recs[1].paths()).toEqual(['/v2/refresh_token', '/v2/current_user']);
    // Sign-out ends the session for every page: the cookie is expired, the other page's token refused.
    expect(await page.endSession()).toEqual({ message: 'Signed out' });
    expect(jar).toBeUndefined();
    expect((await failureOf(page.currentUser())).status).toBe(401);
    const ended = await failureOf(reloaded.currentUser());
    // Outside a browser the client keeps the cookie it was last set, here one of the revoked session.
    expect([ended.status, ended.detail]).toEqual([401, 'refresh token reused: this session is revoked, sign in again']);
    expect([...recs[0].paths(), ...recs[1].paths()].filter((p) => p === '/login')).toHaveLength(2);
    // The password went once, in the sign-in: the wrong one, then the right one, and never again.
    expect([...recs[0].sent, ...recs[1].sent].flatMap((s) => (s.body instanceof URLSearchParams ? [s.body.get('password')] : []))).toEqual(['wrong password', user.password]);
  });

  it('signs in again for a 401, but not for a late 401 of a token it has already replaced', async () => {
    const user = { email: `${unique('late')}@example.com`, password: 'a late password' };
    await new TracelightClient(short.server.baseUrl, { login: ADMIN }).createUser(user);
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let heldBack = false;
    const rec = recording(short.server.baseUrl, async (path, input, init) => {
      const res = await fetch(input, init);
      // The first answer to the "late" request waits until the other request is done.
      if (path.includes('project_name=late') && !heldBack) {
        heldBack = true;
        await released;
      }
      return res;
    });
    const c = new TracelightClient(short.server.baseUrl, { login: user }, { fetch: rec.fetch });
    await c.currentUser();
    // Tokens carry their session's start to the millisecond: a revocation right after the sign-in refuses it.
    await revokeSessions(short.server, user.email);

    const late = c.listProjects({ project_name: 'late' });
    await c.listProjects();
    release();
    await late;
    expect(rec.paths()).toEqual([
      '/login',
      '/v2/current_user',
      '/v2/projects?project_name=late',
      '/v2/projects',
      '/login',
      '/v2/projects',
      '/v2/projects?project_name=late',
    ]);
    expect(rec.sent[6]?.token).toBe(rec.sent[5]?.token);
  });
});
