// Property-based fuzzing of every route with generated bad input: no response is ever ≥ 500, every
// 422 has the spec's shape, and a rejected request leaves the database exactly as it was (on either
// engine: every row of SQLite's file, or every document of the server's MongoDB database).
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { openStorage, type StoredData } from '../support/storage';
import { startWorld, type World } from '../support/world';

let w: World;
let ids: Record<string, string>;
let stored: StoredData;
let key: string;

beforeAll(async () => {
  // Bodies of 2 KB or more for the ingest route go to an offload worker: both paths get fuzzed.
  w = await startWorld({ TRACELIGHT_BODY_LIMIT: '256kb', TRACELIGHT_OFFLOAD_MIN_BYTES: '2048' });
  key = await w.apiKey(w.admin);
  const project = await w.project(w.admin);
  const run = await w.run(w.admin, project, 'log_streams');
  const scorer = w.ok(await w.call('POST', '/v2/scorers', { auth: w.admin, json: { name: 'fuzz-scorer', scorer_type: 'llm' } })).id;
  // A stored trace with a span, for the immediate-mode routes (PATCH …/traces/{trace_id}, …/spans/{span_id}).
  const [traceId, spanId] = [randomUUID(), randomUUID()];
  w.ok(await w.call('POST', `/v2/projects/${project}/traces`, { auth: w.admin, json: { log_stream_id: run, traces: [{ id: traceId, input: 'q', spans: [{ id: spanId, type: 'llm', input: 'q' }] }] } }));
  ids = { project_id: project, run_id: run, scorer_id: scorer, api_key_id: randomUUID(), trace_id: traceId, span_id: spanId };
  stored = await openStorage(w.server);
});
afterAll(async () => {
  await stored?.close();
  await w?.server.stop();
});

/** A project with a log stream holding a trace, to be deleted. */
const doomedProject = async (): Promise<string> => {
  const project = await w.project(w.admin);
  const run = await w.run(w.admin, project, 'log_streams');
  w.ok(await w.call('POST', `/v2/projects/${project}/traces`, { auth: w.admin, json: { log_stream_id: run, traces: [{ input: 'q', output: 'a', spans: [{ type: 'llm', input: 'q' }] }] } }));
  return project;
};

const ROUTES: ReadonlyArray<readonly [string, string]> = [
  ['POST', '/login'],
  ['POST', '/login/api_key'],
  ['POST', '/v2/refresh_token'],
  ['POST', '/refresh_token'],
  ['POST', '/v2/users'],
  ['POST', '/v2/users/api_keys'],
  ['DELETE', '/v2/users/api_keys/{api_key_id}'],
  ['POST', '/v2/projects'],
  ['GET', '/v2/projects'],
  ['GET', '/v2/projects/{project_id}'],
  ['DELETE', '/v2/projects/{project_id}'],
  ['POST', '/v2/projects/{project_id}/log_streams'],
  ['POST', '/v2/projects/{project_id}/experiments'],
  ['PATCH', '/v2/projects/{project_id}/runs/{run_id}/insights-settings'],
  ['POST', '/v2/projects/{project_id}/runs/{run_id}/scorer-settings'],
  ['PUT', '/v2/integrations/gateway'],
  ['POST', '/v2/projects/{project_id}/spans/available_columns'],
  ['POST', '/v2/projects/{project_id}/traces'],
  ['POST', '/v2/projects/{project_id}/spans'],
  ['PATCH', '/v2/projects/{project_id}/traces/{trace_id}'],
  ['PATCH', '/v2/projects/{project_id}/spans/{span_id}'],
  ['POST', '/v2/projects/{project_id}/export_records'],
  ['GET', '/v2/projects/all'],
  ['POST', '/v2/projects/{project_id}/runs/{run_id}/metrics/recompute'],
  ['GET', '/v2/projects/{project_id}/runs/{run_id}/metrics/status'],
  ['POST', '/v2/scorers/list'],
  ['POST', '/v2/projects/{project_id}/sessions'],
  ['POST', '/v2/projects/{project_id}/spans/search'],
  ['POST', '/v2/projects/{project_id}/traces/search'],
  ['POST', '/v2/scorers'],
  ['GET', '/v2/scorers/{scorer_id}/versions'],
  ['POST', '/v2/scorers/{scorer_id}/version/llm'],
  ['POST', '/v2/scorers/{scorer_id}/version/code'],
  ['POST', '/v2/scorers/{scorer_id}/version/luna'],
  ['POST', '/v1/traces'],
  ['POST', '/otel/traces'],
  ['POST', '/api/public/otel/v1/traces'],
];

/** The OTLP/HTTP routes, which answer errors in that protocol's form. */
const OTLP: ReadonlySet<string> = new Set(['/v1/traces', '/otel/traces', '/api/public/otel/v1/traces']);

const badId = fc.oneof(fc.constant('not-a-uuid'), fc.string({ maxLength: 40 }).map(encodeURIComponent), fc.constant('00000000-0000-0000-0000-00000000000g'), fc.uuid());
/** The text of arrays and objects nested `levels` deep around a string (too deep for JSON.stringify here). */
const nestedText = (levels: number): string => {
  let open = '';
  let close = '';
  for (let i = levels - 1; i >= 0; i--) {
    open += i % 2 ? '[' : '{"v":';
    close = (i % 2 ? ']' : '}') + close;
  }
  return `${open}"deep"${close}`;
};
/** Arrays and objects nested `levels` deep around a string. */
const nested = (levels: number): unknown => {
  let v: unknown = 'deep';
  for (let i = 0; i < levels; i++) v = i % 2 ? [v] : { v };
  return v;
};
const weird = fc.oneof(
  fc.anything(),
  fc.integer({ min: 90, max: 2_000 }).map(nested),
  fc.string({ maxLength: 5000 }),
  fc.constant('x'.repeat(300_000)),
  fc.constantFrom('2026-13-45T99:99:99Z', '2026-01-01T00:00:00', 'tomorrow', '', null, -1, 1e308, true, [], {}),
);
/** A body: anything at all, or a plausible object with some fields of the wrong type. */
const body = fc.oneof(
  fc.anything(),
  fc.dictionary(
    fc.constantFrom('name', 'token', 'endpoint', 'use_case', 'insights', 'log_stream_id', 'experiment_id', 'traces', 'filters', 'sort', 'limit', 'scorers', 'email', 'password', 'api_key', 'username', 'description', 'expires_at', 'scorer_type', 'resourceSpans', 'lora_task_id', 'prompt', 'instructions',
      // Ingest, immediate mode and export members.
      'session_id', 'session_external_id', 'trace_id', 'parent_id', 'spans', 'input', 'output', 'status_code', 'is_complete', 'duration_ns', 'metrics', 'tags',
      'root_type', 'column_ids', 'export_format', 'redact', 'starting_token', 'scorer_ids'),
    weird,
  ),
);
const rawText = fc.oneof(fc.string({ maxLength: 2000 }), fc.constantFrom('{"a":', '[1,2', '{"__proto__": {"x": 1}}', 'null', '"str"', '\u0000\uffff', '{"traces": [{"spans": [{"type": 1}]}]}',
  // A multipart body cut off inside its file part.
  '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.py"\r\n\r\nprint(1)'));
const contentType = fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=xyz', 'application/x-protobuf', 'application/json; charset=latin9', '');
const auth = fc.constantFrom<Record<string, string>>(
  {},
  { Authorization: 'Bearer garbage' },
  { Authorization: 'Basic ' },
  { Authorization: 'Basic Og==' },
  { 'Service-API-Key': '' },
  { 'Service-API-Key': 'x'.repeat(10_000) },
  { Authorization: 'Digest whatever' },
);

const request = fc.record({
  route: fc.constantFrom(...ROUTES),
  pathIds: fc.record({ project_id: badId, run_id: badId, scorer_id: badId, api_key_id: badId, trace_id: badId, span_id: badId }),
  keepValidIds: fc.boolean(),
  authenticated: fc.boolean(),
  oddHeaders: auth,
  query: fc.dictionary(fc.constantFrom('limit', 'starting_token', 'project_name', 'type', 'project_type', 'name'), fc.string({ maxLength: 20 })),
  payload: fc.oneof(body.map((b) => ({ kind: 'json' as const, b })), rawText.map((t) => ({ kind: 'raw' as const, t }))),
  contentType,
  headers: fc.dictionary(fc.constantFrom('project', 'logstream', 'content-encoding', 'x-request-id'), fc.string({ maxLength: 30 })),
});

describe('fuzzing every route', () => {
  it('never answers ≥ 500, shapes every 422 as the spec says, and writes nothing when it rejects', async () => {
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const [method, template] = r.route;
        // A deletion with the valid ids gets a project of its own (a run with a trace in it): the shared
        // one stays for the other requests.
        const valid = r.keepValidIds && method === 'DELETE' && template === '/v2/projects/{project_id}' ? { ...ids, project_id: await doomedProject() } : ids;
        const before = await stored.fingerprint();
        const url = template.replace(/\{(\w+)\}/g, (_, name: string) => (r.keepValidIds ? valid[name]! : r.pathIds[name as keyof typeof r.pathIds]));
        const query = new URLSearchParams(r.query).toString();
        const headers: Record<string, string> = { ...r.headers, ...r.oddHeaders };
        if (r.authenticated) headers['Service-API-Key'] = key;
        if (r.contentType) headers['content-type'] = r.contentType;
        delete headers['content-length'];
        let payload: string | undefined;
        try {
          payload = r.payload.kind === 'json' ? JSON.stringify(r.payload.b) : r.payload.t;
        } catch {
          payload = '{}';
        }
        const reply = await w.call(method, `${url}${query ? `?${query}` : ''}`, {
          headers,
          timeoutMs: 30_000,
          ...(method === 'GET' || method === 'DELETE' || payload === undefined ? {} : { raw: payload }),
        });
        expect(reply.status).toBeLessThan(500);
        // A deletion is answered before its purge, which writes in the background: once it is done, the
        // next request's fingerprint is its own.
        if (method === 'DELETE' && template === '/v2/projects/{project_id}' && reply.status === 200) await w.purged(valid['project_id']!);
        if (OTLP.has(template)) {
          // OTLP/HTTP's own error form: a google.rpc.Status, JSON for a JSON request, else protobuf.
          if (reply.status >= 400 && reply.headers.get('content-type')?.startsWith('application/json'))
            expect(reply.body).toEqual({ code: expect.any(Number), message: expect.any(String) });
        } else if (reply.status === 422) {
          expect(Array.isArray(reply.body.detail)).toBe(true);
          for (const d of reply.body.detail) {
            expect(Array.isArray(d.loc)).toBe(true);
            expect(['body', 'query', 'path', 'header']).toContain(d.loc[0]);
            expect(typeof d.msg).toBe('string');
            expect(typeof d.type).toBe('string');
          }
        } else if (reply.status >= 400) {
          expect(reply.body).toEqual({ detail: expect.anything() });
        }
        const after = await stored.fingerprint();
        if (reply.status >= 400) expect([method, template, reply.status, after]).toEqual([method, template, reply.status, before]);
      }),
      { numRuns: Number(process.env['FUZZ_RUNS'] ?? 1500), seed: Number(process.env['FUZZ_SEED'] ?? Date.now() % 1e9) },
    );
  });

  it('never answers ≥ 500 to an OTLP/JSON export of spans with valid ids and anything in their names, status, attributes and events', async () => {
    // Besides anything: an object with no text at all (its own toString and valueOf are no functions).
    const value = fc.oneof(weird, fc.constant({ toString: 1, valueOf: 1 }));
    const anyValue = fc.oneof(value, fc.dictionary(fc.constantFrom('stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue'), value, { maxKeys: 2 }));
    const keys = fc.oneof(
      fc.constantFrom(
        'exception.type', 'exception.message', 'gen_ai.prompt', 'gen_ai.completion', 'input.value', 'gen_ai.request.temperature',
        // Langfuse's and OpenInference's flattened message lists.
        'langfuse.observation.type', 'langfuse.observation.input', 'langfuse.observation.output', 'langfuse.trace.name', 'langfuse.session.id', 'langfuse.observation.metadata.k',
        'llm.input_messages.0.message.role', 'llm.input_messages.0.message.content', 'llm.input_messages.1.message.contents.0.message_content.text',
        'llm.input_messages.x.message.content', 'llm.output_messages.0.message.content', 'llm.input_messages.99999999999.message.role',
      ),
      value,
    );
    const keyValues = fc.oneof(value, fc.array(fc.oneof(value, fc.record({ key: keys, value: anyValue }, { requiredKeys: [] })), { maxLength: 4 }));
    const eventNames = fc.oneof(fc.constantFrom('exception', 'gen_ai.content.prompt', 'gen_ai.content.completion', 'log'), value);
    const event = fc.oneof(value, fc.record({ name: eventNames, timeUnixNano: value, attributes: keyValues }, { requiredKeys: [] }));
    const span = fc.record({
      name: value,
      status: fc.oneof(value, fc.record({ code: value, message: value }, { requiredKeys: [] })),
      attributes: keyValues,
      events: fc.oneof(value, fc.array(event, { maxLength: 4 })),
    }, { requiredKeys: [] });
    const scope = fc.oneof(value, fc.record({ name: value, version: value }, { requiredKeys: [] }));
    const hex = (length: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${length}}$`)).filter((id) => !/^0+$/.test(id));
    const otlpExport = fc.record({ traceId: hex(32), spanId: hex(16), span, scope });
    await fc.assert(
      fc.asyncProperty(otlpExport, async ({ traceId, spanId, span: fields, scope: scopeOf }) => {
        const before = await stored.fingerprint();
        const raw = JSON.stringify({ resourceSpans: [{ scopeSpans: [{ scope: scopeOf, spans: [{ ...fields, traceId, spanId }] }] }] });
        const reply = await w.call('POST', '/v1/traces', {
          headers: { 'Service-API-Key': key, 'content-type': 'application/json', project: ids['project_id']!, logstream: 'fuzz-otlp' },
          timeoutMs: 30_000,
          raw,
        });
        expect(reply.status).toBeLessThan(500);
        if (reply.status >= 400) {
          expect(reply.body).toEqual({ code: expect.any(Number), message: expect.any(String) });
          expect(await stored.fingerprint()).toBe(before);
        }
      }),
      { numRuns: Number(process.env['FUZZ_RUNS'] ?? 1500) / 5, seed: Number(process.env['FUZZ_SEED'] ?? Date.now() % 1e9) },
    );
  });

  it('answers 422, naming the limit, to a body nested past 100 levels on every route that reads one', async () => {
    const before = await stored.fingerprint();
    // Every route with a JSON body (a code version is a multipart upload; refresh_token takes no body).
    for (const [method, template] of ROUTES.filter(([m, p]) => m !== 'GET' && m !== 'DELETE' && !p.endsWith('/version/code') && !p.endsWith('/refresh_token'))) {
      const url = template.replace(/\{(\w+)\}/g, (_, name: string) => ids[name]!);
      for (const levels of [101, 5_000]) {
        const raw = `{"name":${nestedText(levels)},"token":${nestedText(levels)}}`;
        const reply = await w.call(method, url, { headers: { 'Service-API-Key': key, 'content-type': 'application/json' }, raw });
        // The two login routes authenticate by the body: they may refuse it without reading it, and they take
        // at most 16 KiB (the deeper body is larger: refused for its size first).
        if (template.startsWith('/login') && (reply.status === 401 || (raw.length > 16 * 1024 && reply.status === 413))) continue;
        if (OTLP.has(template)) {
          expect([method, template, levels, reply.status, reply.body]).toEqual([method, template, levels, 400, { code: 3, message: 'body: Value error, nested deeper than 100 levels' }]);
          continue;
        }
        expect([method, template, levels, reply.status]).toEqual([method, template, levels, 422]);
        expect(reply.body.detail).toEqual([
          { loc: ['body'], msg: 'Value error, nested deeper than 100 levels', type: 'value_error', input: {}, ctx: { error: 'nested deeper than 100 levels' } },
        ]);
      }
    }
    expect(await stored.fingerprint()).toBe(before);
  });
});
