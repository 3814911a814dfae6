// Scoring survives crashes and shares work: the server is killed with SIGKILL while judge calls are in
// flight and started again on the same storage; and several processes (two servers and the evaluator
// app) score one queue together. Every job ends with one outcome, no record is lost, none is scored twice.
import { OpenAiStub, judges } from '@tracelight/testkit';
import { randomUUID } from 'node:crypto';
import { startEvaluator as startEvaluatorOn } from '../support/evaluator';
import { type Auth, http } from '../support/http';
import { ADMIN, type RunningServer, startServer } from '../support/server';

const TOKEN = `gw-${randomUUID()}`;
// The evaluator app is started here, not by startServer: it is told itself that the stub's address (127.0.0.1) may be called.
const SCORING = {
  TRACELIGHT_SCORING_WORKERS: '4',
  TRACELIGHT_SCORING_LEASE_MS: '2000',
  TRACELIGHT_SCORING_POLL_MS: '50',
  TRACELIGHT_SCORING_RETRY_BASE_MS: '50',
  TRACELIGHT_GATEWAY_ALLOWED_NETWORKS: '127.0.0.1/32',
};

/** The evaluator app on the servers' storage (data dir, and so secret key), with this file's scoring settings. */
const startEvaluator = (storageEnv: Readonly<Record<string, string>>) => startEvaluatorOn({ ...SCORING, ...storageEnv });

/** Signs in, sets the gateway to the stub, makes a scorer (one judge) on a new log stream: what a run needs to be scored. */
const setUp = async (server: RunningServer, stub: OpenAiStub) => {
  const call = http(server.baseUrl);
  const token = (await call('POST', '/login', { form: { username: ADMIN.email, password: ADMIN.password } })).body.access_token as string;
  const auth: Auth = { bearer: token };
  const ok = async (p: Promise<{ status: number; body: any; text: string }>) => {
    const r = await p;
    if (r.status >= 300) throw new Error(`${r.status}: ${r.text}`);
    return r.body;
  };
  await ok(call('PUT', '/v2/integrations/gateway', { auth, json: { token: TOKEN, endpoint: stub.url, use_case: 'EVALUATION' } }));
  const project = (await ok(call('POST', '/v2/projects', { auth, json: { name: `crash-${randomUUID()}` } }))).id as string;
  const logStream = (await ok(call('POST', `/v2/projects/${project}/log_streams`, { auth, json: { name: 'scored' } }))).id as string;
  const scorer = await ok(call('POST', '/v2/scorers', { auth, json: { name: `judge-${randomUUID().slice(0, 8)}`, scorer_type: 'llm' } }));
  await ok(call('POST', `/v2/scorers/${scorer.id}/version/llm`, { auth, json: { instructions: 'Rude?', num_judges: 1 } }));
  await ok(call('POST', `/v2/projects/${project}/runs/${logStream}/scorer-settings`, { auth, json: { scorers: [{ scorer_id: scorer.id }] } }));
  return { auth, project, logStream, name: scorer.name as string };
};

/** Ingests `batches` traces of `spans` llm spans each; the span ids acknowledged. */
const ingest = async (server: RunningServer, s: Awaited<ReturnType<typeof setUp>>, batches: number, spans: number): Promise<string[]> => {
  const call = http(server.baseUrl);
  const ids: string[] = [];
  for (let b = 0; b < batches; b++) {
    const trace = { id: randomUUID(), name: 't', spans: Array.from({ length: spans }, () => ({ type: 'llm', id: randomUUID(), output: 'rude' })) };
    const r = await call('POST', `/v2/projects/${s.project}/traces`, { auth: s.auth, json: { log_stream_id: s.logStream, traces: [trace] } });
    if (r.status !== 200) throw new Error(r.text);
    ids.push(...trace.spans.map((x) => x.id));
  }
  return ids;
};

const jobsOf = async (server: RunningServer, s: Awaited<ReturnType<typeof setUp>>) => {
  const r = await http(server.baseUrl)('GET', `/v2/projects/${s.project}/runs/${s.logStream}/metrics/status`, { auth: s.auth });
  if (r.status !== 200) throw new Error(`metrics/status answered ${r.status}: ${r.text}`);
  return r.body.scorers[0].jobs as Record<string, number>;
};

const until = async <T>(what: string, read: () => Promise<T>, done: (t: T) => boolean, withinMs = 180_000): Promise<T> => {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

/** Every span of the run with its metric entry. */
const spansOf = async (server: RunningServer, s: Awaited<ReturnType<typeof setUp>>) => {
  const records: Array<Record<string, any>> = [];
  for (let start = 0; ; ) {
    const page = (await http(server.baseUrl)('POST', `/v2/projects/${s.project}/spans/search`, { auth: s.auth, json: { log_stream_id: s.logStream, starting_token: start, limit: 1000 } })).body;
    records.push(...page.records);
    if (page.next_starting_token == null) return records;
    start = page.next_starting_token;
  }
};

describe('scoring across crashes and processes', () => {
  let stub: OpenAiStub;
  const running: Array<{ stop: (signal?: NodeJS.Signals) => Promise<unknown> }> = [];
  beforeEach(async () => {
    // Answers take a while, so that calls are in flight when the server is killed.
    stub = await OpenAiStub.start({ delayMs: 150 });
    stub.answerWith(judges(true));
  });
  afterEach(async () => {
    for (const p of running.splice(0)) await p.stop('SIGKILL').catch(() => undefined);
    await stub.close();
  });

  it('finishes every job after a SIGKILL with judge calls in flight: each once, nothing lost', async () => {
    const first = await startServer(SCORING);
    running.push(first);
    const s = await setUp(first, stub);
    const ids = await ingest(first, s, 6, 10);
    // Some scored, some in flight (the stub is answering), some still queued.
    await until('some jobs scored while others are being scored', () => jobsOf(first, s), (j) => j['succeeded']! >= 5 && j['computing']! > 0 && j['pending']! > 0);
    await first.stop('SIGKILL');
    const second = await startServer({ ...SCORING, ...first.storageEnv });
    running.push(second);
    const jobs = await until('every job finished', () => jobsOf(second, s), (j) => j['pending']! + j['computing']! === 0);
    expect(jobs).toEqual({ pending: 0, computing: 0, succeeded: 60, failed: 0, error: 0, not_applicable: 0, not_computed: 0 });
    const spans = await spansOf(second, s);
    expect(spans.map((x) => x['id']).sort()).toEqual([...ids].sort());
    expect(spans.every((x) => x['metrics'][s.name] === 1 && x['metric_info'][s.name].status_type === 'success')).toBe(true);
    // The calls the kill cut short were asked again; the others once each.
    expect(stub.completions.length).toBeGreaterThanOrEqual(60);
    expect(stub.completions.length).toBeLessThanOrEqual(60 + 4);
  });

  it('is scored by the evaluator app alone when the server scores nothing', async () => {
    const server = await startServer({ ...SCORING, TRACELIGHT_SCORING_WORKERS: '0' });
    running.push(server);
    const s = await setUp(server, stub);
    const ids = await ingest(server, s, 2, 10);
    expect(await jobsOf(server, s)).toMatchObject({ pending: 20 });
    const evaluator = startEvaluator(server.storageEnv);
    running.push(evaluator);
    await evaluator.started;
    expect(await until('every job finished', () => jobsOf(server, s), (j) => j['pending']! + j['computing']! === 0)).toMatchObject({ succeeded: 20 });
    expect((await spansOf(server, s)).filter((x) => x['metrics'][s.name] === 1).map((x) => x['id']).sort()).toEqual([...ids].sort());
    expect(stub.completions.every((r) => r.bearer === TOKEN)).toBe(true);
    // Stopped by a signal, it finishes and says so.
    expect(await evaluator.stop('SIGTERM')).toBe(0);
    expect(evaluator.output.join('\n')).not.toContain(TOKEN);
  });

  it('scores a code version in the evaluator app\'s sandbox when the server scores nothing', async () => {
    // The server compiles the upload (its sandbox), the evaluator runs the jobs (its own).
    const server = await startServer({ ...SCORING, TRACELIGHT_SCORING_WORKERS: '0', TRACELIGHT_SANDBOX_WORKERS: '1' });
    running.push(server);
    const s = await setUp(server, stub);
    const call = http(server.baseUrl);
    const code = (await call('POST', '/v2/scorers', { auth: s.auth, json: { name: `length-${randomUUID().slice(0, 8)}`, scorer_type: 'code' } })).body;
    const form = new FormData();
    form.append('file', new Blob(['def scorer_fn(*, node_output, **kwargs):\n    return len(node_output)\n\ndef score_type():\n    return int\n']), 'length.py');
    expect((await call('POST', `/v2/scorers/${code.id}/version/code`, { auth: s.auth, multipart: form })).status).toBe(200);
    expect((await call('POST', `/v2/projects/${s.project}/runs/${s.logStream}/scorer-settings`, { auth: s.auth, json: { scorers: [{ scorer_id: code.id }] } })).status).toBe(200);
    const ids = await ingest(server, s, 1, 10);
    const evaluator = startEvaluator(server.storageEnv);
    running.push(evaluator);
    await evaluator.started;
    // An interpreter's start takes seconds on a loaded machine.
    expect(await until('every job finished', () => jobsOf(server, s), (j) => j['pending']! + j['computing']! === 0, 120_000)).toMatchObject({ succeeded: 10, error: 0 });
    const spans = await spansOf(server, s);
    expect(spans.filter((x) => x['metrics'][code.name] === 4 && x['metric_info'][code.name].scorer_type === 'code').map((x) => x['id']).sort()).toEqual([...ids].sort());
    expect(await evaluator.stop('SIGTERM')).toBe(0);
  });

  it('scores one queue from two servers and the evaluator app together without judging any record twice', async () => {
    const idle = await startServer({ ...SCORING, TRACELIGHT_SCORING_WORKERS: '0' });
    running.push(idle);
    const s = await setUp(idle, stub);
    const ids = await ingest(idle, s, 8, 10);
    for (let i = 0; i < 2; i++) running.push(await startServer({ ...SCORING, ...idle.storageEnv }));
    const evaluator = startEvaluator(idle.storageEnv);
    running.push(evaluator);
    await evaluator.started;
    const jobs = await until('every job finished', () => jobsOf(idle, s), (j) => j['pending']! + j['computing']! === 0);
    expect(jobs).toMatchObject({ succeeded: 80, failed: 0, error: 0 });
    // One judge call per record: no job was held by two processes at once, none judged twice.
    expect(stub.completions.length).toBe(80);
    const spans = await spansOf(idle, s);
    expect(spans.map((x) => x['id']).sort()).toEqual([...ids].sort());
    expect(spans.every((x) => x['metrics'][s.name] === 1)).toBe(true);
  });
});
