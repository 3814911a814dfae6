// Projects and runs, isolation between users, and the generic error shapes (404, 413, 422 json_invalid).
import { randomUUID } from 'node:crypto';
import { startWorld, type World } from '../support/world';

let w: World;
beforeAll(async () => {
  w = await startWorld({ TRACELIGHT_BODY_LIMIT: '64kb' });
});
afterAll(() => w.server.stop());

describe('projects and runs', () => {
  it('creates, lists and reads projects; names are unique per owner', async () => {
    const name = `proj-${Date.now()}`;
    const created = await w.call('POST', '/v2/projects', { auth: w.admin, json: { name } });
    expect(created.status).toBe(200);
    const me = w.ok(await w.call('GET', '/v2/current_user', { auth: w.admin }));
    expect(created.body).toEqual({
      id: expect.any(String),
      name,
      type: 'gen_ai',
      created_by: me.id,
      // What the origin's Python SDK reads of every project it finds (a KeyError without them).
      created_by_user: { id: me.id, email: me.email, first_name: null, last_name: null },
      runs: [],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect((await w.call('GET', `/v2/projects/${created.body.id}`, { auth: w.admin })).body).toEqual(created.body);
    const byName = await w.call('GET', `/v2/projects?project_name=${name}`, { auth: w.admin });
    expect(byName.body).toEqual([created.body]);
    expect((await w.call('POST', '/v2/projects', { auth: w.admin, json: { name } })).status).toBe(409);
  });

  it('creates and lists log streams and experiments separately', async () => {
    const projectId = await w.project(w.admin);
    const ls = w.ok(await w.call('POST', `/v2/projects/${projectId}/log_streams`, { auth: w.admin, json: { name: 'prod' } }));
    const ex = w.ok(await w.call('POST', `/v2/projects/${projectId}/experiments`, { auth: w.admin, json: { name: 'prod' } }));
    expect(ls).toMatchObject({ name: 'prod', project_id: projectId });
    expect((await w.call('GET', `/v2/projects/${projectId}/log_streams`, { auth: w.admin })).body).toEqual([ls]);
    expect((await w.call('GET', `/v2/projects/${projectId}/experiments`, { auth: w.admin })).body).toEqual([ex]);
  });

  it('hides one user’s projects and runs from another (404, never 403)', async () => {
    const projectId = await w.project(w.admin);
    const other = await w.user(`iso-${Date.now()}@example.com`);
    expect((await w.call('GET', `/v2/projects/${projectId}`, { auth: other.auth })).status).toBe(404);
    expect((await w.call('GET', `/v2/projects/${projectId}/log_streams`, { auth: other.auth })).status).toBe(404);
    expect((await w.call('POST', `/v2/projects/${projectId}/log_streams`, { auth: other.auth, json: { name: 'x' } })).status).toBe(404);
    expect((await w.call('GET', '/v2/projects', { auth: other.auth })).body).toEqual([]);
  });
});

describe('error shapes', () => {
  it('answers 404 {detail} for an unknown route and an unknown project', async () => {
    const route = await w.call('GET', '/v2/nothing-here', { auth: w.admin });
    expect(route.status).toBe(404);
    expect(route.body).toEqual({ detail: 'Not Found' });
    const project = await w.call('GET', `/v2/projects/${randomUUID()}`, { auth: w.admin });
    expect(project.status).toBe(404);
    expect(project.body).toEqual({ detail: expect.any(String) });
  });

  it('answers 413 for a body over the limit, and stores nothing', async () => {
    const name = `big-${Date.now()}`;
    const r = await w.call('POST', '/v2/projects', { auth: w.admin, json: { name, padding: 'x'.repeat(100_000) } });
    expect(r.status).toBe(413);
    expect(r.body).toEqual({ detail: expect.any(String) });
    expect((await w.call('GET', `/v2/projects?project_name=${name}`, { auth: w.admin })).body).toEqual([]);
  });

  it('answers 422 json_invalid for malformed JSON', async () => {
    const r = await w.call('POST', '/v2/projects', { auth: w.admin, raw: '{"name": ', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([{ type: 'json_invalid', loc: ['body', 9], msg: 'JSON decode error', input: {}, ctx: { error: 'Expecting value' } }]);
  });

  it('answers 422 with one entry per bad field, and tolerates unknown fields', async () => {
    const r = await w.call('POST', '/v2/projects', { auth: w.admin, json: { name: 5, type: 'nope' } });
    expect(r.status).toBe(422);
    expect(r.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([
      ['body', 'name'],
      ['body', 'type'],
    ]);
    const extra = await w.call('POST', '/v2/projects', { auth: w.admin, json: { name: `extra-${Date.now()}`, create_example_templates: false, surprise: 1 } });
    expect(extra.status).toBe(200);
  });

  it('refuses names with control characters or unpaired surrogates, which could not be told apart once stored', async () => {
    const project = await w.project(w.admin);
    // Written by hand: JSON.stringify would escape the lone surrogates the same way, but say so plainly.
    const named = (path: string, name: string) => w.call('POST', path, { auth: w.admin, raw: `{"name":${JSON.stringify(name)},"scorer_type":"llm"}`, headers: { 'content-type': 'application/json' } });
    for (const path of ['/v2/projects', `/v2/projects/${project}/log_streams`, '/v2/scorers'])
      for (const name of ['line\nbreak', 'half\ud800-a', 'half\ud801-a', 'nul\u0000']) {
        const r = await named(path, name);
        expect([path, JSON.stringify(name), r.status, r.body.detail?.[0]?.type]).toEqual([path, JSON.stringify(name), 422, 'string_pattern_mismatch']);
      }
    expect((await named('/v2/projects', `ok 🚀 ${Date.now()}`)).status).toBe(200);
  });

  it('answers the healthcheck without credentials', async () => {
    const r = await w.call('GET', '/healthcheck');
    expect(r.status).toBe(200);
  });
});
