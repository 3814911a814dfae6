// Drop-in for the origin's official SDK: the `galileo` npm package logs a trace to Tracelight
// unchanged, from its own process, and every field it sent is read back through search.
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { startWorld, type World } from '../support/world';

let w: World;
beforeAll(async () => {
  w = await startWorld();
});
afterAll(() => w?.server.stop());

/** The SDK's environment for this server: it reads the API's address, free port included, from GALILEO_API_URL. */
const sdkEnv = (key: string, more: Record<string, string>) => ({
  PATH: process.env['PATH'] ?? '',
  GALILEO_API_KEY: key,
  GALILEO_API_URL: w.server.baseUrl,
  ...more,
});
const flow = async (key: string, more: Record<string, string>) => {
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [path.join(__dirname, '../support/galileo-sdk-flow.cjs')], { env: sdkEnv(key, { GALILEO_LOG_LEVEL: 'error', ...more }) });
  return { out: JSON.parse(stdout) as Record<string, unknown>, stderr };
};
const isV4 = (id: unknown) => typeof id === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id);

const decodeJwt = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));

describe('the galileo SDK', () => {
  it('logs a trace with an LLM span and a tool span that search finds with every field it sent', async () => {
    const key = await w.apiKey(w.admin);
    const project = `sdk-${Date.now()}`;
    const { out, stderr } = await flow(key, { PROJECT: project, LOG_STREAM: 'production' });
    // The SDK logs each failure at `error` (one of the answer its generated client validates included).
    expect(stderr).toBe('');
    const { sessionId } = out as { sessionId: string };
    expect(out['flushed']).toBe(1);
    expect(isV4(sessionId)).toBe(true);

    const found = w.ok(await w.call('GET', `/projects?project_name=${project}&type=gen_ai`, { auth: w.admin }));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ name: project, type: 'gen_ai' });
    const streams = w.ok(await w.call('GET', `/projects/${found[0].id}/log_streams`, { auth: w.admin }));
    expect(streams.map((s: { name: string }) => s.name)).toEqual(['production']);
    const scope = { log_stream_id: streams[0].id };

    const traces = w.ok(await w.call('POST', `/v2/projects/${found[0].id}/traces/search`, { auth: w.admin, json: scope })).records;
    expect(traces).toHaveLength(1);
    expect(traces[0]).toMatchObject({
      type: 'trace',
      name: 'sdk-trace',
      input: 'Who wrote «Les Misérables»?',
      output: 'Victor Hugo.',
      user_metadata: { team: 'search' },
      tags: ['sdk'],
      session_id: sessionId,
      has_children: true,
      is_complete: true,
    });

    const spans = w.ok(await w.call('POST', `/v2/projects/${found[0].id}/spans/search`, { auth: w.admin, json: { ...scope, sort: { column_id: 'name', ascending: true } } })).records;
    expect(spans.map((s: { type: string }) => s.type)).toEqual(['llm', 'tool']);
    expect(spans[0]).toMatchObject({
      name: 'llm-call',
      trace_id: traces[0].id,
      parent_id: traces[0].id,
      input: [{ role: 'user', content: 'Who wrote «Les Misérables»?' }],
      output: { role: 'assistant', content: 'Victor Hugo.' },
      model: 'gpt-4o-mini',
      temperature: 0.1,
      metrics: expect.objectContaining({ duration_ns: 1_200_000, num_input_tokens: 11, num_output_tokens: 4 }),
    });
    expect(spans[1]).toMatchObject({
      name: 'search-tool',
      parent_id: traces[0].id,
      input: '{"query": "Les Misérables author"}',
      output: 'Victor Hugo',
      tool_call_id: 'call_42',
    });
  });

  it('logs into an experiment named by id', async () => {
    const key = await w.apiKey(w.admin);
    const project = `sdk-exp-${Date.now()}`;
    const projectId = w.ok(await w.call('POST', '/projects', { auth: w.admin, json: { name: project, type: 'gen_ai' } })).id;
    const experiment = w.ok(await w.call('POST', `/projects/${projectId}/experiments`, { auth: w.admin, json: { name: 'prompt-v2' } }));
    expect((await flow(key, { PROJECT: project, EXPERIMENT_ID: experiment.id })).out['flushed']).toBe(1);
    const traces = w.ok(await w.call('POST', `/v2/projects/${projectId}/traces/search`, { auth: w.admin, json: { experiment_id: experiment.id } })).records;
    expect(traces.map((t: { name: string; run_id: string }) => [t.name, t.run_id])).toEqual([['sdk-trace', experiment.id]]);
  });

  it('logs in streaming mode: each record sent as it is made, spans before their trace, updates as each ends; three parallel first calls create one log stream', async () => {
    const key = await w.apiKey(w.admin);
    const project = `sdk-stream-${Date.now()}`;
    const projectId = w.ok(await w.call('POST', '/projects', { auth: w.admin, json: { name: project, type: 'gen_ai' } })).id;
    const { out } = await flow(key, { PROJECT: project, LOG_STREAM: 'live', MODE: 'streaming' });
    const { traceId, workflowId, llmId } = out as Record<string, string>;
    // The trace's ingest, its spans' and its update each looked the log stream up and, finding none, created it at once.
    const streams = w.ok(await w.call('GET', `/projects/${projectId}/log_streams`, { auth: w.admin }));
    expect(streams.map((s: { name: string }) => s.name)).toEqual(['live']);
    const scope = { log_stream_id: streams[0].id };
    const traces = w.ok(await w.call('POST', `/v2/projects/${projectId}/traces/search`, { auth: w.admin, json: scope })).records;
    expect(traces).toEqual([
      expect.objectContaining({ id: traceId, name: 'streamed-trace', input: 'Plan a trip to Lyon', output: 'Take the TGV.', status_code: 200, tags: ['streamed'], is_complete: true, has_children: true }),
    ]);
    const spans = w.ok(await w.call('POST', `/v2/projects/${projectId}/spans/search`, { auth: w.admin, json: { ...scope, sort: { column_id: 'name' } } })).records;
    expect(spans).toEqual([
      expect.objectContaining({ id: llmId, type: 'llm', trace_id: traceId, parent_id: workflowId, model: 'gpt-4o-mini', output: { role: 'assistant', content: 'Take the TGV.' } }),
      expect.objectContaining({ id: workflowId, type: 'workflow', name: 'planner', trace_id: traceId, parent_id: traceId, output: 'planned', has_children: true }),
    ]);
  });

  it('lists projects and scorers and exports records through the SDK’s helpers', async () => {
    const key = await w.apiKey(w.admin);
    const project = `sdk-helpers-${Date.now()}`;
    const projectId = w.ok(await w.call('POST', '/projects', { auth: w.admin, json: { name: project } })).id;
    const logStream = w.ok(await w.call('POST', `/projects/${projectId}/log_streams`, { auth: w.admin, json: { name: 'exported' } })).id;
    const scorer = `helpers-${Date.now()}`;
    w.ok(await w.call('POST', '/v2/scorers', { auth: w.admin, json: { name: scorer, scorer_type: 'llm' } }));
    const traces = [0, 1, 2].map((i) => ({ name: `t${i}`, input: `q${i}`, output: `a${i}`, created_at: `2026-03-01T00:00:0${i}.000001Z` }));
    w.ok(await w.call('POST', `/projects/${projectId}/traces`, { auth: w.admin, json: { log_stream_id: logStream, traces } }));
    const { out } = await flow(key, { PROJECT: project, LOG_STREAM_ID: logStream, MODE: 'helpers' });
    expect(out['projects']).toEqual(expect.arrayContaining([project]));
    expect(out['scorers']).toEqual(expect.arrayContaining([scorer]));
    // Newest first, the SDK's default sort; every record whole, its time to the microsecond.
    expect((out['exported'] as Array<{ name: string; created_at: string }>).map((r) => [r.name, r.created_at])).toEqual([
      ['t2', '2026-03-01T00:00:02.000001Z'],
      ['t1', '2026-03-01T00:00:01.000001Z'],
      ['t0', '2026-03-01T00:00:00.000001Z'],
    ]);
  });

  it('signs in with an API key (also under the Galileo-API-Key header) and refreshes with the refresh_token cookie', async () => {
    const key = await w.apiKey(w.admin);
    expect((await w.call('GET', '/projects', { auth: { apiKey: key, header: 'Galileo-API-Key' } })).status).toBe(200);
    const signedIn = await w.call('POST', '/login/api_key', { json: { api_key: key } });
    expect(signedIn.status).toBe(200);
    expect(decodeJwt(signedIn.body.access_token).exp).toEqual(expect.any(Number));
    const setCookie = signedIn.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^refresh_token=[^;]+;.*httponly/i);
    const cookie = setCookie.split(';')[0]!;

    const refreshed = await w.call('POST', '/refresh_token', { headers: { cookie } });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body).toEqual({ access_token: expect.any(String), token_type: 'bearer' });
    expect((await w.call('GET', '/projects', { auth: { bearer: refreshed.body.access_token } })).status).toBe(200);

    const refreshToken = decodeURIComponent(cookie.slice('refresh_token='.length));
    expect((await w.call('GET', '/projects', { auth: { bearer: refreshToken } })).status).toBe(401);
    expect((await w.call('POST', '/refresh_token', { headers: { cookie: 'refresh_token=forged' } })).status).toBe(401);
    // A malformed %-escape is a cookie like any other that is no token (it was a 500: decodeURIComponent threw).
    const malformed = await w.call('POST', '/refresh_token', { headers: { cookie: 'refresh_token=%E0%A4%A' } });
    expect([malformed.status, malformed.headers.get('www-authenticate') !== null]).toEqual([401, true]);
    expect((await w.call('POST', '/refresh_token', { headers: { cookie: `refresh_token=${signedIn.body.access_token}` } })).status).toBe(401);
  });
});
