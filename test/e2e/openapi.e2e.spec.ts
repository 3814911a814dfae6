// Real responses validate against the served OpenAPI document's schemas.
import { randomUUID } from 'node:crypto';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { ADMIN } from '../support/server';
import { startWorld, type World } from '../support/world';

let w: World;
type Content = Record<string, { schema: object }>;
let doc: {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Content; headers?: Record<string, unknown> }>; requestBody?: { content: Content }; security?: Array<Record<string, unknown>> }>>;
  components: {
    securitySchemes: Record<string, { type: string; in?: string; name?: string; scheme?: string; flows?: { password?: { tokenUrl: string } } }>;
    headers: Record<string, unknown>;
  };
};
let ajv: Ajv2020;
beforeAll(async () => {
  w = await startWorld();
  doc = (await w.call('GET', '/openapi.json')).body;
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'openapi', components: doc.components });
});
afterAll(() => w.server.stop());

/** A validator for one of the document's schemas, its references resolved against the document. */
const compiled = (schema: object) =>
  ajv.compile({ $ref: '#/definitions/s', definitions: { s: JSON.parse(JSON.stringify(schema).replace(/#\/components/g, 'openapi#/components')) } });

/**
 * Validates a reply against the document's schema for that path, method and status: its body, and its
 * headers, each one the document says the answer carries present and of its schema.
 */
const conforms = (path: string, method: string, reply: { status: number; body: unknown; headers: Headers }) => {
  const response = doc.paths[path]?.[method]?.responses[String(reply.status)];
  expect(response).toBeDefined();
  const schema = response!.content?.['application/json']?.schema ?? {};
  const validate = compiled(schema);
  const ok = validate(reply.body);
  if (!ok) throw new Error(`${method} ${path} ${reply.status}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(reply.body).slice(0, 500)}`);
  for (const [name, declared] of Object.entries(response!.headers ?? {})) {
    const ref = /^#\/components\/headers\/(.+)$/.exec((declared as { $ref?: string }).$ref ?? '')?.[1];
    const h = (ref !== undefined ? doc.components.headers[ref] : declared) as { required?: boolean; schema: { type: string } };
    const value = reply.headers.get(name);
    if (value === null) {
      expect([method, path, reply.status, name, h.required ?? false]).toEqual([method, path, reply.status, name, false]);
      continue;
    }
    const checked = compiled(h.schema);
    const typed = h.schema.type === 'integer' ? (/^\d+$/.test(value) ? Number(value) : value) : value;
    expect([method, path, reply.status, name, checked(typed)]).toEqual([method, path, reply.status, name, true]);
  }
};

describe('responses against the OpenAPI document', () => {
  it('is OpenAPI 3.1 with the spec’s four credential schemes', () => {
    expect(doc).toMatchObject({
      openapi: '3.1.0',
      components: { securitySchemes: { ClassicAPIKeyHeader: {}, APIKeyHeader: {}, OAuth2PasswordBearer: {}, HTTPBasic: {} } },
    });
  });

  it('names the spec’s five operations as the spec does, and gives the insights body’s enabled its default, false', () => {
    type Operation = { summary: string; requestBody?: { content: Content } };
    const op = (path: string, method: string) => (doc.paths[path]?.[method] as unknown as Operation | undefined)?.summary;
    expect([
      op('/v2/projects/{project_id}/runs/{run_id}/insights-settings', 'patch'),
      op('/v2/refresh_token', 'post'),
      op('/v2/integrations/gateway', 'put'),
      op('/v2/projects/{project_id}/spans/available_columns', 'post'),
      op('/v2/scorers/{scorer_id}/versions', 'get'),
    ]).toEqual(['Upsert Insights Config', 'Refresh Token', 'Create or update gateway integration', 'Spans Available Columns', 'List All Versions For Scorer']);
    const patch = doc.paths['/v2/projects/{project_id}/runs/{run_id}/insights-settings']!['patch']!;
    const body = JSON.stringify(patch.requestBody!.content['application/json']!.schema);
    expect(body).toContain('"enabled":{"type":"boolean","default":false}');
  });

  it('match the schemas of the spec operations and their neighbours, success and failure', async () => {
    const a = w.admin;
    conforms('/login', 'post', await w.call('POST', '/login', { form: { username: 'admin@example.com', password: 'correct horse battery staple' } }));
    conforms('/login', 'post', await w.call('POST', '/login', { form: { username: 'x' } }));
    conforms('/v2/refresh_token', 'post', await w.call('POST', '/v2/refresh_token', { auth: a }));
    const projectId = await w.project(a);
    const runId = await w.run(a, projectId, 'log_streams');
    conforms('/v2/projects/{project_id}/runs/{run_id}/insights-settings', 'patch', await w.call('PATCH', `/v2/projects/${projectId}/runs/${runId}/insights-settings`, { auth: a, json: { insights: { logstream: { enabled: true, start_time: '2026-01-01T00:00:00Z' } } } }));
    conforms('/v2/projects/{project_id}/runs/{run_id}/insights-settings', 'patch', await w.call('PATCH', `/v2/projects/${projectId}/runs/${runId}/insights-settings`, { auth: a, json: { insights: { logstream: { enabled: 'x' } } } }));
    conforms('/v2/integrations/gateway', 'put', await w.call('PUT', '/v2/integrations/gateway', { auth: a, json: { token: 't', endpoint: 'https://g.example.com/x', use_case: 'A' } }));
    conforms('/v2/projects/{project_id}/spans/available_columns', 'post', await w.call('POST', `/v2/projects/${projectId}/spans/available_columns`, { auth: a, json: { log_stream_id: runId } }));
    const scorer = w.ok(await w.call('POST', '/v2/scorers', { auth: a, json: { name: 'oa', scorer_type: 'llm' } }));
    await w.call('POST', `/v2/scorers/${scorer.id}/version/llm`, { auth: a, json: { instructions: 'judge' } });
    await w.call('POST', `/v2/scorers/${scorer.id}/version/luna`, { auth: a, json: { lora_task_id: 1, prompt: 'p' } });
    conforms('/v2/scorers/{scorer_id}/versions', 'get', await w.call('GET', `/v2/scorers/${scorer.id}/versions`, { auth: a }));
    conforms('/v2/scorers/{scorer_id}/versions', 'get', await w.call('GET', `/v2/scorers/${scorer.id}/versions?limit=0`, { auth: a }));
    conforms('/v2/projects/{project_id}/traces', 'post', await w.call('POST', `/v2/projects/${projectId}/traces`, { auth: a, json: { log_stream_id: runId, traces: [{ input: 'x', spans: [{ type: 'llm', input: 'q' }] }] } }));
    conforms('/v2/projects/{project_id}/spans/available_columns', 'post', await w.call('POST', `/v2/projects/${projectId}/spans/available_columns`, { json: { log_stream_id: runId } }));
    // The routes around the spec's, whose answers the codecs describe too.
    conforms('/v2/current_user', 'get', await w.call('GET', '/v2/current_user', { auth: a }));
    conforms('/v2/projects', 'get', await w.call('GET', '/v2/projects', { auth: a }));
    conforms('/v2/projects/{project_id}/log_streams', 'get', await w.call('GET', `/v2/projects/${projectId}/log_streams`, { auth: a }));
    const doomed = await w.project(a);
    conforms('/v2/projects/{project_id}', 'delete', await w.call('DELETE', `/v2/projects/${doomed}`, { auth: a }));
    conforms('/v2/projects/{project_id}', 'delete', await w.call('DELETE', `/v2/projects/${doomed}`, { auth: a }));
    conforms('/v2/projects/{project_id}', 'delete', await w.call('DELETE', '/v2/projects/not-a-uuid', { auth: a }));
    conforms('/v2/users/api_keys', 'get', await w.call('GET', '/v2/users/api_keys', { auth: a }));
    conforms('/v2/scorers', 'get', await w.call('GET', '/v2/scorers', { auth: a }));
    conforms('/v2/scorers/{scorer_id}', 'get', await w.call('GET', `/v2/scorers/${scorer.id}`, { auth: a }));
    conforms('/v2/projects/{project_id}/sessions', 'post', await w.call('POST', `/v2/projects/${projectId}/sessions`, { auth: a, json: { log_stream_id: runId, name: 's' } }));
    for (const scope of ['traces', 'spans', 'sessions'])
      conforms(`/v2/projects/{project_id}/${scope}/search`, 'post', await w.call('POST', `/v2/projects/${projectId}/${scope}/search`, { auth: a, json: { log_stream_id: runId } }));
    conforms('/healthcheck', 'get', await w.call('GET', '/healthcheck'));
    conforms('/readyz', 'get', await w.call('GET', '/readyz'));
    // The errors besides 401/404/422: each documented where it can be answered, and shaped as documented.
    conforms('/v2/refresh_token', 'post', await w.call('POST', '/v2/refresh_token'));
    conforms('/v2/projects', 'post', await w.call('POST', '/v2/projects', { auth: a, json: { name: 'oa-dup' } }));
    conforms('/v2/projects', 'post', await w.call('POST', '/v2/projects', { auth: a, json: { name: 'oa-dup' } }));
    conforms('/v2/projects', 'post', await w.call('POST', '/v2/projects', { auth: a, raw: 'name=x', headers: { 'content-type': 'text/plain' } }));
    conforms('/v2/users', 'post', await w.call('POST', '/v2/users', { auth: (await w.user(`oa-${Date.now()}@example.com`)).auth, json: { email: 'z@example.com', password: 'long enough' } }));
  });

  it('gives every success a schema from the codecs, and marks required the bodies an empty one would not do for', () => {
    const operations = Object.entries(doc.paths).flatMap(([p, methods]) => Object.entries(methods).map(([m, op]) => [`${m.toUpperCase()} ${p}`, op] as const));
    expect(operations.length).toBeGreaterThan(30);
    for (const [name, op] of operations) {
      const success = Object.entries(op.responses).filter(([status]) => status.startsWith('2'));
      expect([name, success.length]).toEqual([name, 1]);
      for (const media of Object.values(success[0]![1].content ?? {})) expect([name, JSON.stringify(media.schema)]).not.toEqual([name, '{}']);
    }
    const body = (key: string, method: string) => (doc.paths[key]![method] as unknown as { requestBody?: { required: boolean } }).requestBody?.required;
    expect(body('/v2/integrations/gateway', 'put')).toBe(true);
    expect(body('/v2/projects/{project_id}/spans/available_columns', 'post')).toBe(true);
    expect(body('/v2/projects/{project_id}/runs/{run_id}/insights-settings', 'patch')).toBe(false);
    expect(Object.keys(doc.paths['/v2/scorers/{scorer_id}/version/code']!['get']!.responses['200']!.content!)).toEqual(['text/x-python']);
    expect(doc.paths['/readyz']).toBeDefined();
  });

  it('declares the headers answers carry: X-Request-Id on every one, WWW-Authenticate on a 401, Retry-After on a 429 and a 503', () => {
    for (const [p, ops] of Object.entries(doc.paths))
      for (const [m, op] of Object.entries(ops))
        for (const [status, response] of Object.entries(op.responses)) {
          const names = Object.keys(response.headers ?? {}).filter((name) => name !== 'Set-Cookie');
          const expected = ['X-Request-Id', ...({ '401': ['WWW-Authenticate'], '429': ['Retry-After'], '503': ['Retry-After'] } as Record<string, string[]>)[status] ?? []];
          expect([m, p, status, names.sort()]).toEqual([m, p, status, expected.sort()]);
        }
    expect(Object.keys(doc.components.headers).sort()).toEqual(['Retry-After', 'WWW-Authenticate', 'X-Request-Id']);
  });

  it('documents 401, the bearer scheme and the refresh cookie on refresh_token, which checks its own credential', () => {
    const refresh = doc.paths['/v2/refresh_token']!['post'] as unknown as { responses: Record<string, unknown>; security: unknown };
    expect(Object.keys(refresh.responses)).toEqual(expect.arrayContaining(['200', '401', '429', '503']));
    expect(refresh.security).toEqual([{ OAuth2PasswordBearer: [] }, { RefreshTokenCookie: [] }]);
    const patch = doc.paths['/v2/projects/{project_id}/runs/{run_id}/insights-settings']!['patch']!;
    expect(Object.keys(patch.responses).sort()).toEqual(['200', '401', '403', '404', '408', '413', '415', '422', '429', '503', '507']);
    // POSTs that only read answer neither 403 (a read-only user may read) nor 507 (nothing is written).
    const columns = doc.paths['/v2/projects/{project_id}/spans/available_columns']!['post']!;
    expect(Object.keys(columns.responses).sort()).toEqual(['200', '401', '404', '408', '413', '415', '422', '429', '503']);
    for (const scope of ['spans', 'traces', 'sessions'])
      expect(Object.keys(doc.paths[`/v2/projects/{project_id}/${scope}/search`]!['post']!.responses)).not.toEqual(expect.arrayContaining(['403']));
    expect(Object.keys(doc.paths['/healthcheck']!['get']!.responses).sort()).toEqual(['200', '404', '408', '422']);
  });

  it('documents the refresh cookie that signing in sets, on exactly the routes whose answers set it', async () => {
    const documented = Object.entries(doc.paths)
      .flatMap(([p, ops]) => Object.entries(ops).filter(([, op]) => (op.responses['200'] as { headers?: Record<string, unknown> } | undefined)?.headers?.['Set-Cookie']).map(([m]) => `${m} ${p}`))
      .sort();
    expect(documented).toEqual(['post /login', 'post /login/api_key', 'post /v2/refresh_token']);
    const signIn = await fetch(`${w.server.baseUrl}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: ADMIN.email, password: ADMIN.password }) });
    expect(signIn.status).toBe(200);
    expect(signIn.headers.get('set-cookie')).toMatch(/^refresh_token=[^;]+;.*httponly/i);
  });

  it('documents the Set-Cookie that expires a refused refresh cookie on exactly the 401 that sends it', async () => {
    const documented = Object.entries(doc.paths)
      .flatMap(([p, ops]) => Object.entries(ops).filter(([, op]) => (op.responses['401'] as { headers?: Record<string, unknown> } | undefined)?.headers?.['Set-Cookie']).map(([m]) => `${m} ${p}`));
    expect(documented).toEqual(['post /v2/refresh_token']);
    const refused = await w.call('POST', '/v2/refresh_token', { headers: { cookie: 'refresh_token=forged' } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('set-cookie')).toMatch(/^refresh_token=;/);
  });
});

describe('credential schemes: every one the server takes is in the document, and works', () => {
  it('lists the API-key header aliases and the refresh cookie beside the spec’s four', () => {
    const where = Object.fromEntries(Object.entries(doc.components.securitySchemes).map(([name, s]) => [name, s.type === 'apiKey' ? `${s.in}:${s.name}` : s.type]));
    expect(where).toEqual({
      ClassicAPIKeyHeader: 'header:Service-API-Key',
      APIKeyHeader: 'header:Service-AO-API-Key',
      GalileoAPIKeyHeader: 'header:Galileo-API-Key',
      SplunkAPIKeyHeader: 'header:Splunk-AO-API-Key',
      OAuth2PasswordBearer: 'oauth2',
      HTTPBasic: 'http',
      APIKeyBearer: 'http',
      APIKeyBasicPair: 'http',
      RefreshTokenCookie: 'cookie:refresh_token',
    });
    // Every operation behind authentication offers every header scheme and the two Authorization ones,
    // but those that manage API keys and users, which offer the two Authorization ones alone (a password).
    // Langfuse's path takes its Basic pair (a project and an API key) in place of an email and a password.
    const signedIn = Object.keys(doc.components.securitySchemes).filter((name) => name !== 'RefreshTokenCookie' && name !== 'APIKeyBasicPair').sort();
    const pairs = [...signedIn.filter((name) => name !== 'HTTPBasic'), 'APIKeyBasicPair'].sort();
    const managing = new Set(['post /v2/users', 'post /v2/users/api_keys', 'delete /v2/users/api_keys/{api_key_id}']);
    for (const [p, ops] of Object.entries(doc.paths))
      for (const [m, op] of Object.entries(ops))
        if (op.security && p !== '/v2/refresh_token')
          expect([m, p, op.security.flatMap((alt) => Object.keys(alt)).sort()]).toEqual([
            m,
            p,
            managing.has(`${m} ${p}`) ? ['HTTPBasic', 'OAuth2PasswordBearer'] : p === '/v2/api/public/otel/v1/traces' ? pairs : signedIn,
          ]);
  });

  /** Headers carrying a valid credential of `scheme`, built from its definition in the document alone. */
  const credentialOf = async (name: string, scheme: (typeof doc.components.securitySchemes)[string], apiKey: string): Promise<Record<string, string>> => {
    if (scheme.type === 'apiKey' && scheme.in === 'header') return { [scheme.name!]: apiKey };
    if (name === 'APIKeyBasicPair') return { authorization: `Basic ${Buffer.from(`langfuse-project:${apiKey}`).toString('base64')}` };
    if (scheme.type === 'http' && scheme.scheme === 'bearer') return { authorization: `Bearer ${apiKey}` };
    if (scheme.type === 'http' && scheme.scheme === 'basic') return { authorization: `Basic ${Buffer.from(`${ADMIN.email}:${ADMIN.password}`).toString('base64')}` };
    const signIn = await w.call('POST', `/${scheme.flows?.password?.tokenUrl ?? 'login'}`, { form: { username: ADMIN.email, password: ADMIN.password } });
    if (scheme.type === 'oauth2') return { authorization: `Bearer ${w.ok(signIn).access_token}` };
    if (scheme.type === 'apiKey' && scheme.in === 'cookie') {
      const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!;
      expect(cookie.startsWith(`${scheme.name}=`)).toBe(true);
      return { cookie };
    }
    throw new Error(`no way to present ${JSON.stringify(scheme)}`);
  };
  /** The same credential, spoilt. */
  const spoilt = (headers: Record<string, string>) =>
    Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, k === 'authorization' && v.startsWith('Basic ') ? `Basic ${Buffer.from(`${ADMIN.email}:wrong`).toString('base64')}` : `${v}x`]));

  it('offers only the password schemes where API keys and users are managed, which an API key is refused', async () => {
    for (const [method, path] of [['post', '/v2/users'], ['post', '/v2/users/api_keys'], ['delete', '/v2/users/api_keys/{api_key_id}']] as const)
      expect([method, path, doc.paths[path]![method]!.security]).toEqual([method, path, [{ OAuth2PasswordBearer: [] }, { HTTPBasic: [] }]]);
    const apiKey = await w.apiKey(w.admin);
    expect((await w.call('POST', '/v2/users/api_keys', { auth: { apiKey }, json: { description: 'by a key' } })).status).toBe(403);
    expect(doc.paths['/v2/users/api_keys']!['get']!.security).toEqual(expect.arrayContaining([{ ClassicAPIKeyHeader: [] }]));
  });

  it('each scheme, presented as the document describes it, is accepted where the document offers it, and a wrong one is not', async () => {
    const apiKey = await w.apiKey(w.admin);
    // Beside the spec's four, the ones the server takes too (the SDKs' API-key headers, the refresh cookie).
    expect(Object.keys(doc.components.securitySchemes)).toEqual(expect.arrayContaining(['GalileoAPIKeyHeader', 'SplunkAPIKeyHeader', 'RefreshTokenCookie']));
    // A read-only operation of each kind: one behind authentication, and refresh_token.
    // Langfuse's OTLP path too, with an empty export, where its Basic pair is offered (the header names the project).
    const probes: Array<[string, string]> = [['get', '/v2/current_user'], ['post', '/v2/refresh_token'], ['post', '/v2/api/public/otel/v1/traces']];
    await w.project(w.admin, 'langfuse-project');
    const otlpHeaders = (path: string): Record<string, string> => (path.includes('/otel/') ? { project: 'langfuse-project' } : {});
    for (const [name, scheme] of Object.entries(doc.components.securitySchemes)) {
      const offered = probes.filter(([m, p]) => doc.paths[p]![m]!.security?.some((alt) => name in alt));
      expect([name, offered.length]).not.toEqual([name, 0]);
      for (const [method, path] of offered) {
        const headers = { ...(await credentialOf(name, scheme, apiKey)), ...otlpHeaders(path) };
        const ok = await w.call(method.toUpperCase(), path, { headers });
        expect([name, path, ok.status]).toEqual([name, path, 200]);
        const refused = await w.call(method.toUpperCase(), path, { headers: spoilt(headers) });
        expect([name, path, refused.status]).toEqual([name, path, 401]);
      }
    }
  });
});

describe('rules across body members, in the document as the server applies them', () => {
  let projectId: string;
  let runId: string;
  let otherRunId: string;
  let scorerId: string;
  beforeAll(async () => {
    projectId = await w.project(w.admin);
    runId = await w.run(w.admin, projectId, 'log_streams');
    otherRunId = await w.run(w.admin, projectId, 'experiments');
    scorerId = w.ok(await w.call('POST', '/v2/scorers', { auth: w.admin, json: { name: `rules-${Date.now()}`, scorer_type: 'llm' } })).id;
    // The same trace and span ids in both runs (a record is its run's): each PATCH case names either run.
    for (const [run, trace, span] of [[{ log_stream_id: runId }, traceId, spanId], [{ experiment_id: otherRunId }, traceId, spanId]] as const)
      w.ok(await w.call('POST', `/v2/projects/${projectId}/traces`, { auth: w.admin, json: { ...run, traces: [{ id: trace, spans: [{ type: 'llm', id: span }] }] } }));
    for (const run of [{ log_stream_id: runId }, { experiment_id: otherRunId }])
      w.ok(await w.call('POST', `/v2/projects/${projectId}/traces`, { auth: w.admin, json: { ...run, traces: [{ id: otherTraceId, spans: [{ type: 'tool', id: otherSpanId }] }] } }));
  });
  const RUN_SCOPE = 'exactly one of log_stream_id, experiment_id or metrics_testing_id must be provided';
  const LLM_VERSION = 'at least one of instructions, user_prompt or chain_poll_template must be provided';
  // Each route with such a rule: bodies the rule admits, bodies it refuses (the rest of each body valid).
  // The immediate-mode routes' records: a trace with a span in each run.
  const [traceId, spanId, otherTraceId, otherSpanId] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const cases = (): Array<[string, string, string, string, Array<object>, Array<object>, string?]> => [
    ['/v2/projects/{project_id}/traces', `/v2/projects/${projectId}/traces`, RUN_SCOPE, 'traces',
      [{ log_stream_id: runId, traces: [] }, { log_stream_id: null, experiment_id: otherRunId, traces: [] }],
      [{ traces: [] }, { log_stream_id: null, traces: [] }, { log_stream_id: runId, experiment_id: otherRunId, traces: [] }]],
    ['/v2/projects/{project_id}/sessions', `/v2/projects/${projectId}/sessions`, RUN_SCOPE, 'sessions',
      [{ log_stream_id: runId, name: 's' }, { experiment_id: otherRunId, metrics_testing_id: null }],
      [{ name: 's' }, { log_stream_id: runId, metrics_testing_id: runId }]],
    ...['traces', 'spans', 'sessions'].map((scope): [string, string, string, string, Array<object>, Array<object>] =>
      [`/v2/projects/{project_id}/${scope}/search`, `/v2/projects/${projectId}/${scope}/search`, RUN_SCOPE, `${scope} search`,
        [{ log_stream_id: runId }, { experiment_id: otherRunId, log_stream_id: null, limit: 5 }],
        [{}, { limit: 5 }, { experiment_id: null }, { log_stream_id: runId, experiment_id: otherRunId, metrics_testing_id: runId }]]),
    ['/v2/projects/{project_id}/spans/available_columns', `/v2/projects/${projectId}/spans/available_columns`, RUN_SCOPE, 'columns',
      [{ log_stream_id: runId }, { experiment_id: otherRunId, metrics_testing_id: null }],
      [{}, { log_stream_id: null, experiment_id: null }, { log_stream_id: runId, experiment_id: otherRunId }]],
    ['/v2/projects/{project_id}/spans', `/v2/projects/${projectId}/spans`, RUN_SCOPE, 'spans',
      [{ log_stream_id: runId, trace_id: traceId, parent_id: traceId, spans: [] }, { log_stream_id: null, experiment_id: otherRunId, trace_id: otherTraceId, parent_id: otherTraceId, spans: [] }],
      [{ trace_id: traceId, parent_id: traceId, spans: [] }, { log_stream_id: runId, experiment_id: otherRunId, trace_id: traceId, parent_id: traceId, spans: [] }]],
    ['/v2/projects/{project_id}/traces/{trace_id}', `/v2/projects/${projectId}/traces/${traceId}`, RUN_SCOPE, 'trace update',
      [{ log_stream_id: runId, trace_id: traceId, output: 'done' }, { log_stream_id: null, experiment_id: otherRunId, trace_id: traceId }],
      [{ trace_id: traceId }, { log_stream_id: runId, experiment_id: otherRunId, trace_id: traceId }], 'patch'],
    ['/v2/projects/{project_id}/spans/{span_id}', `/v2/projects/${projectId}/spans/${spanId}`, RUN_SCOPE, 'span update',
      [{ log_stream_id: runId, span_id: spanId, status_code: 200 }, { experiment_id: otherRunId, span_id: spanId }],
      [{ span_id: spanId }, { log_stream_id: runId, metrics_testing_id: runId, span_id: spanId }], 'patch'],
    ['/v2/projects/{project_id}/export_records', `/v2/projects/${projectId}/export_records`, RUN_SCOPE, 'export',
      [{ log_stream_id: runId, root_type: 'trace' }, { experiment_id: otherRunId, log_stream_id: null, root_type: 'span', export_format: 'csv' }],
      // (export_format given: the 422's input is the body as decoded, its default filled in.)
      [{ root_type: 'trace', export_format: 'jsonl' }, { log_stream_id: runId, experiment_id: otherRunId, root_type: 'trace', export_format: 'json' }]],
    ['/v2/scorers/{scorer_id}/version/llm', `/v2/scorers/${scorerId}/version/llm`, LLM_VERSION, 'LLM scorer version',
      [{ instructions: 'judge' }, { instructions: null, chain_poll_template: { template: 'Rate {output}' } }, { user_prompt: 'u', instructions: 'i' }],
      [{}, { model_name: 'gpt-4o' }, { instructions: null, user_prompt: null, chain_poll_template: null }]],
  ];

  it('says in words a rule JSON Schema cannot say: a threshold\'s, wherever a request takes one', () => {
    const thresholds: Array<{ description?: string }> = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(walk);
      if (typeof node !== 'object' || node === null) return;
      const schema = node as { properties?: Record<string, unknown>; required?: string[]; description?: string };
      if (schema.properties?.['display_value_levels'] && JSON.stringify(schema.required) === '["buckets","display_value_levels"]') thresholds.push(schema);
      Object.values(node).forEach(walk);
    };
    walk(doc);
    // Creating a scorer.
    expect(thresholds.length).toBeGreaterThan(0);
    for (const th of thresholds) expect(th.description).toMatch(/ascending.*one more entry in display_value_levels than in buckets/);
  });

  it('covers every route whose body schema carries such a rule', () => {
    const withRule = Object.entries(doc.paths)
      .flatMap(([p, ops]) => Object.entries(ops).filter(([, op]) => /"(oneOf|anyOf)":\[\{"required"/.test(JSON.stringify(op.requestBody ?? {}))).map(() => p))
      .sort();
    expect(withRule).toEqual(cases().map(([path]) => path).sort());
  });

  it('admits what the server admits and refuses what it refuses with the rule’s 422, body by body', async () => {
    for (const [path, url, message, what, valid, invalid, method = 'post'] of cases()) {
      const validate = compiled(doc.paths[path]![method]!.requestBody!.content['application/json']!.schema);
      for (const body of valid) {
        const reply = await w.call(method.toUpperCase(), url, { auth: w.admin, json: body });
        expect([what, body, reply.status]).toEqual([what, body, 200]);
        expect([what, body, validate(body)]).toEqual([what, body, true]);
      }
      for (const body of invalid) {
        const reply = await w.call(method.toUpperCase(), url, { auth: w.admin, json: body });
        expect([what, body, reply.status, reply.body]).toEqual([
          what, body, 422, { detail: [{ loc: ['body'], msg: `Value error, ${message}`, type: 'value_error', input: body, ctx: { error: message } }] },
        ]);
        expect([what, body, validate(body)]).toEqual([what, body, false]);
      }
    }
  });
});

describe('header parameters, in the document as the server checks them', () => {
  it('documents the OTLP routes’ project and logstream headers with the schema the server applies: a logstream the document refuses, the server refuses', async () => {
    const key = await w.apiKey(w.admin);
    const project = w.ok(await w.call('POST', '/v2/projects', { auth: w.admin, json: { name: `headers-${Date.now()}` } })).name;
    for (const path of ['/v1/traces', '/otel/traces']) {
      const parameters = (doc.paths[path]!['post'] as unknown as { parameters: Array<{ name: string; in: string; required: boolean; schema: object }> }).parameters;
      expect(parameters.map((p) => [p.name, p.in, p.required])).toEqual([['project', 'header', true], ['logstream', 'header', true]]);
      const logstream = compiled(parameters.find((p) => p.name === 'logstream')!.schema);
      for (const name of ['ok-stream', 'x'.repeat(256), 'tab\there']) {
        const reply = await w.call('POST', path, { auth: { apiKey: key }, json: { resourceSpans: [] }, headers: { project, logstream: name } });
        expect([path, name.slice(0, 12), reply.status, logstream(name)]).toEqual([path, name.slice(0, 12), logstream(name) ? 200 : 400, logstream(name)]);
      }
      expect(logstream('x'.repeat(256))).toBe(false);
    }
  });
});

describe('the API reference page', () => {
  it('is served at /docs with its assets from this server, no CDN', async () => {
    const page = await w.call('GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    // Framed by no other page; and like every answer, read as no other type than it says.
    expect(page.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await w.call('GET', '/openapi.json')).headers.get('x-content-type-options')).toBe('nosniff');
    expect((await w.call('GET', '/v2/projects')).headers.get('x-content-type-options')).toBe('nosniff');
    const sources = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources.length).toBeGreaterThanOrEqual(4);
    for (const src of sources) {
      expect(src.startsWith('/docs/')).toBe(true);
      const asset = await w.call('GET', src);
      expect([src, asset.status]).toEqual([src, 200]);
      expect(asset.text.length).toBeGreaterThan(src.endsWith('init.js') ? 50 : 10_000);
    }
    expect((await w.call('GET', '/docs/../../package.json')).status).toBe(404);
    // Nor does the page reach out: Swagger UI's online validator badge (an image from its host, sent this
    // document's URL) is off. The bundle falls back to that host when validatorUrl is not given as null.
    const init = (await w.call('GET', '/docs/init.js')).text as string;
    expect(init).toMatch(/\bvalidatorUrl: null\b/);
    const bundle = sources.find((src) => src.includes('swagger-ui-bundle'));
    expect((await w.call('GET', bundle!)).text).toContain('validator.swagger.io');
  });
});
