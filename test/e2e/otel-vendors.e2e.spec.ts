// Other vendors' OpenTelemetry set-ups, unchanged, pointed at Tracelight: Phoenix's register() with
// OpenInference's OpenAI instrumentation (the `openai` client calling a real OpenAI-compatible stub), and
// Langfuse's span processor with its tracing API, each in a process of its own (test/support/vendor-emitter.cjs).
// What they stored is read back through the API.
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { OpenAiStub, type StubRequest } from '@tracelight/testkit';
import { ADMIN } from '../support/server';
import { startWorld, type World } from '../support/world';

type Rec = Record<string, any>;

let w: World;
let stub: OpenAiStub;
let key: string;

/** What the model answers, fixed so that the tests can name it: a tool call when tools are offered and the user spoke last, else text. */
const STUB_ANSWER = 'Sunny, 24 °C.';
const STUB_TOOL_CALL = { id: 'call_weather_1', name: 'get_weather', arguments: '{"city":"Paris"}' };
const STUB_USAGE = { prompt_tokens: 31, completion_tokens: 9 };
const assistant = (request: StubRequest) =>
  Array.isArray(request.body['tools']) && request.body['tools'].length > 0 && request.messages.at(-1)?.role === 'user' ? { toolCalls: [STUB_TOOL_CALL] } : STUB_ANSWER;

const emit = async (run: 'phoenix' | 'langfuse', options: Record<string, string>): Promise<Rec> => {
  const script = path.join(__dirname, '../support/vendor-emitter.cjs');
  const { stdout } = await promisify(execFile)(process.execPath, [script, run, JSON.stringify(options)]);
  return JSON.parse(stdout) as Rec;
};

const projectNamed = async (name: string): Promise<Rec | undefined> =>
  (w.ok(await w.call('GET', `/v2/projects?project_name=${encodeURIComponent(name)}`, { auth: w.admin })) as Rec[])[0];
const logStreams = async (projectId: string): Promise<Rec[]> => w.ok(await w.call('GET', `/v2/projects/${projectId}/log_streams`, { auth: w.admin }));
const search = async (projectId: string, kind: 'spans' | 'traces', logStreamId: string): Promise<Rec[]> =>
  w.ok(await w.call('POST', `/v2/projects/${projectId}/${kind}/search`, { auth: w.admin, json: { log_stream_id: logStreamId, limit: 100, sort: { column_id: 'created_at', ascending: true } } })).records;
const basic = (name: string, secret: string) => `Basic ${Buffer.from(`${name}:${secret}`).toString('base64')}`;
const exportOf = (resource: Record<string, string>, spanId = '1111111111111111') => ({
  resourceSpans: [
    {
      resource: { attributes: Object.entries(resource).map(([k, v]) => ({ key: k, value: { stringValue: v } })) },
      scopeSpans: [{ spans: [{ traceId: '0af7651916cd43dd8448eb211c80319c', spanId, name: 'op', startTimeUnixNano: '1700000000000000000', endTimeUnixNano: '1700000001000000000' }] }],
    },
  ],
});

// Every assertion holds on both paths: exports decoded on the request thread, and exports handed to an
// offload worker (every one, with TRACELIGHT_OFFLOAD_MIN_BYTES=0), the Basic pair's project name included.
describe.each([
  ['decoded on the request thread', { TRACELIGHT_OFFLOAD_WORKERS: '0' }],
  ['handed to an offload worker', { TRACELIGHT_OFFLOAD_MIN_BYTES: '0' }],
])('OpenTelemetry set-ups of other vendors, exports %s', (mode, env: Record<string, string>) => {
  const tag = mode.startsWith('decoded') ? 'thread' : 'worker';
  beforeAll(async () => {
    [w, stub] = await Promise.all([startWorld(env), OpenAiStub.start({ usage: STUB_USAGE })]);
    stub.answerWith(assistant);
    key = await w.apiKey(w.admin);
  });
  afterAll(async () => {
    await Promise.allSettled([w?.server.stop(), stub?.close()]);
  });

  describe("Phoenix's register({url, apiKey, projectName}) with OpenInference's OpenAI instrumentation", () => {
    it('authenticates with the API key as a bearer credential, creates the project named by openinference.project.name, and stores each call as an llm span with its messages, tools, model and tokens', async () => {
      const projectName = `phoenix-${tag}`;
      await emit('phoenix', { serverUrl: w.server.baseUrl, apiKey: key, projectName, openAiUrl: stub.url });
      expect(stub.completions.map((r) => r.body['stream'] === true)).toEqual([false, false, true]);
      const project = await projectNamed(projectName);
      expect(project).toMatchObject({ name: projectName, type: 'gen_ai' });
      const streams = await logStreams(project!['id']);
      expect(streams.map((s) => s['name'])).toEqual(['default']);
      const spans = await search(project!['id'], 'spans', streams[0]!['id']);
      expect(spans.map((s) => s['type'])).toEqual(['llm', 'llm', 'llm']);
      const [toolCall, toolResult, streamed] = spans;
      const system = { role: 'system', content: 'You answer questions about the weather.' };
      const user = { role: 'user', content: 'Weather in Paris?' };
      const call = { id: STUB_TOOL_CALL.id, function: { name: STUB_TOOL_CALL.name, arguments: STUB_TOOL_CALL.arguments } };
      expect(toolCall).toMatchObject({
        input: [system, user],
        output: { role: 'assistant', content: '', tool_calls: [call] },
        model: 'gpt-4o-mini',
        temperature: 0.2,
        finish_reason: 'tool_calls',
        status_code: 200,
        metrics: expect.objectContaining({ num_input_tokens: 31, num_output_tokens: 9, num_total_tokens: 40 }),
      });
      expect(JSON.parse(toolCall!['tools'])).toEqual([
        { type: 'function', function: { name: 'get_weather', description: 'Weather by city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
      ]);
      expect(toolResult).toMatchObject({
        input: [system, user, { role: 'assistant', content: '', tool_calls: [call] }, { role: 'tool', content: '{"sky":"sunny"}', tool_call_id: STUB_TOOL_CALL.id }],
        output: { role: 'assistant', content: STUB_ANSWER },
        finish_reason: 'stop',
      });
      expect(streamed).toMatchObject({ input: [{ role: 'user', content: 'And tomorrow?' }], output: { role: 'assistant', content: STUB_ANSWER }, finish_reason: 'stop' });
      // Each call is a trace of its own, named and given the call's messages as its span is.
      const traces = await search(project!['id'], 'traces', streams[0]!['id']);
      expect(traces.map((t) => [t['name'], t['input']])).toEqual([
        ['OpenAI Chat Completions', [system, user]],
        ['OpenAI Chat Completions', toolResult!['input']],
        ['OpenAI Chat Completions', [{ role: 'user', content: 'And tomorrow?' }]],
      ]);
    });

    it('takes an API key as a bearer credential on every route, a token (a JWT) as before, and refuses a wrong key', async () => {
      expect(w.ok(await w.call('GET', '/v2/current_user', { auth: { bearer: key } }))).toMatchObject({ email: ADMIN.email });
      expect((await w.call('GET', '/v2/current_user', { auth: { bearer: w.adminToken } })).status).toBe(200);
      const wrong = await w.call('POST', '/v1/traces', { auth: { bearer: `${key}x` }, json: exportOf({ 'openinference.project.name': 'never' }) });
      expect([wrong.status, wrong.body.code]).toEqual([401, 16]);
      expect(await projectNamed('never')).toBeUndefined();
      // A key as a bearer credential manages no credentials, as a key in its own header does not.
      expect((await w.call('POST', '/v2/users/api_keys', { auth: { bearer: key }, json: { description: 'by a bearer key' } })).status).toBe(403);
    });

    it('creates one project and one log stream when exports naming the same new project arrive at once, and stores every one', async () => {
      const name = `racing-${tag}`;
      const sends = Array.from({ length: 6 }, (_, i) =>
        w.call('POST', '/v1/traces', { auth: { bearer: key }, json: exportOf({ 'openinference.project.name': name }, (i + 1).toString(16).padStart(16, '0')) }),
      );
      expect((await Promise.all(sends)).map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
      const projects = w.ok(await w.call('GET', `/v2/projects?project_name=${name}`, { auth: w.admin })) as Rec[];
      expect(projects).toHaveLength(1);
      const streams = await logStreams(projects[0]!['id']);
      expect(streams.map((s) => s['name'])).toEqual(['default']);
      expect(await search(projects[0]!['id'], 'spans', streams[0]!['id'])).toHaveLength(6);
    });

    it('takes the project header over the resource attribute (that project must exist), and refuses an export whose resources name two projects, storing nothing', async () => {
      const named = `named-${tag}`;
      const projectId = await w.project(w.admin, named);
      const byHeader = await w.call('POST', '/v1/traces', { auth: { bearer: key }, headers: { project: named, logstream: 'chosen' }, json: exportOf({ 'openinference.project.name': `ignored-${tag}` }) });
      expect(byHeader.status).toBe(200);
      expect((await logStreams(projectId)).map((s) => s['name'])).toEqual(['chosen']);
      expect(await projectNamed(`ignored-${tag}`)).toBeUndefined();
      const two = exportOf({ 'openinference.project.name': `first-${tag}` });
      two.resourceSpans.push({ ...exportOf({ 'openinference.project.name': `second-${tag}` }, '2222222222222222').resourceSpans[0]! });
      const refused = await w.call('POST', '/v1/traces', { auth: { bearer: key }, json: two });
      expect(refused.status).toBe(400);
      expect(refused.body.message).toMatch(/name two projects \(openinference\.project\.name "first-\w+" and "second-\w+"\)/);
      expect([await projectNamed(`first-${tag}`), await projectNamed(`second-${tag}`)]).toEqual([undefined, undefined]);
      const badName = await w.call('POST', '/v1/traces', { auth: { bearer: key }, json: exportOf({ 'openinference.project.name': 'x'.repeat(256) }) });
      expect([badName.status, badName.body.message]).toEqual([400, 'body: Value error, the resource attribute openinference.project.name is no project name (1 to 255 characters, no control characters)']);
    });
  });

  describe("Langfuse's LangfuseSpanProcessor({publicKey, secretKey, baseUrl}) and tracing API", () => {
    it('takes the Basic pair <project>:<API key> on /api/public/otel/v1/traces, creates the project, and maps the observations: a generation is an llm span with its messages, model and usage', async () => {
      const projectName = `langfuse-${tag}`;
      const { traceId } = await emit('langfuse', { serverUrl: w.server.baseUrl, apiKey: key, projectName });
      const project = await projectNamed(projectName);
      expect(project).toMatchObject({ name: projectName });
      const streams = await logStreams(project!['id']);
      expect(streams.map((s) => s['name'])).toEqual(['default']);
      const traceRecordId = `${traceId.slice(0, 8)}-${traceId.slice(8, 12)}-${traceId.slice(12, 16)}-${traceId.slice(16, 20)}-${traceId.slice(20)}`;
      const traces = await search(project!['id'], 'traces', streams[0]!['id']);
      expect(traces).toHaveLength(1);
      expect(traces[0]).toMatchObject({ id: traceRecordId, name: 'checkout-flow', input: { cart: ['book'] }, output: 'declined', tags: ['prod', 'checkout'] });
      const spans = await search(project!['id'], 'spans', streams[0]!['id']);
      const byName = Object.fromEntries(spans.map((s) => [s['name'], s]));
      expect(Object.keys(byName).sort()).toEqual(['charge_card', 'checkout', 'plan-purchase', 'retry-scheduled']);
      expect(byName['checkout']).toMatchObject({
        type: 'workflow',
        parent_id: traceRecordId,
        input: { cart: ['book'] },
        output: 'declined',
        user_metadata: expect.objectContaining({ region: 'eu', 'user.id': 'user-7', 'langfuse.environment': 'staging', 'langfuse.release': 'v1.2' }),
      });
      expect(byName['plan-purchase']).toMatchObject({
        type: 'llm',
        parent_id: byName['checkout']!['id'],
        input: [{ role: 'system', content: 'You buy books.' }, { role: 'user', content: 'Buy the book' }],
        output: { role: 'assistant', content: 'Charging the card.' },
        model: 'gpt-4o',
        temperature: 0.4,
        tags: ['prod', 'checkout'],
        metrics: expect.objectContaining({ num_input_tokens: 20, num_output_tokens: 5, num_total_tokens: 25 }),
      });
      expect(byName['charge_card']).toMatchObject({ type: 'tool', input: { amount: 12 }, output: { ok: false }, status_code: 500, error_message: 'card declined' });
      expect(byName['retry-scheduled']).toMatchObject({ type: 'workflow', input: 'in 5 minutes', status_code: null });
    });

    it('decodes Langfuse\'s exports where the mode says: an offload worker takes every one in that mode, none in the other', async () => {
      const metrics = (await w.call('GET', '/metrics')).text;
      const offloaded = Number(/^tracelight_http_offloaded_requests_total\{route="\/api\/public\/otel\/v1\/traces"\} (\d+)/m.exec(metrics)?.[1] ?? 0);
      if (tag === 'thread') expect(offloaded).toBe(0);
      else expect(offloaded).toBeGreaterThan(0);
    });

    it('refuses a wrong secret key, an email and password in place of the pair, and a pair without a key, creating no project', async () => {
      const route = '/api/public/otel/v1/traces';
      for (const authorization of [basic(`nope-${tag}`, `${key}x`), basic(ADMIN.email, ADMIN.password), basic(`nope-${tag}`, '')]) {
        const refused = await w.call('POST', route, { headers: { authorization }, json: exportOf({}) });
        expect([authorization, refused.status, refused.body.code]).toEqual([authorization, 401, 16]);
      }
      expect(await projectNamed(`nope-${tag}`)).toBeUndefined();
      expect(await projectNamed(ADMIN.email)).toBeUndefined();
    });
  });
});
