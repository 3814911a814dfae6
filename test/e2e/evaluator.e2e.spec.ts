// The evaluator app seen from outside: beside a server that scores nothing, on the same storage, it scores
// what the server queues, and its /metrics says so (jobs finished, judge calls and tokens, the queue back at
// 0); /healthcheck answers 200 while it scores and 503 while a SIGTERM lets the job in hand finish.
import { OpenAiStub, judges } from '@tracelight/testkit';
import { randomUUID } from 'node:crypto';
import { type RunningEvaluator, startEvaluator } from '../support/evaluator';
import { type Auth, http } from '../support/http';
import { ADMIN, type RunningServer, startServer } from '../support/server';

const TOKEN = `gw-${randomUUID()}`;
const USAGE = { prompt_tokens: 31, completion_tokens: 9 };
// The server queues and never scores; the evaluator is told itself that the stub's address may be called.
const SCORING = { TRACELIGHT_SCORING_POLL_MS: '50', TRACELIGHT_GATEWAY_ALLOWED_NETWORKS: '127.0.0.1/32' };

/** A sample's value in Prometheus text, or undefined when the series is absent. */
const sample = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

const until = async <T>(what: string, read: () => Promise<T>, done: (t: T) => boolean): Promise<T> => {
  // A bound against something that never happens, generous for a loaded machine.
  const deadline = Date.now() + 120_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('the evaluator app: /metrics and /healthcheck', () => {
  let stub: OpenAiStub;
  let server: RunningServer;
  let evaluator: RunningEvaluator;
  let probes: string;
  let auth: Auth;
  let project: string;
  let logStream: string;

  const call = () => http(server.baseUrl);
  const ingest = async (spans: number): Promise<void> => {
    const trace = { id: randomUUID(), name: 't', spans: Array.from({ length: spans }, () => ({ type: 'llm', id: randomUUID(), input: 'hi', output: 'rude' })) };
    const r = await call()('POST', `/v2/projects/${project}/traces`, { auth, json: { log_stream_id: logStream, traces: [trace] } });
    if (r.status !== 200) throw new Error(r.text);
  };
  const jobs = async () => {
    const r = await call()('GET', `/v2/projects/${project}/runs/${logStream}/metrics/status`, { auth });
    if (r.status !== 200) throw new Error(`metrics/status answered ${r.status}: ${r.text}`);
    return r.body.scorers[0].jobs as Record<string, number>;
  };
  const scrape = async () => {
    const r = await http(probes)('GET', '/metrics');
    if (r.status !== 200) throw new Error(`the evaluator's /metrics answered ${r.status}: ${r.text}`);
    return r;
  };

  beforeAll(async () => {
    stub = await OpenAiStub.start({ usage: USAGE });
    stub.answerWith(judges(true));
    server = await startServer({ ...SCORING, TRACELIGHT_SCORING_WORKERS: '0' });
    const c = call();
    const ok = async (p: Promise<{ status: number; body: any; text: string }>) => {
      const r = await p;
      if (r.status >= 300) throw new Error(`${r.status}: ${r.text}`);
      return r.body;
    };
    auth = { bearer: (await ok(c('POST', '/login', { form: { username: ADMIN.email, password: ADMIN.password } }))).access_token as string };
    await ok(c('PUT', '/v2/integrations/gateway', { auth, json: { token: TOKEN, endpoint: stub.url, use_case: 'EVALUATION' } }));
    project = (await ok(c('POST', '/v2/projects', { auth, json: { name: `evaluator-${randomUUID()}` } }))).id as string;
    logStream = (await ok(c('POST', `/v2/projects/${project}/log_streams`, { auth, json: { name: 'scored' } }))).id as string;
    const scorer = await ok(c('POST', '/v2/scorers', { auth, json: { name: `judge-${randomUUID().slice(0, 8)}`, scorer_type: 'llm' } }));
    await ok(c('POST', `/v2/scorers/${scorer.id}/version/llm`, { auth, json: { instructions: 'Rude?', num_judges: 1 } }));
    await ok(c('POST', `/v2/projects/${project}/runs/${logStream}/scorer-settings`, { auth, json: { scorers: [{ scorer_id: scorer.id }] } }));
  });

  afterAll(async () => {
    await evaluator?.stop('SIGKILL');
    await server?.stop();
    await stub?.close();
  });

  it('scores what the server queued, and its /metrics shows the jobs, the judge calls and tokens, and the queue back at 0', async () => {
    await ingest(3);
    // The server scores nothing: its jobs wait.
    expect(await jobs()).toMatchObject({ pending: 3, computing: 0, succeeded: 0 });
    evaluator = startEvaluator({ ...SCORING, ...server.storageEnv, TRACELIGHT_EVALUATOR_PORT: '0' });
    const line = await evaluator.started;
    // It listens where TRACELIGHT_HOST says (the server's default, 127.0.0.1), on the port it logged.
    expect(line).toMatchObject({ host: '127.0.0.1', port: expect.any(Number) });
    // On the server's engine (the MongoDB run's too).
    expect(line['engine']).toBe((process.env['TRACELIGHT_E2E_DATABASE_URL'] ?? '').startsWith('mongodb') ? 'mongodb' : 'sqlite');
    probes = `http://127.0.0.1:${line['port'] as number}`;

    expect(await until('every job scored', jobs, (j) => j['pending']! + j['computing']! === 0)).toMatchObject({ succeeded: 3, failed: 0, error: 0 });
    // An outcome is counted once stored: the scrape that follows the status may come a moment before.
    const { text, headers } = await until('the evaluator counting its jobs', scrape, (r) => sample(r.text, 'tracelight_scoring_jobs_finished_total{state="success"}') === 3);
    expect(headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(stub.completions.map((r) => r.bearer)).toEqual([TOKEN, TOKEN, TOKEN]);
    expect({
      success: sample(text, 'tracelight_scoring_jobs_finished_total{state="success"}'),
      judgeCalls: sample(text, 'tracelight_judge_call_duration_seconds_count{outcome="ok"}'),
      promptTokens: sample(text, 'tracelight_judge_tokens_total{kind="prompt"}'),
      completionTokens: sample(text, 'tracelight_judge_tokens_total{kind="completion"}'),
      pending: sample(text, 'tracelight_scoring_queue_jobs{state="pending"}'),
      computing: sample(text, 'tracelight_scoring_queue_jobs{state="computing"}'),
    }).toEqual({ success: 3, judgeCalls: 3, promptTokens: 3 * USAGE.prompt_tokens, completionTokens: 3 * USAGE.completion_tokens, pending: 0, computing: 0 });
    // The sandbox's metrics are defined (no interpreter started: no code scorer ran), and the process defaults are there.
    expect(text).toMatch(/^# TYPE tracelight_sandbox_start_seconds histogram$/m);
    expect(text).toMatch(/^# TYPE tracelight_sandbox_replaced_total counter$/m);
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d/m);
    // Nothing of the API: the evaluator serves no requests.
    expect(text).not.toContain('tracelight_http_requests_total');
    expect(text).not.toContain(TOKEN);
    // The server, which scored nothing, counted nothing.
    expect(sample((await call()('GET', '/metrics')).text, 'tracelight_scoring_jobs_finished_total{state="success"}')).toBeUndefined();
  });

  it('answers /healthcheck 200 while it scores, 404 elsewhere and 405 for another method', async () => {
    const probe = http(probes);
    const health = await probe('GET', '/healthcheck');
    expect([health.status, health.body]).toEqual([200, { status: 'scoring' }]);
    expect((await probe('GET', '/healthcheck?verbose=1')).status).toBe(200);
    expect((await probe('HEAD', '/metrics')).status).toBe(200);
    for (const path of ['/', '/readyz', '/v2/projects', '/metrics/', '/healthcheck/x']) expect([path, (await probe('GET', path)).status]).toEqual([path, 404]);
    const post = await probe('POST', '/metrics', { json: {} });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
  });

  it('stops before scoring anything when its port is taken, saying which', async () => {
    const port = new URL(probes).port;
    const second = startEvaluator({ ...SCORING, ...server.storageEnv, TRACELIGHT_EVALUATOR_PORT: port });
    expect(await second.exited).toBe(1);
    expect(second.output.join('\n')).toContain(`cannot listen on 127.0.0.1:${port} (TRACELIGHT_HOST, TRACELIGHT_EVALUATOR_PORT): listen EADDRINUSE`);
    expect(second.output.some((l) => l.includes('tracelight-evaluator scoring'))).toBe(false);
  });

  it('answers /healthcheck 503 after SIGTERM while the job in hand finishes, then closes and exits 0', async () => {
    const release = stub.hold();
    const asked = stub.completions.length;
    await ingest(1);
    // The evaluator has the job in hand: its judge has been asked and has not answered.
    await until('the judge being asked', async () => stub.completions.length, (n) => n === asked + 1);
    const stopped = evaluator.stop('SIGTERM');
    const health = await until('/healthcheck turning 503', () => http(probes)('GET', '/healthcheck'), (r) => r.status !== 200);
    expect([health.status, health.body]).toEqual([503, { status: 'stopping' }]);
    // Still scraped meanwhile, and the job is still in hand.
    expect(sample((await scrape()).text, 'tracelight_scoring_queue_jobs{state="computing"}')).toBe(1);
    release();
    expect(await stopped).toBe(0);
    expect(evaluator.output.some((l) => l.includes('"message":"stopped"'))).toBe(true);
    // The job it had in hand was finished, not left to its lease.
    expect(await jobs()).toMatchObject({ pending: 0, computing: 0, succeeded: 4 });
    // Its port is closed with it.
    await expect(fetch(`${probes}/healthcheck`)).rejects.toThrow();
  });

  it('refuses a port that is no port, before it opens anything', async () => {
    const bad = startEvaluator({ ...SCORING, ...server.storageEnv, TRACELIGHT_EVALUATOR_PORT: 'ninety' });
    expect(await bad.exited).toBe(2);
    expect(bad.output.join('\n')).toContain('TRACELIGHT_EVALUATOR_PORT must be an integer from 0 to 65535, got "ninety"');
  });
});
