// The origin's Python SDK, request by request: PyPI is not reachable here, so its requests are sent as
// it sends them (bodies as pydantic dumps them: unset members as null, times to the microsecond, the
// `X-Galileo-SDK` header, a bearer token from /login/api_key), and each answer is checked against what
// the SDK then requires of it: the members it reads, ids that pass pydantic's UUID4 (version nibble 4).
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { type Auth, http } from '../support/http';
import { ADMIN, startServer } from '../support/server';
import { startWorld, type World } from '../support/world';

let w: World;
beforeAll(async () => {
  w = await startWorld();
});
afterAll(() => w?.server.stop());

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** What pydantic's UUID4 accepts: a UUID whose version is 4 (and of RFC 4122's variant). */
const expectUuid4 = (id: unknown) => expect(id).toMatch(V4);
const SDK = { 'X-Galileo-SDK': 'galileo-python/1.49.2 logger' };

/** Signs in as the SDK does: POST /login/api_key, then every request with the bearer token and the SDK header. */
const pythonSdk = async (auth: Auth = w.admin) => {
  const key = await w.apiKey(auth);
  const token = w.ok(await w.call('POST', '/login/api_key', { json: { api_key: key }, headers: SDK })).access_token as string;
  return (method: string, url: string, json?: unknown) => w.call(method, url, { auth: { bearer: token }, headers: SDK, ...(json === undefined ? {} : { json }) });
};
type Py = Awaited<ReturnType<typeof pythonSdk>>;

/** A span as galileo-core dumps it (mode="json"): every member, unset ones null. */
const pySpan = (type: string, over: Record<string, unknown> = {}) => ({
  type,
  input: 'question',
  redacted_input: null,
  output: 'answer',
  redacted_output: null,
  name: type,
  created_at: '2026-02-03T04:05:06.123456Z',
  user_metadata: {},
  tags: [],
  status_code: 200,
  metrics: { duration_ns: 1200, num_input_tokens: null, num_output_tokens: null, num_total_tokens: null, time_to_first_token_ns: null },
  external_id: null,
  dataset_input: null,
  dataset_output: null,
  dataset_metadata: {},
  id: randomUUID(),
  session_id: null,
  step_number: null,
  spans: [],
  ...(type === 'llm' ? { model: 'gpt-4o', temperature: null, tools: null, finish_reason: null, events: null } : {}),
  ...over,
});
const pyTrace = (over: Record<string, unknown> = {}) => ({ ...pySpan('trace'), name: 'chat', ...over });

/** The run's records of one scope, oldest first. */
const records = async (py: Py, projectId: string, scope: 'traces' | 'spans' | 'sessions', run: Record<string, string>) =>
  w.ok(await py('POST', `/v2/projects/${projectId}/${scope}/search`, { ...run, sort: { column_id: 'created_at', ascending: true }, limit: 1000 })).records as Array<Record<string, unknown>>;

/** The SDK's first run: find or create its project and log stream by name. */
const firstRun = async (py: Py, name: string) => {
  const found = w.ok(await py('GET', `/projects?project_name=${encodeURIComponent(name)}&type=gen_ai`));
  const project = found[0] ?? w.ok(await py('POST', '/projects', { name, type: 'gen_ai', create_example_templates: false }));
  const streams = w.ok(await py('GET', `/projects/${project.id}/log_streams?include_counts=false`));
  const logStream = streams.find((s: { name: string }) => s.name === 'default') ?? w.ok(await py('POST', `/projects/${project.id}/log_streams`, { name: 'default' }));
  return { projectId: project.id as string, logStreamId: logStream.id as string };
};

describe('the Python SDK logger', () => {
  it('runs its first flow, and every one after, on answers that carry what it reads and ids that pass UUID4', async () => {
    expect((await w.call('GET', '/healthcheck')).status).toBe(200);
    const py = await pythonSdk();
    const me = w.ok(await py('GET', '/current_user'));
    expectUuid4(me.id);
    expect(me).toMatchObject({ email: ADMIN.email, role: 'admin' });

    const name = `py-${Date.now()}`;
    expect(w.ok(await py('GET', `/projects?project_name=${name}&type=gen_ai`))).toEqual([]);
    const created = w.ok(await py('POST', '/projects', { name, type: 'gen_ai', create_example_templates: false }));
    expectUuid4(created.id);
    // Every run after the first finds the project, and reads these members of it (a KeyError without one).
    const [project] = w.ok(await py('GET', `/projects?project_name=${name}&type=gen_ai`));
    expect(project).toEqual({
      id: created.id,
      name,
      type: 'gen_ai',
      created_by: me.id,
      created_by_user: { id: me.id, email: me.email, first_name: null, last_name: null },
      runs: [],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(w.ok(await py('GET', `/projects/${created.id}`))).toEqual(project);

    expect(w.ok(await py('GET', `/projects/${created.id}/log_streams?include_counts=false`))).toEqual([]);
    const stream = w.ok(await py('POST', `/projects/${created.id}/log_streams`, { name: 'default' }));
    expectUuid4(stream.id);
    expect(stream).toEqual({ id: stream.id, name: 'default', project_id: created.id, created_by: me.id, created_at: expect.any(String), updated_at: expect.any(String) });

    const trace = pyTrace({ spans: [pySpan('llm', { input: [{ role: 'user', content: 'Who wrote Les Misérables?' }], output: { role: 'assistant', content: 'Victor Hugo.' } })] });
    const ingested = await py('POST', `/v2/projects/${created.id}/traces`, {
      log_stream_id: stream.id,
      experiment_id: null,
      logging_method: 'api_direct',
      client_version: null,
      reliable: false,
      traces: [trace],
      session_id: null,
      is_complete: true,
    });
    expect(ingested.status).toBe(200);
    expect(ingested.body).toEqual({ project_id: created.id, project_name: name, log_stream_id: stream.id, session_id: null, records_count: 2, traces_count: 1, spans_count: 1 });
    // The second run: the same look-ups find what the first made, and nothing is made twice.
    expect(await firstRun(py, name)).toEqual({ projectId: created.id, logStreamId: stream.id });
    const [stored] = await records(py, created.id, 'traces', { log_stream_id: stream.id });
    expect(stored).toMatchObject({ id: trace.id, name: 'chat', created_at: '2026-02-03T04:05:06.123456Z', is_complete: true, has_children: true });
  });

  it('keeps span times to the microsecond, so children made within one millisecond keep their order', async () => {
    const py = await pythonSdk();
    const { projectId, logStreamId } = await firstRun(py, `py-times-${Date.now()}`);
    // Ids sorting against the times: only the microseconds can order them.
    const ids = ['f', 'c', 'a'].map((c) => `${c}0000000-0000-4000-8000-${randomUUID().slice(-12)}`);
    const spans = [1, 2, 3].map((us, i) => pySpan('tool', { id: ids[i], name: `step-${us}`, created_at: `2026-02-03T04:05:06.12300${us}+00:00` }));
    w.ok(await py('POST', `/v2/projects/${projectId}/traces`, { log_stream_id: logStreamId, traces: [pyTrace({ spans })] }));
    const found = await records(py, projectId, 'spans', { log_stream_id: logStreamId });
    expect(found.map((s) => [s['name'], s['created_at']])).toEqual([
      ['step-1', '2026-02-03T04:05:06.123001Z'],
      ['step-2', '2026-02-03T04:05:06.123002Z'],
      ['step-3', '2026-02-03T04:05:06.123003Z'],
    ]);
  });
});

describe('experiments', () => {
  it('keep task_type as sent (16 when left out), as create_experiment, get_experiments and run_experiment read it', async () => {
    const py = await pythonSdk();
    const { projectId } = await firstRun(py, `py-exp-${Date.now()}`);
    const sent = w.ok(await py('POST', `/projects/${projectId}/experiments`, { name: 'prompt-v1', task_type: 16 }));
    expectUuid4(sent.id);
    expect(sent).toMatchObject({ project_id: projectId, task_type: 16 });
    const other = w.ok(await py('POST', `/projects/${projectId}/experiments`, { name: 'prompt-v2', task_type: 7 }));
    const left = w.ok(await py('POST', `/projects/${projectId}/experiments`, { name: 'prompt-v3' }));
    expect([other.task_type, left.task_type]).toEqual([7, 16]);
    const listed = w.ok(await py('GET', `/projects/${projectId}/experiments?include_counts=false`));
    expect(listed.map((e: { name: string; task_type: number }) => [e.name, e.task_type])).toEqual([['prompt-v1', 16], ['prompt-v2', 7], ['prompt-v3', 16]]);
    // A name the project has is still refused for an experiment (the SDK picks another).
    expect((await py('POST', `/projects/${projectId}/experiments`, { name: 'prompt-v1', task_type: 16 })).status).toBe(409);
  });
});

describe('sessions with an external id', () => {
  it('1.x: finds the session by a filter naming its column by `name`, so it is not made twice', async () => {
    const py = await pythonSdk();
    const { projectId, logStreamId } = await firstRun(py, `py-sessions-${Date.now()}`);
    const search = (filter: Record<string, unknown>) =>
      py('POST', `/v2/projects/${projectId}/sessions/search`, { log_stream_id: logStreamId, experiment_id: null, filters: [filter] });
    const byName = { type: 'text', name: 'external_id', value: 'ext-session-1', operator: 'eq' };
    expect(w.ok(await search(byName)).records).toEqual([]);
    const session = w.ok(await py('POST', `/v2/projects/${projectId}/sessions`, { log_stream_id: logStreamId, experiment_id: null, name: 'chat', previous_session_id: null, external_id: 'ext-session-1' }));
    expectUuid4(session.id);
    expect(w.ok(await search(byName)).records.map((s: { id: string }) => s.id)).toEqual([session.id]);
    // The JS SDK's form, and neither.
    expect(w.ok(await search({ type: 'text', column_id: 'external_id', value: 'ext-session-1', operator: 'eq' })).records).toHaveLength(1);
    const neither = await search({ type: 'text', value: 'ext-session-1', operator: 'eq' });
    expect([neither.status, neither.body.detail]).toEqual([422, [expect.objectContaining({ loc: ['body', 'filters', 0, 'column_id'], type: 'missing' })]]);
    // A session id that passes UUID4 is one the SDK keeps for its traces.
    const ingested = w.ok(await py('POST', `/v2/projects/${projectId}/traces`, { log_stream_id: logStreamId, traces: [pyTrace()], session_id: session.id, is_complete: true }));
    expect(ingested.session_id).toBe(session.id);
  });

  it('2.x: traces sent with session_external_id go into the one session of that external id, made on first use, however many arrive at once', async () => {
    const py = await pythonSdk();
    const { projectId, logStreamId } = await firstRun(py, `py-external-${Date.now()}`);
    const ingest = (externalId: string) =>
      py('POST', `/v2/projects/${projectId}/traces`, { log_stream_id: logStreamId, traces: [pyTrace({ id: randomUUID() })], session_external_id: externalId, is_complete: true });
    const first = w.ok(await ingest('conversation-9'));
    expectUuid4(first.session_id);
    expect(w.ok(await ingest('conversation-9')).session_id).toBe(first.session_id);
    // A session made by POST …/sessions with the external id is the one taken.
    const made = w.ok(await py('POST', `/v2/projects/${projectId}/sessions`, { log_stream_id: logStreamId, name: 'earlier', external_id: 'made-first' }));
    expect(w.ok(await ingest('made-first')).session_id).toBe(made.id);
    // Eight at once naming a new external id: one session.
    const racing = (await Promise.all(Array.from({ length: 8 }, () => ingest('all-at-once')))).map((r) => w.ok(r).session_id);
    expect(new Set(racing).size).toBe(1);
    const sessions = await records(py, projectId, 'sessions', { log_stream_id: logStreamId });
    expect(sessions.filter((s) => s['external_id'] === 'all-at-once').map((s) => s['id'])).toEqual([racing[0]]);
    expect(sessions.filter((s) => s['external_id'] === 'conversation-9')).toHaveLength(1);
    const traces = await records(py, projectId, 'traces', { log_stream_id: logStreamId });
    expect(traces.filter((t) => t['session_id'] === racing[0])).toHaveLength(8);
    // session_id, when sent, is the session (the external id is then not read).
    expect(w.ok(await py('POST', `/v2/projects/${projectId}/traces`, { log_stream_id: logStreamId, traces: [pyTrace({ id: randomUUID() })], session_id: made.id, session_external_id: 'elsewhere' })).session_id).toBe(made.id);
    // A trace that names its own session keeps it; the others of the batch go into the external id's.
    const own = randomUUID();
    const mixed = w.ok(
      await py('POST', `/v2/projects/${projectId}/traces`, { log_stream_id: logStreamId, traces: [pyTrace({ id: own, session_id: made.id }), pyTrace({ id: randomUUID() })], session_external_id: 'conversation-9' }),
    );
    expect(mixed.session_id).toBe(first.session_id);
    const after = await records(py, projectId, 'traces', { log_stream_id: logStreamId });
    expect(after.find((t) => t['id'] === own)?.['session_id']).toBe(made.id);
    expect(after.filter((t) => t['session_id'] === first.session_id)).toHaveLength(3);
  });

  it('2.x: an ingest refused 422 makes no session for its session_external_id', async () => {
    const py = await pythonSdk();
    const { projectId, logStreamId } = await firstRun(py, `py-external-refused-${Date.now()}`);
    const id = randomUUID();
    const refused = await py('POST', `/v2/projects/${projectId}/traces`, { log_stream_id: logStreamId, traces: [pyTrace({ id }), pyTrace({ id })], session_external_id: 'partial-write-check' });
    expect([refused.status, refused.body.detail[0].msg]).toEqual([422, `Value error, id ${id} is used twice in this request`]);
    expect(await records(py, projectId, 'sessions', { log_stream_id: logStreamId })).toEqual([]);
    expect(await records(py, projectId, 'traces', { log_stream_id: logStreamId })).toEqual([]);
  });
});

// Twice, as the tracing suite: bodies parsed on the request thread, and every body handed to an offload worker.
describe.each([
  ['', {}],
  [', every body handed to an offload worker', { TRACELIGHT_OFFLOAD_MIN_BYTES: '0' }],
])('distributed mode (immediate logging)%s', (_, env: Record<string, string>) => {
  let shared: World | undefined;
  let own: World | undefined;
  beforeAll(async () => {
    if (Object.keys(env).length === 0) return;
    shared = w;
    own = await startWorld(env);
    w = own;
  });
  afterAll(async () => {
    if (own === undefined) return;
    w = shared!;
    await own.server.stop();
  });
  it('adds spans under a trace not stored yet, then updates the span and the trace, with and without /v2', async () => {
    const py = await pythonSdk();
    const name = `py-distributed-${Date.now()}`;
    const { projectId, logStreamId } = await firstRun(py, name);
    const traceId = randomUUID();
    const workflow = pySpan('workflow', { name: 'agent-step', output: null, status_code: null });
    const run = { log_stream_id: logStreamId, experiment_id: null, logging_method: 'api_direct', client_version: null, reliable: true };
    // The span first: its trace arrives after.
    const added = await py('POST', `/v2/projects/${projectId}/spans`, { ...run, spans: [workflow], trace_id: traceId, parent_id: traceId });
    expect(added.status).toBe(200);
    expect(added.body).toEqual({ project_id: projectId, project_name: name, log_stream_id: logStreamId, session_id: null, records_count: 1, trace_id: traceId, parent_id: traceId });
    w.ok(await py('POST', `/v2/projects/${projectId}/traces`, { ...run, traces: [pyTrace({ id: traceId, output: null, status_code: null })], session_id: null, is_complete: false }));
    const llm = pySpan('llm', { name: 'call' });
    w.ok(await py('POST', `/projects/${projectId}/spans`, { ...run, spans: [llm], trace_id: traceId, parent_id: workflow.id }));

    const spanUpdate = await py('PATCH', `/v2/projects/${projectId}/spans/${workflow.id}`, {
      ...run, span_id: workflow.id, input: null, output: 'planned', tags: ['planned'], status_code: 200,
    });
    expect(spanUpdate.body).toEqual({ project_id: projectId, project_name: name, log_stream_id: logStreamId, session_id: null, records_count: 1, span_id: workflow.id });
    const traceUpdate = await py('PATCH', `/projects/${projectId}/traces/${traceId}`, {
      ...run, trace_id: traceId, input: null, output: 'done', status_code: 200, tags: ['concluded'], is_complete: true, duration_ns: 5_000_000,
    });
    expect(traceUpdate.body).toEqual({ project_id: projectId, project_name: name, log_stream_id: logStreamId, session_id: null, records_count: 1, trace_id: traceId });

    const [trace] = await records(py, projectId, 'traces', { log_stream_id: logStreamId });
    expect(trace).toMatchObject({ id: traceId, input: 'question', output: 'done', status_code: 200, tags: ['concluded'], is_complete: true, has_children: true, metrics: { duration_ns: 5_000_000 } });
    // (Both sent with one time: in name order.)
    const spans = [...(await records(py, projectId, 'spans', { log_stream_id: logStreamId }))].sort((a, b) => String(a['name']).localeCompare(String(b['name'])));
    expect(spans.map((s) => [s['name'], s['parent_id'], s['output'], s['tags'], s['has_children']])).toEqual([
      ['agent-step', traceId, 'planned', ['planned'], true],
      ['call', workflow.id, 'answer', [], false],
    ]);
  });

  it('refuses as a batch ingest does: all or nothing, ownership, validation, and a record of the other kind', async () => {
    const py = await pythonSdk();
    const { projectId, logStreamId } = await firstRun(py, `py-refusals-${Date.now()}`);
    const traceId = randomUUID();
    const span = pySpan('tool');
    w.ok(await py('POST', `/v2/projects/${projectId}/traces`, { log_stream_id: logStreamId, traces: [pyTrace({ id: traceId, spans: [span] })] }));
    const spansBefore = await records(py, projectId, 'spans', { log_stream_id: logStreamId });
    // A bad span among good ones: 422 naming it, nothing stored.
    const bad = await py('POST', `/v2/projects/${projectId}/spans`, { log_stream_id: logStreamId, trace_id: traceId, parent_id: traceId, spans: [pySpan('llm'), pySpan('nonsense')] });
    expect([bad.status, bad.body.detail[0].loc]).toEqual([422, ['body', 'spans', 1, 'type']]);
    // A span under a stored session's id: 409, nothing stored.
    const session = w.ok(await py('POST', `/v2/projects/${projectId}/sessions`, { log_stream_id: logStreamId, name: 's' }));
    const clash = await py('POST', `/v2/projects/${projectId}/spans`, { log_stream_id: logStreamId, trace_id: traceId, parent_id: traceId, spans: [pySpan('llm'), pySpan('tool', { id: session.id })] });
    expect(clash.status).toBe(409);
    expect(await records(py, projectId, 'spans', { log_stream_id: logStreamId })).toEqual(spansBefore);
    // What the request names must fit what is stored: a span may not take a stored trace's id, trace_id
    // must name a trace, parent_id that trace or one of its spans. 409 each, nothing stored.
    const otherTrace = randomUUID();
    w.ok(await py('POST', `/v2/projects/${projectId}/traces`, { log_stream_id: logStreamId, traces: [pyTrace({ id: otherTrace, spans: [] })] }));
    const tracesBefore = await records(py, projectId, 'traces', { log_stream_id: logStreamId });
    const sessionsBefore = await records(py, projectId, 'sessions', { log_stream_id: logStreamId });
    const append = (trace_id: string, parent_id: string, spans: unknown[] = [pySpan('llm')]) => py('POST', `/v2/projects/${projectId}/spans`, { log_stream_id: logStreamId, trace_id, parent_id, spans });
    const refusals = [
      await append(otherTrace, otherTrace, [pySpan('llm', { id: traceId })]),
      await append(span.id, span.id),
      await append(session.id, session.id),
      await append(otherTrace, span.id),
      await append(otherTrace, traceId),
      await append(otherTrace, session.id),
    ];
    expect(refusals.map((r) => [r.status, r.body.detail])).toEqual([
      [409, `record ${traceId} is a trace of this run: a span cannot take its id`],
      [409, `trace_id ${span.id} is a span of this run, not a trace`],
      [409, `trace_id ${session.id} is a session of this run, not a trace`],
      [409, `parent_id ${span.id} is a span of trace ${traceId}, not of trace ${otherTrace}`],
      [409, `parent_id ${traceId} is a trace of this run, not trace ${otherTrace} or one of its spans`],
      [409, `parent_id ${session.id} is a session of this run, not trace ${otherTrace} or one of its spans`],
    ]);
    expect(await records(py, projectId, 'traces', { log_stream_id: logStreamId })).toEqual(tracesBefore);
    expect(await records(py, projectId, 'spans', { log_stream_id: logStreamId })).toEqual(spansBefore);
    expect(await records(py, projectId, 'sessions', { log_stream_id: logStreamId })).toEqual(sessionsBefore);
    // Under a stored span of the trace named, and under a parent not stored yet: taken.
    expect((await append(traceId, span.id)).status).toBe(200);
    expect((await append(otherTrace, randomUUID())).status).toBe(200);
    // Updates: an unknown id, a span's id on the trace route, a body naming another record, a bad member.
    const patch = (kind: string, id: string, body: Record<string, unknown>) => py('PATCH', `/v2/projects/${projectId}/${kind}/${id}`, { log_stream_id: logStreamId, ...body });
    expect((await patch('traces', randomUUID(), { trace_id: randomUUID() })).status).toBe(422);
    const unknown = randomUUID();
    expect((await patch('traces', unknown, { trace_id: unknown, output: 'x' })).status).toBe(404);
    expect((await patch('traces', span.id, { trace_id: span.id, output: 'x' })).status).toBe(404);
    expect((await patch('spans', traceId, { span_id: traceId, output: 'x' })).status).toBe(404);
    expect((await patch('spans', span.id, { span_id: span.id, status_code: 'teapot' })).status).toBe(422);
    // Another user's project is not found; a read-only user may not write.
    const stranger = await pythonSdk((await w.user(`py-stranger-${Date.now()}@example.com`)).auth);
    expect((await stranger('POST', `/v2/projects/${projectId}/spans`, { log_stream_id: logStreamId, trace_id: traceId, parent_id: traceId, spans: [pySpan('llm')] })).status).toBe(404);
    expect((await stranger('PATCH', `/v2/projects/${projectId}/traces/${traceId}`, { log_stream_id: logStreamId, trace_id: traceId, output: 'x' })).status).toBe(404);
    const email = `py-reader-${Date.now()}@example.com`;
    await w.client.createUser({ email, password: 'a reader password', role: 'read_only' });
    const reader = await pythonSdk({ bearer: await w.login(email, 'a reader password') });
    expect((await reader('GET', '/projects/all?type=gen_ai')).status).toBe(200);
    const other = await reader('POST', '/projects', { name: `reader-${Date.now()}` });
    expect(other.status).toBe(403);
    const trace = (await records(py, projectId, 'traces', { log_stream_id: logStreamId })).find((t) => t['id'] === traceId);
    expect(trace).toMatchObject({ id: traceId, output: 'answer' });
  });

  it('answers the log stream of a name the project has: three parallel first calls all get the one log stream', async () => {
    const py = await pythonSdk();
    const { projectId } = await firstRun(py, `py-parallel-${Date.now()}`);
    const replies = await Promise.all([0, 1, 2].map(() => py('POST', `/projects/${projectId}/log_streams`, { name: 'streaming' })));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(new Set(replies.map((r) => r.body.id)).size).toBe(1);
    expect(w.ok(await py('GET', `/projects/${projectId}/log_streams`)).filter((s: { name: string }) => s.name === 'streaming')).toHaveLength(1);
  });
});

describe('helper routes', () => {
  it('list_projects: GET /projects/all by type or project_type', async () => {
    const py = await pythonSdk();
    const name = `py-all-${Date.now()}`;
    const { projectId } = await firstRun(py, name);
    for (const query of ['?type=gen_ai', '?project_type=gen_ai', '']) {
      const listed = w.ok(await py('GET', `/projects/all${query}`));
      expect(listed.find((p: { id: string }) => p.id === projectId)).toMatchObject({ name, created_by_user: expect.objectContaining({ email: ADMIN.email }), runs: [] });
    }
    expect(w.ok(await py('GET', '/projects/all?type=llm_monitor')).find((p: { id: string }) => p.id === projectId)).toBeUndefined();
    expect((await py('GET', '/projects/all?type=nonsense')).status).toBe(422);
  });

  it('Scorers().list(): POST /scorers/list with body filters and paging in the query', async () => {
    const py = await pythonSdk((await w.user(`py-scorers-${Date.now()}@example.com`)).auth);
    const made = [];
    for (const [name, scorer_type] of [['correctness', 'llm'], ['length', 'code'], ['Correctness tone', 'llm']] as const) {
      const scorer = w.ok(await py('POST', '/scorers', { name, scorer_type, tags: [scorer_type] }));
      expectUuid4(scorer.id);
      made.push(scorer);
    }
    const list = async (query: string, body: unknown) => w.ok(await py('POST', `/scorers/list${query}`, body));
    const all = await list('?starting_token=0&limit=100', { filters: [] });
    expect(all).toEqual({ starting_token: 0, limit: 100, paginated: true, next_starting_token: null, scorers: made.map((s) => expect.objectContaining({ id: s.id, name: s.name })) });
    const names = async (filters: unknown[], query = '') => (await list(query, { filters })).scorers.map((s: { name: string }) => s.name);
    expect(await names([{ name: 'scorer_type', value: 'llm', operator: 'eq' }])).toEqual(['correctness', 'Correctness tone']);
    expect(await names([{ name: 'name', value: 'correctness', operator: 'eq' }])).toEqual(['correctness']);
    expect(await names([{ name: 'name', value: ['length', 'correctness'], operator: 'one_of' }])).toEqual(['correctness', 'length']);
    expect(await names([{ name: 'name', value: 'CORRECT', operator: 'contains', case_sensitive: false }])).toEqual(['correctness', 'Correctness tone']);
    expect(await names([{ name: 'tags', value: ['code'], operator: 'contains' }])).toEqual(['length']);
    const page = await list('?starting_token=1&limit=1', { filters: [], sort: { name: 'name', ascending: true } });
    expect([page.scorers.map((s: { name: string }) => s.name), page.next_starting_token]).toEqual([['correctness'], 2]);
    const refused = await py('POST', '/scorers/list', { filters: [{ name: 'model_type' }] });
    expect([refused.status, refused.body.detail[0].loc]).toEqual([422, ['body', 'filters', 0, 'name']]);
  });

  it('export_records: a run’s records as JSON lines (or CSV), filtered, sorted and with the columns asked for, read a page at a time', async () => {
    const py = await pythonSdk();
    const { projectId, logStreamId } = await firstRun(py, `py-export-${Date.now()}`);
    // More spans than an export reads in a page (1,000): the answer goes on across pages.
    const many = Array.from({ length: 2_300 }, (_, i) => pySpan('tool', { name: `s${i}`, created_at: new Date(Date.UTC(2026, 1, 1, 0, 0, 0, i)).toISOString() }));
    w.ok(await py('POST', `/v2/projects/${projectId}/traces`, { log_stream_id: logStreamId, traces: [pyTrace({ name: 'big', spans: many })] }));
    w.ok(await py('POST', `/v2/projects/${projectId}/traces`, { log_stream_id: logStreamId, traces: [pyTrace({ name: 'small', created_at: '2026-02-04T00:00:00.000001Z' })] }));
    // As the generated client sends it: the defaults given, the sort's sort_type, nulls for what is unset.
    const body = { root_type: 'trace', export_format: 'jsonl', log_stream_id: logStreamId, experiment_id: null, filters: [], column_ids: null, sort: { column_id: 'created_at', ascending: false, sort_type: 'column' }, redact: true };
    const exported = await py('POST', `/projects/${projectId}/export_records`, body);
    expect([exported.status, exported.headers.get('content-type')]).toEqual([200, 'application/jsonl; charset=utf-8']);
    const lines = (text: string) => text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines(exported.text).map((r) => [r['name'], r['type'], r['created_at']])).toEqual([
      ['small', 'trace', '2026-02-04T00:00:00.000001Z'],
      ['big', 'trace', '2026-02-03T04:05:06.123456Z'],
    ]);
    const spans = lines((await py('POST', `/projects/${projectId}/export_records`, { ...body, root_type: 'span' })).text);
    expect(spans).toHaveLength(2_300);
    expect(spans.map((s) => s['name'])).toEqual(many.map((s) => s.name).reverse());
    const picked = lines(
      (await py('POST', `/projects/${projectId}/export_records`, { ...body, root_type: 'span', column_ids: ['name', 'status_code', 'type'], filters: [{ type: 'text', column_id: 'name', operator: 'one_of', value: ['s7', 's2'] }], sort: { column_id: 'created_at', ascending: true } })).text,
    );
    expect(picked).toEqual([{ name: 's2', status_code: 200, type: 'tool' }, { name: 's7', status_code: 200, type: 'tool' }]);
    // Oldest first across pages: each page starts after the last one read.
    const oldest = lines((await py('POST', `/projects/${projectId}/export_records`, { ...body, root_type: 'span', sort: { column_id: 'created_at', ascending: true } })).text);
    expect(oldest.map((s) => s['name'])).toEqual(many.map((s) => s.name));
    // Another sort would be paged by offset (each page reading the run again): refused before anything is read.
    const byName = await py('POST', `/projects/${projectId}/export_records`, { ...body, root_type: 'span', sort: { column_id: 'name', ascending: true } });
    expect([byName.status, byName.body.detail[0].loc, byName.body.detail[0].msg]).toEqual([
      422,
      ['body', 'sort', 'column_id'],
      'Value error, an export is sorted by created_at only (ascending or not), not by name: sort what it gives, or search page by page',
    ]);
    const csv = await py('POST', `/projects/${projectId}/export_records`, { ...body, export_format: 'csv', column_ids: ['name', 'input', 'tags'] });
    expect([csv.headers.get('content-type'), csv.text]).toEqual(['text/csv; charset=utf-8', 'name,input,tags\r\nsmall,question,[]\r\nbig,question,[]\r\n']);
    const unknown = await py('POST', `/projects/${projectId}/export_records`, { ...body, column_ids: ['name', 'nope'] });
    expect([unknown.status, unknown.body.detail[0].loc]).toEqual([422, ['body', 'column_ids', 1]]);
    expect((await py('POST', `/projects/${randomUUID()}/export_records`, body)).status).toBe(404);
  });
});

describe('ids held from before the upgrade', () => {
  it('a version-7 id of a project, a log stream or a session names what the upgrade re-keyed to its version-4 form; a client’s trace id of that form stays its own', async () => {
    const py = await pythonSdk();
    const { projectId, logStreamId } = await firstRun(py, `py-v7-${Date.now()}`);
    const session = w.ok(await py('POST', `/v2/projects/${projectId}/sessions`, { log_stream_id: logStreamId, name: 'held' }));
    // The form each had before the upgrade: the same bits, version nibble 7.
    const v7 = (id: string) => `${id.slice(0, 14)}7${id.slice(15)}`;
    const streams = w.ok(await py('GET', `/projects/${v7(projectId)}/log_streams?include_counts=false`));
    expect(streams.map((s: { id: string }) => s.id)).toEqual([logStreamId]);
    const traceId = v7(randomUUID());
    const ingested = w.ok(await py('POST', `/v2/projects/${v7(projectId)}/traces`, { log_stream_id: v7(logStreamId), session_id: v7(session.id), traces: [pyTrace({ id: traceId, spans: [] })] }));
    expect([ingested.project_id, ingested.log_stream_id, ingested.session_id]).toEqual([projectId, logStreamId, session.id]);
    const [trace] = await records(py, projectId, 'traces', { log_stream_id: logStreamId });
    expect([trace!['id'], trace!['session_id']]).toEqual([traceId, session.id]);
    // A session id that names no session of the run is the client's, as sent.
    const unknownSession = v7(randomUUID());
    expect(w.ok(await py('POST', `/v2/projects/${projectId}/traces`, { log_stream_id: logStreamId, session_id: unknownSession, traces: [pyTrace({ spans: [] })] })).session_id).toBe(unknownSession);
    expect((await py('GET', `/projects/${v7(randomUUID())}/log_streams?include_counts=false`)).status).toBe(404);
    // An OpenTelemetry exporter's `project` header, set to the id before the upgrade.
    const otlp = (project: string) => w.call('POST', '/v1/traces', { auth: w.admin, json: { resourceSpans: [] }, headers: { project, logstream: 'default' } });
    expect([(await otlp(v7(projectId))).status, (await otlp(v7(randomUUID()))).status]).toEqual([200, 404]);
  });
});

// The re-keying is proven on each engine by the repository suites (migration 10 on SQLite, 14 on
// MongoDB); here, on SQLite, what the SDK meets at start-up: the first admin's id, made by an earlier build.
(process.env['TRACELIGHT_E2E_DATABASE_URL'] ? describe.skip : describe)('a database made by an earlier build', () => {
  it('answers GET /current_user with the first admin’s id re-keyed to version 4, and the admin’s API key works on', async () => {
    const first = await startServer();
    let key: string;
    try {
      const call = http(first.baseUrl);
      const token = w.ok(await call('POST', '/login', { form: { username: ADMIN.email, password: ADMIN.password } })).access_token as string;
      key = w.ok(await call('POST', '/v2/users/api_keys', { auth: { bearer: token }, json: { description: 'sdk' } })).api_key as string;
    } finally {
      await first.stop();
    }
    // The admin as an earlier build made them: a version-7 id, and migration 10 still to come.
    const Database = require(path.resolve(__dirname, '../../adapters/sqlite/node_modules/better-sqlite3')) as typeof import('better-sqlite3');
    const db = new Database(path.join(first.dataDir, 'tracelight.db'));
    const id = db.prepare('SELECT id FROM users WHERE email = ?').pluck().get(ADMIN.email) as string;
    const v7 = `${id.slice(0, 14)}7${id.slice(15)}`;
    db.pragma('defer_foreign_keys = ON');
    db.transaction(() => {
      db.prepare('UPDATE users SET id = ? WHERE id = ?').run(v7, id);
      for (const [table, column] of [['api_keys', 'user_id'], ['refresh_families', 'user_id'], ['projects', 'created_by'], ['runs', 'created_by'], ['scorers', 'created_by'], ['integrations', 'created_by']])
        db.prepare(`UPDATE ${table} SET ${column} = ? WHERE ${column} = ?`).run(v7, id);
      db.prepare('DELETE FROM schema_migrations WHERE version = 10').run();
    })();
    db.close();
    const again = await startServer({}, first.dataDir);
    try {
      const me = await fetch(`${again.baseUrl}/v2/current_user`, { headers: { 'Galileo-API-Key': key } });
      expect(me.status).toBe(200);
      expect(await me.json()).toMatchObject({ id, email: ADMIN.email, role: 'admin' });
      expectUuid4(id);
    } finally {
      await again.stop();
    }
  });
});
