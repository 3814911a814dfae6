// Evaluation end to end: the real server scores what is ingested with LLM judges (ChainPoll) through
// the user's gateway, here a real OpenAI-compatible HTTP server on 127.0.0.1 (the testkit's stub) that
// answers by rules each test sets and records every request it gets.
import { OpenAiStub, type StubRequest, judgeAnswer, lastUserText } from '@tracelight/testkit';
import { randomUUID } from 'node:crypto';
import type { Auth } from '../support/http';
import { scoringStatus, searchRecords, settledScoring } from '../support/scoring';
import { startWorld, type World } from '../support/world';

const TOKEN = `gw-${randomUUID()}-SECRET`;
let w: World;
let stub: OpenAiStub;

/** The system message names the output type a scorer asks for (its instructions say `TYPE:<type>`). */
const typeOf = (r: StubRequest): string => /TYPE:(\w+)/.exec(r.messages[0]?.content ?? '')?.[1] ?? 'boolean';
/** Answers by what the record says: rude → every judge true, meh → two of three, anything else → none. */
const VALUES: Record<string, ReadonlyArray<unknown>> = {
  percentage: [0.2, 0.5, 0.8],
  float: [1, 2, 3],
  discrete: [2, 2, 5],
  count: [3, 4, 8],
  categorical: ['bad', 'good', 'good'],
  multilabel: [['x', 'y'], ['y', 'x', 'z'], ['y']],
  freeform: ['whatever'],
};
const rule = (r: StubRequest, i: number): string => {
  const type = typeOf(r);
  // A judge that repeats the gateway's token, as written and in base64, in its explanation; or in an answer that does not parse.
  if (type === 'leaky') return judgeAnswer(true, `your key is ${TOKEN} (${Buffer.from(`Bearer ${TOKEN}`).toString('base64')})`);
  if (type === 'leakyjunk') return `not JSON, your key is ${TOKEN}`;
  if (type !== 'boolean') return judgeAnswer(VALUES[type]![i % VALUES[type]!.length], `judge ${i + 1} on ${type}`);
  const text = lastUserText(r);
  const yes = text.includes('rude') ? true : text.includes('meh') ? i < 2 : false;
  return judgeAnswer(yes, `judge ${i + 1} says ${yes}`);
};

beforeAll(async () => {
  stub = await OpenAiStub.start();
  stub.answerWith(rule);
  w = await startWorld({
    TRACELIGHT_SCORING_WORKERS: '8',
    TRACELIGHT_SCORING_POLL_MS: '50',
    TRACELIGHT_SCORING_RETRY_BASE_MS: '50',
    TRACELIGHT_SCORING_MAX_ATTEMPTS: '3',
    TRACELIGHT_JUDGE_TIMEOUT_MS: '1500',
  });
  w.ok(await w.call('PUT', '/v2/integrations/gateway', { auth: w.admin, json: { token: TOKEN, endpoint: stub.url, use_case: 'EVALUATION' } }));
});
afterAll(async () => {
  await w?.server.stop();
  await stub?.close();
});

let n = 0;
const unique = (p: string) => `${p}-${Date.now()}-${++n}`;

/** A scorer with one LLM version, its settings on a new log stream of a new project. */
const scored = async (
  version: Record<string, unknown>,
  opts: { auth?: Auth; scorer?: Record<string, unknown>; sampleRate?: number; project?: string } = {},
) => {
  const auth = opts.auth ?? w.admin;
  const project = opts.project ?? (await w.project(auth));
  const logStream = await w.run(auth, project, 'log_streams');
  const scorer = w.ok(await w.call('POST', '/v2/scorers', { auth, json: { name: unique('judge'), scorer_type: 'llm', ...opts.scorer } }));
  const v = w.ok(await w.call('POST', `/v2/scorers/${scorer.id}/version/llm`, { auth, json: version }));
  w.ok(
    await w.call('POST', `/v2/projects/${project}/runs/${logStream}/scorer-settings`, {
      auth,
      json: { scorers: [{ scorer_id: scorer.id, ...(opts.sampleRate !== undefined ? { sample_rate: opts.sampleRate } : {}) }] },
    }),
  );
  return { auth, project, logStream, scorer, version: v, metric: `metrics/${scorer.name}` as const, name: scorer.name as string };
};

const ingest = async (auth: Auth, project: string, logStream: string, traces: unknown[]) =>
  w.ok(await w.call('POST', `/v2/projects/${project}/traces`, { auth, json: { log_stream_id: logStream, traces } }));

const status = (auth: Auth, project: string, logStream: string) => scoringStatus(w, auth, project, logStream);
const settled = (auth: Auth, project: string, logStream: string, atLeast = 1) => settledScoring(w, auth, project, logStream, atLeast);
const search = (auth: Auth, project: string, logStream: string, scope: 'spans' | 'traces', body: Record<string, unknown> = {}) =>
  searchRecords(w, auth, project, logStream, scope, body);

const trace = (outputs: string[], over: Record<string, unknown> = {}) => ({
  id: randomUUID(),
  name: 'conversation',
  input: 'hello',
  output: 'bye',
  ...over,
  spans: outputs.map((output, i) => ({ type: 'llm', id: randomUUID(), name: `answer-${i}`, input: `question ${i}`, output })),
});

describe('LLM judges on ingested records', () => {
  it('scores each llm span by ChainPoll (boolean: the share of judges that said true), with the judges\' explanations, and rolls the average up to the trace', async () => {
    const s = await scored(
      { instructions: 'Is the output rude? TYPE:boolean', user_prompt: 'Output to judge: {output}', model_name: 'judge-1', num_judges: 3, scoreable_node_types: ['llm'] },
      { scorer: { group_label: 'Safety Metrics', threshold: { buckets: [0.3, 0.7], display_value_levels: ['Low', 'Medium', 'High'], inverted: true } } },
    );
    const before = stub.completions.length;
    const t = trace(['you are rude', 'meh, fine', 'thank you']);
    await ingest(s.auth, s.project, s.logStream, [t]);
    const st = await settled(s.auth, s.project, s.logStream, 3);
    expect(st.scorers).toEqual([
      {
        scorer_id: s.scorer.id,
        scorer_name: s.name,
        version: 1,
        in_use: true,
        sample_rate: 1,
        jobs: { pending: 0, computing: 0, succeeded: 3, failed: 0, error: 0, not_applicable: 0, not_computed: 0 },
        last_error: null,
        tokens: { prompt: expect.any(Number), completion: expect.any(Number) },
      },
    ]);
    expect(st.scorers[0].tokens.prompt).toBeGreaterThan(0);
    const spans = await search(s.auth, s.project, s.logStream, 'spans', { sort: { column_id: 'name', ascending: true } });
    expect(spans.map((x) => x['metrics'][s.name])).toEqual([1, 2 / 3, 0]);
    expect(spans[1]!['metric_info'][s.name]).toEqual({
      status_type: 'success',
      scorer_type: 'llm',
      value: 2 / 3,
      display_value: 'Medium',
      explanation: 'judge 1 says true',
      rationale: 'Judge 1: judge 1 says true\n\nJudge 2: judge 2 says true\n\nJudge 3: judge 3 says false',
      explanations: ['judge 1 says true', 'judge 2 says true', 'judge 3 says false'],
      model_alias: 'judge-1',
      num_judges: 3,
      cost: null,
      version: 1,
    });
    // One request per span, for 3 judges, to the version's model, with the gateway's token, the span's output in the prompt.
    const sent = stub.completions.slice(before);
    expect(sent).toHaveLength(3);
    expect(sent.every((r) => r.model === 'judge-1' && r.n === 3 && r.bearer === TOKEN)).toBe(true);
    expect(sent.map((r) => lastUserText(r)).sort()).toEqual(['Output to judge: meh, fine', 'Output to judge: thank you', 'Output to judge: you are rude']);
    expect(sent[0]!.messages[0]).toEqual({ role: 'system', content: expect.stringContaining('Is the output rude? TYPE:boolean') });
    // The trace: the average of its scored spans, said to be a roll-up.
    const [tr] = await search(s.auth, s.project, s.logStream, 'traces');
    expect(tr!['metrics'][s.name]).toBeCloseTo(5 / 9, 10);
    expect(tr!['metric_info'][s.name]).toMatchObject({ status_type: 'success', roll_up_method: 'average', roll_up_count: 3, display_value: 'Medium' });
  });

  it('turns the metric column non-empty, and filters and sorts spans on its values', async () => {
    const s = await scored({ instructions: 'Rude? TYPE:boolean', user_prompt: '{output}', num_judges: 3 });
    const columns = async () =>
      (w.ok(await w.call('POST', `/v2/projects/${s.project}/spans/available_columns`, { auth: s.auth, json: { log_stream_id: s.logStream } })).columns as Array<{ id: string; is_empty: boolean }>).find(
        (c) => c.id === s.metric,
      );
    expect(await columns()).toMatchObject({ id: s.metric, is_empty: true, data_type: 'floating_point' });
    await ingest(s.auth, s.project, s.logStream, [trace(['rude one', 'meh two', 'fine three'])]);
    await settled(s.auth, s.project, s.logStream, 3);
    expect(await columns()).toMatchObject({ is_empty: false });
    const high = await search(s.auth, s.project, s.logStream, 'spans', { filters: [{ column_id: s.metric, type: 'number', operator: 'gte', value: 0.5 }], sort: { column_id: s.metric, ascending: false } });
    expect(high.map((x) => x['output'])).toEqual(['rude one', 'meh two']);
    const ascending = await search(s.auth, s.project, s.logStream, 'spans', { sort: { column_id: s.metric, ascending: true } });
    expect(ascending.map((x) => x['output'])).toEqual(['fine three', 'meh two', 'rude one']);
  });

  it.each([
    ['percentage', 0.5, 'floating_point'],
    ['float', 2, 'floating_point'],
    ['discrete', 3, 'floating_point'],
    ['count', 5, 'integer'],
    ['categorical', 'good', 'text'],
    ['multilabel', ['x', 'y'], 'string_list'],
  ] as const)('aggregates %s judgments as ChainPoll says (%j), searchable by its column', async (type, expected, dataType) => {
    const s = await scored({ instructions: `Judge it. TYPE:${type}`, output_type: type, num_judges: 3 });
    await ingest(s.auth, s.project, s.logStream, [trace(['something'])]);
    await settled(s.auth, s.project, s.logStream, 1);
    const [span] = await search(s.auth, s.project, s.logStream, 'spans');
    expect(span!['metrics'][s.name]).toEqual(expected);
    expect(span!['metric_info'][s.name]).toMatchObject({ status_type: 'success', value: expected, num_judges: 3, explanations: ['judge 1 on ' + type, 'judge 2 on ' + type, 'judge 3 on ' + type] });
    const columns = w.ok(await w.call('POST', `/v2/projects/${s.project}/spans/available_columns`, { auth: s.auth, json: { log_stream_id: s.logStream } })).columns;
    expect(columns.find((c: { id: string }) => c.id === s.metric)).toMatchObject({ data_type: dataType, is_empty: false });
    const filter =
      dataType === 'text'
        ? { column_id: s.metric, type: 'text', operator: 'eq', value: 'GOOD' }
        : dataType === 'string_list'
          ? { column_id: s.metric, type: 'collection', operator: 'contains', value: ['y'] }
          : { column_id: s.metric, type: 'number', operator: 'eq', value: expected };
    expect(await search(s.auth, s.project, s.logStream, 'spans', { filters: [filter] })).toHaveLength(1);
  });

  it('ends a version of an output type judges do not give in error, naming the type', async () => {
    const s = await scored({ instructions: 'TYPE:freeform', output_type: 'freeform', num_judges: 1 });
    const before = stub.completions.length;
    await ingest(s.auth, s.project, s.logStream, [trace(['x'])]);
    const st = await settled(s.auth, s.project, s.logStream, 1);
    expect(st.scorers[0].jobs.error).toBe(1);
    expect(st.scorers[0].last_error.message).toContain('output type "freeform" is not one an LLM judge gives');
    const [span] = await search(s.auth, s.project, s.logStream, 'spans');
    expect(span!['metric_info'][s.name]).toEqual({ status_type: 'error', scorer_type: 'llm', version: 1, message: expect.stringContaining('"freeform"') });
    expect(span!['metrics'][s.name]).toBeUndefined();
    expect(stub.completions.length).toBe(before);
  });

  it('samples: at 0.5 the same records are scored on two runs, and not all of them', async () => {
    const ids = Array.from({ length: 16 }, (_, i) => `0000000${i.toString(16)}-0000-4000-8000-000000000001`);
    const traces = () => [{ id: randomUUID(), name: 't', spans: ids.map((id) => ({ type: 'llm', id, output: 'meh' })) }];
    const scoredIds = async () => {
      const s = await scored({ instructions: 'TYPE:boolean', num_judges: 1 }, { sampleRate: 0.5 });
      await ingest(s.auth, s.project, s.logStream, traces());
      await settled(s.auth, s.project, s.logStream, 1);
      const spans = await search(s.auth, s.project, s.logStream, 'spans', { limit: 100 });
      const settings = w.ok(await w.call('GET', `/v2/projects/${s.project}/runs/${s.logStream}/scorer-settings`, { auth: s.auth }));
      expect(settings.scorers[0].sample_rate).toBe(0.5);
      return { s, chosen: spans.filter((x) => x['metric_info'][s.name] !== undefined).map((x) => x['id'] as string).sort() };
    };
    // The same scorer on two runs: sampling is by record id and scorer id.
    const first = await scoredIds();
    const other = await w.run(w.admin, first.s.project, 'log_streams');
    w.ok(await w.call('POST', `/v2/projects/${first.s.project}/runs/${other}/scorer-settings`, { auth: w.admin, json: { scorers: [{ scorer_id: first.s.scorer.id, sample_rate: 0.5 }] } }));
    await ingest(w.admin, first.s.project, other, traces());
    await settled(w.admin, first.s.project, other, 1);
    const again = (await search(w.admin, first.s.project, other, 'spans', { limit: 100 })).filter((x) => x['metric_info'][first.s.name] !== undefined).map((x) => x['id'] as string).sort();
    expect(again).toEqual(first.chosen);
    expect(first.chosen.length).toBeGreaterThan(0);
    expect(first.chosen.length).toBeLessThan(ids.length);
  });

  it('scores records stored before the settings only when asked: recompute (202, how many), within a time range', async () => {
    const auth = w.admin;
    const project = await w.project(auth);
    const logStream = await w.run(auth, project, 'log_streams');
    const old = trace(['rude a'], { created_at: '2020-01-01T00:00:00Z' });
    old.spans = old.spans.map((x) => ({ ...x, created_at: '2020-01-01T00:00:01Z' }));
    const recent = trace(['rude b']);
    await ingest(auth, project, logStream, [old, recent]);
    const s = await scored({ instructions: 'TYPE:boolean', num_judges: 1 }, { project });
    w.ok(await w.call('POST', `/v2/projects/${project}/runs/${logStream}/scorer-settings`, { auth, json: { scorers: [{ scorer_id: s.scorer.id }] } }));
    // A settings change scores what arrives after it: nothing is queued for what is stored.
    expect((await status(auth, project, logStream)).scorers[0].jobs).toEqual({ pending: 0, computing: 0, succeeded: 0, failed: 0, error: 0, not_applicable: 0, not_computed: 0 });
    const r = await w.call('POST', `/v2/projects/${project}/runs/${logStream}/metrics/recompute`, { auth, json: { created_before: new Date(Date.now() - 86_400_000).toISOString() } });
    expect(r.status).toBe(202);
    expect(r.body).toEqual({ run_id: logStream, queued: 1 });
    await settled(auth, project, logStream, 1);
    const spans = await search(auth, project, logStream, 'spans', { sort: { column_id: 'output', ascending: true } });
    expect(spans.map((x) => x['metrics'][s.name] ?? null)).toEqual([1, null]);
    // Every scorer, every record: the one left; the one scored stands.
    const all = await w.call('POST', `/v2/projects/${project}/runs/${logStream}/metrics/recompute`, { auth });
    expect(all.body).toEqual({ run_id: logStream, queued: 1 });
    await settled(auth, project, logStream, 2);
    expect((await search(auth, project, logStream, 'spans')).every((x) => x['metrics'][s.name] === 1)).toBe(true);
    // A scorer that is not the run's is refused.
    const stranger = await w.call('POST', `/v2/projects/${project}/runs/${logStream}/metrics/recompute`, { auth, json: { scorer_ids: [randomUUID()] } });
    expect(stranger.status).toBe(422);
    expect(stranger.body.detail[0].loc).toEqual(['body', 'scorer_ids', 0]);
  });

  it('takes one recompute of a scorer on a run at a time: 409 while the jobs of the last are pending or computing', async () => {
    const auth = w.admin;
    const project = await w.project(auth);
    const logStream = await w.run(auth, project, 'log_streams');
    await ingest(auth, project, logStream, [trace(['rude a', 'rude b'])]);
    const s = await scored({ instructions: 'TYPE:boolean', num_judges: 1 }, { project });
    w.ok(await w.call('POST', `/v2/projects/${project}/runs/${logStream}/scorer-settings`, { auth, json: { scorers: [{ scorer_id: s.scorer.id }] } }));
    const recompute = () => w.call('POST', `/v2/projects/${project}/runs/${logStream}/metrics/recompute`, { auth });
    // The judge holds its answers: the first recompute's jobs stay to do while the second is asked for.
    const release = stub.hold();
    try {
      const first = await recompute();
      expect([first.status, first.body.queued]).toEqual([202, 2]);
      const second = await recompute();
      expect(second.status).toBe(409);
      expect(second.body.detail).toContain('still being scored');
    } finally {
      release();
    }
    await settled(auth, project, logStream, 2);
    expect((await recompute()).status).toBe(202);
  });

  it('without a gateway integration ends jobs in error saying so, and a recompute once one is set scores them', async () => {
    const email = `${unique('nogateway')}@example.com`;
    const user = await w.user(email);
    const s = await scored({ instructions: 'TYPE:boolean', num_judges: 1 }, { auth: user.auth });
    await ingest(s.auth, s.project, s.logStream, [trace(['rude'])]);
    const st = await settled(s.auth, s.project, s.logStream, 1);
    expect(st.scorers[0].jobs.error).toBe(1);
    expect(st.scorers[0].last_error.message).toBe('no gateway integration: set one with PUT /v2/integrations/gateway, then recompute');
    const [span] = await search(s.auth, s.project, s.logStream, 'spans');
    expect(span!['metric_info'][s.name]).toMatchObject({ status_type: 'error', message: expect.stringContaining('no gateway integration') });
    // Still no gateway: a recompute queues nothing again (it would end the same way), and the job's error stands.
    const idle = await w.call('POST', `/v2/projects/${s.project}/runs/${s.logStream}/metrics/recompute`, { auth: s.auth });
    expect([idle.status, idle.body.queued]).toEqual([202, 0]);
    expect((await status(s.auth, s.project, s.logStream)).scorers[0].jobs).toMatchObject({ pending: 0, computing: 0, error: 1 });
    w.ok(await w.call('PUT', '/v2/integrations/gateway', { auth: user.auth, json: { token: `${TOKEN}-2`, endpoint: stub.url, use_case: 'EVALUATION' } }));
    expect((await w.call('POST', `/v2/projects/${s.project}/runs/${s.logStream}/metrics/recompute`, { auth: s.auth })).body.queued).toBe(1);
    const after = await settled(s.auth, s.project, s.logStream, 1);
    expect(after.scorers[0].jobs).toMatchObject({ succeeded: 1, error: 0 });
    const [again] = await search(s.auth, s.project, s.logStream, 'spans');
    expect(again!['metrics'][s.name]).toBe(1);
    expect(stub.completions.at(-1)!.bearer).toBe(`${TOKEN}-2`);
  });

  it('retries 429 (after its Retry-After), 500, a hang and an unreadable answer, then scores', async () => {
    const s = await scored({ instructions: 'TYPE:boolean', num_judges: 1 });
    stub.failNext({ kind: 'status', status: 429, retryAfter: '1' }).failNext({ kind: 'status', status: 500 });
    await ingest(s.auth, s.project, s.logStream, [trace(['rude'])]);
    let st = await settled(s.auth, s.project, s.logStream, 1);
    expect(st.scorers[0].jobs).toMatchObject({ succeeded: 1, failed: 0 });
    stub.failNext({ kind: 'hang' }).failNext({ kind: 'malformed' });
    await ingest(s.auth, s.project, s.logStream, [trace(['rude'])]);
    st = await settled(s.auth, s.project, s.logStream, 2);
    expect(st.scorers[0].jobs).toMatchObject({ succeeded: 2, failed: 0 });
  });

  it('fails a job, with the reason, on a permanent refusal and once retries of a wrong answer run out, logging each once at warn, never the token', async () => {
    const s = await scored({ instructions: 'TYPE:boolean', num_judges: 1 });
    stub.failNext({ kind: 'status', status: 401, message: `Incorrect API key provided: ${TOKEN}` });
    await ingest(s.auth, s.project, s.logStream, [trace(['rude'])]);
    let st = await settled(s.auth, s.project, s.logStream, 1);
    expect(st.scorers[0].jobs).toMatchObject({ failed: 1 });
    expect(st.scorers[0].last_error.message).toBe('the gateway answered 401: Incorrect API key provided: [redacted]');
    // A wrong answer, every attempt (3 here).
    stub.failNext({ kind: 'wrong_schema' }, 3);
    await ingest(s.auth, s.project, s.logStream, [trace(['rude'])]);
    st = await settled(s.auth, s.project, s.logStream, 2);
    expect(st.scorers[0].jobs).toMatchObject({ failed: 2 });
    expect(st.scorers[0].last_error.message).toMatch(/^gave up after 3 attempts: the judge's answer has no "rating"/);
    const spans = await search(s.auth, s.project, s.logStream, 'spans');
    expect(spans.map((x) => x['metric_info'][s.name].status_type)).toEqual(['failed', 'failed']);
    const warned = () => w.server.output.filter((l) => l.includes('"level":"warn"') && l.includes(s.scorer.id) && l.includes('scoring job failed'));
    await w.server.waitForOutput(/gave up after 3 attempts/);
    expect(warned()).toHaveLength(2);
    expect(w.server.output.join('\n')).not.toContain(TOKEN);
    expect(JSON.stringify(spans)).not.toContain(TOKEN);
  });

  it('stores and logs no form of the token a judge or a provider repeats: its explanation, an answer that does not parse, an encoded echo', async () => {
    const s = await scored({ instructions: 'TYPE:leaky', num_judges: 1 });
    await ingest(s.auth, s.project, s.logStream, [trace(['rude'])]);
    await settled(s.auth, s.project, s.logStream, 1);
    const [span] = await search(s.auth, s.project, s.logStream, 'spans');
    expect(span!['metric_info'][s.name]).toMatchObject({ status_type: 'success', explanation: 'your key is [redacted] ([redacted])' });
    const junk = await scored({ instructions: 'TYPE:leakyjunk', num_judges: 1 });
    await ingest(junk.auth, junk.project, junk.logStream, [trace(['rude'])]);
    let st = await settled(junk.auth, junk.project, junk.logStream, 1);
    expect(st.scorers[0].last_error.message).toBe('gave up after 3 attempts: the judge\'s answer is not a JSON object: "not JSON, your key is [redacted]"');
    // A provider that echoes the key in base64 in its refusal (as a Basic credential, and alone).
    const echo = await scored({ instructions: 'TYPE:boolean', num_judges: 1 });
    stub.failNext({ kind: 'status', status: 401, message: `bad key ${Buffer.from(`user:${TOKEN}`).toString('base64')} ${Buffer.from(TOKEN).toString('base64url')}` });
    await ingest(echo.auth, echo.project, echo.logStream, [trace(['rude'])]);
    st = await settled(echo.auth, echo.project, echo.logStream, 1);
    // Of the Basic credential, only the groups that also hold `user` are left.
    expect(st.scorers[0].last_error.message).toMatch(/^the gateway answered 401: bad key dXNlcj\S{0,2}\[redacted\]\S{0,4} \[redacted\]$/);
    await w.server.waitForOutput(/"level":"warn".*the gateway answered 401: bad key dXNlcj/, 10_000);
    const everything = [w.server.output.join('\n'), JSON.stringify(await search(junk.auth, junk.project, junk.logStream, 'spans')), JSON.stringify(await search(echo.auth, echo.project, echo.logStream, 'spans'))].join('\n');
    for (const form of [TOKEN, Buffer.from(TOKEN).toString('base64'), Buffer.from(TOKEN).toString('base64url'), Buffer.from(`Bearer ${TOKEN}`).toString('base64')]) expect(everything).not.toContain(form);
  });

  it('scores traces sent over OpenTelemetry too', async () => {
    const s = await scored({ instructions: 'TYPE:boolean', num_judges: 1, scoreable_node_types: ['llm'] });
    const logStreamName = w.ok(await w.call('GET', `/v2/projects/${s.project}/log_streams`, { auth: s.auth })).find((r: { id: string }) => r.id === s.logStream).name;
    const key = await w.apiKey(s.auth);
    const now = BigInt(Date.now()) * 1_000_000n;
    const span = (id: string, parent: string | undefined, kind: string, output: string) => ({
      traceId: 'a'.repeat(32),
      spanId: id,
      ...(parent ? { parentSpanId: parent } : {}),
      name: kind,
      startTimeUnixNano: String(now),
      endTimeUnixNano: String(now + 1_000_000n),
      attributes: [
        { key: 'openinference.span.kind', value: { stringValue: kind.toUpperCase() } },
        { key: 'output.value', value: { stringValue: output } },
      ],
    });
    const r = await w.call('POST', '/v1/traces', {
      headers: { 'Service-API-Key': key, project: s.project, logstream: logStreamName },
      json: { resourceSpans: [{ scopeSpans: [{ spans: [span('1'.repeat(16), undefined, 'chain', 'done'), span('2'.repeat(16), '1'.repeat(16), 'llm', 'rude reply')] }] }] },
    });
    expect(r.status).toBe(200);
    await settled(s.auth, s.project, s.logStream, 1);
    const spans = await search(s.auth, s.project, s.logStream, 'spans');
    expect(spans.find((x) => x['type'] === 'llm')!['metrics'][s.name]).toBe(1);
  });

  it('keeps luna versions\' jobs as not_computed, and code versions\' in a server that runs no sandbox (TRACELIGHT_SANDBOX_WORKERS=0), saying why', async () => {
    const auth = w.admin;
    const project = await w.project(auth);
    const logStream = await w.run(auth, project, 'log_streams');
    const luna = w.ok(await w.call('POST', '/v2/scorers', { auth, json: { name: unique('luna'), scorer_type: 'luna', defaults: { scoreable_node_types: ['llm'] } } }));
    w.ok(await w.call('POST', `/v2/scorers/${luna.id}/version/luna`, { auth, json: { lora_task_id: 1, prompt: 'p' } }));
    const code = w.ok(await w.call('POST', '/v2/scorers', { auth, json: { name: unique('code'), scorer_type: 'code' } }));
    const form = new FormData();
    form.append('file', new Blob(['def scorer_fn(*, index, node_input, node_output, **kwargs):\n    return 1.0\n']), 'scorer.py');
    w.ok(await w.call('POST', `/v2/scorers/${code.id}/version/code`, { auth, multipart: form }));
    w.ok(await w.call('POST', `/v2/projects/${project}/runs/${logStream}/scorer-settings`, { auth, json: { scorers: [{ scorer_id: luna.id }, { scorer_id: code.id }] } }));
    await ingest(auth, project, logStream, [trace(['x'])]);
    const st = await settled(auth, project, logStream, 2);
    expect(st.scorers.map((x: { jobs: { not_computed: number } }) => x.jobs.not_computed)).toEqual([1, 1]);
    const [span] = await search(auth, project, logStream, 'spans');
    expect(span!['metric_info'][code.name]).toEqual({ status_type: 'not_computed', scorer_type: 'code', version: 1, message: expect.stringContaining('code scorers are not run') });
    expect(span!['metric_info'][luna.name]).toMatchObject({ status_type: 'not_computed', scorer_type: 'luna', message: expect.stringContaining('luna') });
  });

  it('reports the queue, judge latency and outcomes, and tokens in /metrics', async () => {
    const text = (await w.call('GET', '/metrics')).text;
    expect(text).toMatch(/^tracelight_scoring_queue_jobs\{state="pending"\} \d+$/m);
    expect(text).toMatch(/^tracelight_judge_call_duration_seconds_count\{outcome="ok"\} [1-9]\d*$/m);
    expect(text).toMatch(/^tracelight_judge_call_duration_seconds_count\{outcome="retryable"\} [1-9]\d*$/m);
    expect(text).toMatch(/^tracelight_judge_tokens_total\{kind="prompt"\} [1-9]\d*$/m);
    expect(text).toMatch(/^tracelight_scoring_jobs_finished_total\{state="success"\} [1-9]\d*$/m);
    expect(text).not.toContain(TOKEN);
  });
});

describe('a server left to its default address policy', () => {
  let strict: World;
  beforeAll(async () => {
    strict = await startWorld({ TRACELIGHT_SCORING_WORKERS: '2', TRACELIGHT_SCORING_POLL_MS: '50', TRACELIGHT_GATEWAY_ALLOWED_NETWORKS: '' });
  }, 60_000);
  afterAll(async () => {
    await strict?.server.stop();
  });

  it('refuses a gateway endpoint with a query, which would choose the path judges call', async () => {
    const r = await strict.call('PUT', '/v2/integrations/gateway', { auth: strict.admin, json: { token: TOKEN, endpoint: `${stub.url.replace('/v1', '')}/internal/admin/keys?q=`, use_case: 'EVALUATION' } });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'endpoint'], type: 'value_error' })]);
  });

  it('calls no loopback gateway: the job ends in error saying how an operator allows it', async () => {
    const auth = strict.admin;
    strict.ok(await strict.call('PUT', '/v2/integrations/gateway', { auth, json: { token: TOKEN, endpoint: stub.url, use_case: 'EVALUATION' } }));
    const project = await strict.project(auth);
    const logStream = await strict.run(auth, project, 'log_streams');
    const scorer = strict.ok(await strict.call('POST', '/v2/scorers', { auth, json: { name: unique('strict'), scorer_type: 'llm' } }));
    strict.ok(await strict.call('POST', `/v2/scorers/${scorer.id}/version/llm`, { auth, json: { instructions: 'TYPE:boolean', num_judges: 1 } }));
    strict.ok(await strict.call('POST', `/v2/projects/${project}/runs/${logStream}/scorer-settings`, { auth, json: { scorers: [{ scorer_id: scorer.id }] } }));
    const before = stub.requests.length;
    strict.ok(await strict.call('POST', `/v2/projects/${project}/traces`, { auth, json: { log_stream_id: logStream, traces: [trace(['rude'])] } }));
    const deadline = Date.now() + 45_000;
    let st: any;
    for (;;) {
      st = strict.ok(await strict.call('GET', `/v2/projects/${project}/runs/${logStream}/metrics/status`, { auth }));
      if (st.scorers[0].jobs.error === 1) break;
      if (Date.now() > deadline) throw new Error(`the job did not end: ${JSON.stringify(st)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const message = "the gateway's address 127.0.0.1 is loopback: judges call public addresses only; an operator may allow it with TRACELIGHT_GATEWAY_ALLOWED_NETWORKS";
    expect(st.scorers[0].last_error.message).toBe(message);
    const [span] = strict.ok(await strict.call('POST', `/v2/projects/${project}/spans/search`, { auth, json: { log_stream_id: logStream } })).records;
    expect(span.metric_info[scorer.name]).toEqual({ status_type: 'error', scorer_type: 'llm', version: 1, message });
    expect(stub.requests.length).toBe(before);
  });
});

describe('immediate mode (the SDKs streaming: a record sent incomplete, then PATCHed with its output)', () => {
  it('judges a span once the PATCH that completes it brings its output, once; again when its output changes; not for a PATCH of tags', async () => {
    const s = await scored({ instructions: 'Is the output rude? TYPE:boolean', user_prompt: 'Output to judge: {output}', num_judges: 3, scoreable_node_types: ['llm'] });
    const run = { log_stream_id: s.logStream, logging_method: 'api_direct', client_version: null, reliable: true };
    const traceId = randomUUID();
    const spanId = randomUUID();
    const before = stub.completions.length;
    // The trace, then its span, each incomplete and without output, as the SDKs stream them.
    w.ok(await w.call('POST', `/v2/projects/${s.project}/traces`, { auth: s.auth, json: { ...run, traces: [{ id: traceId, name: 'chat', input: 'hi', output: null }], is_complete: false } }));
    w.ok(
      await w.call('POST', `/v2/projects/${s.project}/spans`, {
        auth: s.auth,
        json: { ...run, trace_id: traceId, parent_id: traceId, is_complete: false, spans: [{ type: 'llm', id: spanId, name: 'answer', input: 'say something', output: null }] },
      }),
    );
    // No job for the incomplete span: nothing to claim, so no judge is ever called on its missing output.
    const idle = await status(s.auth, s.project, s.logStream);
    expect(idle.scorers[0].jobs).toEqual({ pending: 0, computing: 0, succeeded: 0, failed: 0, error: 0, not_applicable: 0, not_computed: 0 });
    const [waiting] = await search(s.auth, s.project, s.logStream, 'spans');
    expect(waiting).toMatchObject({ id: spanId, is_complete: false });
    expect(waiting!['metric_info'] ?? {}).toEqual({});
    // Nor does a recompute queue one: the record waits for the PATCH that completes it.
    const recompute = await w.call('POST', `/v2/projects/${s.project}/runs/${s.logStream}/metrics/recompute`, { auth: s.auth, json: {} });
    expect([recompute.status, recompute.body]).toEqual([202, { run_id: s.logStream, queued: 0 }]);

    // The PATCH completes it with its output: one job, written with it; one judge call, on that output.
    const output = `you are rude ${randomUUID()}`;
    w.ok(await w.call('PATCH', `/v2/projects/${s.project}/spans/${spanId}`, { auth: s.auth, json: { ...run, span_id: spanId, output, is_complete: true } }));
    w.ok(await w.call('PATCH', `/v2/projects/${s.project}/traces/${traceId}`, { auth: s.auth, json: { ...run, trace_id: traceId, output: 'bye', is_complete: true } }));
    const done = await settled(s.auth, s.project, s.logStream, 1);
    expect(done.scorers[0].jobs).toMatchObject({ pending: 0, computing: 0, succeeded: 1 });
    const sent = stub.completions.slice(before);
    expect(sent).toHaveLength(1);
    expect(lastUserText(sent[0]!)).toBe(`Output to judge: ${output}`);
    const rude = await search(s.auth, s.project, s.logStream, 'spans', { filters: [{ column_id: s.metric, type: 'number', operator: 'eq', value: 1 }] });
    expect(rude.map((x) => [x['id'], x['output'], x['metrics'][s.name], x['metric_info'][s.name]['status_type']])).toEqual([[spanId, output, 1, 'success']]);
    const [tr] = await search(s.auth, s.project, s.logStream, 'traces');
    expect(tr!['metrics'][s.name]).toBe(1);

    // A PATCH that changes nothing the judge reads (tags, status): no job, no call, the value stands.
    w.ok(await w.call('PATCH', `/v2/projects/${s.project}/spans/${spanId}`, { auth: s.auth, json: { ...run, span_id: spanId, tags: ['reviewed'], status_code: 200 } }));
    expect((await status(s.auth, s.project, s.logStream)).scorers[0].jobs).toMatchObject({ pending: 0, computing: 0, succeeded: 1 });

    // A PATCH that changes the output: judged again, on the new output, its value replacing the earlier one.
    const polite = `thank you ${randomUUID()}`;
    w.ok(await w.call('PATCH', `/v2/projects/${s.project}/spans/${spanId}`, { auth: s.auth, json: { ...run, span_id: spanId, output: polite } }));
    const again = await settled(s.auth, s.project, s.logStream, 1);
    expect(again.scorers[0].jobs).toMatchObject({ pending: 0, computing: 0, succeeded: 1, failed: 0 });
    const sentAgain = stub.completions.slice(before);
    expect(sentAgain.map((r) => lastUserText(r))).toEqual([`Output to judge: ${output}`, `Output to judge: ${polite}`]);
    const [span] = await search(s.auth, s.project, s.logStream, 'spans');
    expect([span!['output'], span!['tags'], span!['metrics'][s.name], span!['metric_info'][s.name]['explanations']]).toEqual([polite, ['reviewed'], 0, ['judge 1 says false', 'judge 2 says false', 'judge 3 says false']]);
    expect(await search(s.auth, s.project, s.logStream, 'spans', { filters: [{ column_id: s.metric, type: 'number', operator: 'eq', value: 1 }] })).toEqual([]);
  });
});
