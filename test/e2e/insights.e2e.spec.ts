// Spec operation 1: PATCH /v2/projects/{project_id}/runs/{run_id}/insights-settings.
import { randomUUID } from 'node:crypto';
import { ADMIN } from '../support/server';
import { startWorld, type World } from '../support/world';

let w: World;
let projectId: string;
let runId: string;
let path: string;
beforeAll(async () => {
  w = await startWorld();
  projectId = await w.project(w.admin);
  runId = await w.run(w.admin, projectId, 'log_streams');
  path = `/v2/projects/${projectId}/runs/${runId}/insights-settings`;
});
afterAll(() => w.server.stop());

const DEFAULT = { logstream: { enabled: false, start_time: null } };

describe('insights settings', () => {
  it('reads the default before anything is set', async () => {
    const r = await w.call('GET', path, { auth: w.admin });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ insights: DEFAULT, run_id: runId });
  });

  it('stores settings and returns them whole, start_time in UTC', async () => {
    const r = await w.call('PATCH', path, {
      auth: w.admin,
      json: { insights: { logstream: { enabled: true, start_time: '2026-03-01T10:30:00+02:00' } } },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      insights: { logstream: { enabled: true, start_time: '2026-03-01T08:30:00.000Z' } },
      run_id: runId,
    });
    expect((await w.call('GET', path, { auth: w.admin })).body).toEqual(r.body);
  });

  it('replaces rather than merges', async () => {
    await w.call('PATCH', path, { auth: w.admin, json: { insights: { logstream: { enabled: true, start_time: '2026-03-01T00:00:00Z' } } } });
    const r = await w.call('PATCH', path, { auth: w.admin, json: { insights: { logstream: { enabled: true } } } });
    expect(r.body).toEqual({ insights: { logstream: { enabled: true, start_time: null } }, run_id: runId });
  });

  it.each([
    ['an absent body', {}],
    ['an empty object', { json: {} }],
    ['null insights', { json: { insights: null } }],
    ['a JSON null body', { raw: 'null', headers: { 'content-type': 'application/json' } }],
  ])('resets to the default for %s', async (_, body) => {
    await w.call('PATCH', path, { auth: w.admin, json: { insights: { logstream: { enabled: true } } } });
    const r = await w.call('PATCH', path, { auth: w.admin, ...body });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ insights: DEFAULT, run_id: runId });
  });

  it('works with each of the four credential schemes', async () => {
    const key = await w.apiKey(w.admin);
    for (const auth of [
      { apiKey: key, header: 'Service-API-Key' },
      { apiKey: key, header: 'Service-AO-API-Key' },
      w.admin,
      { basic: ADMIN },
    ]) {
      const r = await w.call('PATCH', path, { auth, json: { insights: { logstream: { enabled: true } } } });
      expect(r.status).toBe(200);
    }
  });

  it('answers 401 without credentials', async () => {
    expect((await w.call('PATCH', path, { json: {} })).status).toBe(401);
  });

  it('answers 404 for an unknown project or run, and for another user’s run', async () => {
    expect((await w.call('PATCH', `/v2/projects/${randomUUID()}/runs/${runId}/insights-settings`, { auth: w.admin, json: {} })).status).toBe(404);
    expect((await w.call('PATCH', `/v2/projects/${projectId}/runs/${randomUUID()}/insights-settings`, { auth: w.admin, json: {} })).status).toBe(404);
    const other = await w.user(`insights-${Date.now()}@example.com`);
    const r = await w.call('PATCH', path, { auth: other.auth, json: { insights: { logstream: { enabled: true } } } });
    expect(r.status).toBe(404);
    expect((await w.call('GET', path, { auth: other.auth })).status).toBe(404);
    const otherProject = await w.project(other.auth);
    expect((await w.call('PATCH', `/v2/projects/${otherProject}/runs/${runId}/insights-settings`, { auth: other.auth, json: {} })).status).toBe(404);
  });

  it('answers 422 for bad path ids, a bad boolean and a date-time without offset', async () => {
    const badPath = await w.call('PATCH', `/v2/projects/not-a-uuid/runs/${runId}/insights-settings`, { auth: w.admin, json: {} });
    expect(badPath.status).toBe(422);
    expect(badPath.body.detail).toEqual([
      expect.objectContaining({ loc: ['path', 'project_id'], type: 'uuid_parsing', input: 'not-a-uuid', msg: expect.any(String) }),
    ]);
    const badBool = await w.call('PATCH', path, { auth: w.admin, json: { insights: { logstream: { enabled: 'maybe' } } } });
    expect(badBool.status).toBe(422);
    expect(badBool.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'insights', 'logstream', 'enabled'], type: 'bool_parsing', input: 'maybe' }),
    ]);
    const naive = await w.call('PATCH', path, { auth: w.admin, json: { insights: { logstream: { start_time: '2026-03-01T10:30:00' } } } });
    expect(naive.status).toBe(422);
    expect(naive.body.detail[0]).toMatchObject({ loc: ['body', 'insights', 'logstream', 'start_time'], input: '2026-03-01T10:30:00' });
    const after = await w.call('GET', path, { auth: w.admin });
    expect(after.status).toBe(200);
  });

  it('answers 422 json_invalid for malformed JSON and changes nothing', async () => {
    const before = (await w.call('GET', path, { auth: w.admin })).body;
    const r = await w.call('PATCH', path, { auth: w.admin, raw: '{"insights": {', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ type: 'json_invalid', loc: ['body', expect.any(Number)] });
    expect((await w.call('GET', path, { auth: w.admin })).body).toEqual(before);
  });

  it.each(['application/x-www-form-urlencoded', 'text/plain', 'application/octet-stream'])(
    'refuses a %s body with 415 instead of reading it as no body (which would reset the settings)',
    async (type) => {
      const enabled = { insights: { logstream: { enabled: true, start_time: '2026-11-23T09:00:00.000Z' } } };
      expect((await w.call('PATCH', path, { auth: w.admin, json: enabled })).status).toBe(200);
      const r = await w.call('PATCH', path, { auth: w.admin, raw: JSON.stringify(enabled), headers: { 'content-type': type } });
      expect(r.status).toBe(415);
      expect(r.body).toEqual({ detail: 'Expected application/json' });
      expect((await w.call('GET', path, { auth: w.admin })).body.insights).toEqual(enabled.insights);
    },
  );
});
