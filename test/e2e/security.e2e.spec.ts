// Isolation and secrecy: another user gets 404 for everything of the owner's, on every route that
// names it; nothing they try changes it; no response or log line ever carries a secret.
import * as zlib from 'node:zlib';
import { ADMIN } from '../support/server';
import { startWorld, type World } from '../support/world';

let w: World;
let owner: { project: string; run: string; experiment: string; scorer: string; keyId: string; key: string };
const GATEWAY_TOKEN = 'gateway-secret-value-9f8e7d6c5b4a';

beforeAll(async () => {
  w = await startWorld();
  const a = w.admin;
  const project = await w.project(a);
  const run = await w.run(a, project, 'log_streams');
  const experiment = await w.run(a, project, 'experiments');
  const scorer = w.ok(await w.call('POST', '/v2/scorers', { auth: a, json: { name: 'owned', scorer_type: 'llm' } })).id;
  w.ok(await w.call('POST', `/v2/scorers/${scorer}/version/llm`, { auth: a, json: { instructions: 'x' } }));
  const key = w.ok(await w.call('POST', '/v2/users/api_keys', { auth: a, json: { description: 'owner key' } }));
  w.ok(await w.call('PUT', '/v2/integrations/gateway', { auth: a, json: { token: GATEWAY_TOKEN, endpoint: 'https://gw.example.com/r', use_case: 'OWNER' } }));
  w.ok(await w.call('POST', `/v2/projects/${project}/traces`, { auth: a, json: { log_stream_id: run, traces: [{ input: 'private input', spans: [] }] } }));
  owner = { project, run, experiment, scorer, keyId: key.id, key: key.api_key };
});
afterAll(() => w.server.stop());

describe('another user', () => {
  it('gets 404 for every route that names the owner’s project, run, scorer or API key, and changes nothing', async () => {
    const other = await w.user(`intruder-${Date.now()}@example.com`);
    const o = owner;
    const attempts: Array<[string, string, unknown?]> = [
      ['GET', `/v2/projects/${o.project}`],
      ['GET', `/v2/projects/${o.project}/log_streams`],
      ['POST', `/v2/projects/${o.project}/log_streams`, { name: 'mine now' }],
      ['GET', `/v2/projects/${o.project}/experiments`],
      ['GET', `/v2/projects/${o.project}/runs/${o.run}/insights-settings`],
      ['PATCH', `/v2/projects/${o.project}/runs/${o.run}/insights-settings`, { insights: { logstream: { enabled: true } } }],
      ['GET', `/v2/projects/${o.project}/runs/${o.run}/scorer-settings`],
      ['POST', `/v2/projects/${o.project}/runs/${o.run}/scorer-settings`, { scorers: [] }],
      ['POST', `/v2/projects/${o.project}/spans/available_columns`, { log_stream_id: o.run }],
      ['POST', `/v2/projects/${o.project}/traces`, { log_stream_id: o.run, traces: [{ input: 'injected' }] }],
      ['POST', `/v2/projects/${o.project}/sessions`, { experiment_id: o.experiment }],
      ['POST', `/v2/projects/${o.project}/spans/search`, { log_stream_id: o.run }],
      ['POST', `/v2/projects/${o.project}/traces/search`, { log_stream_id: o.run }],
      ['GET', `/v2/scorers/${o.scorer}`],
      ['GET', `/v2/scorers/${o.scorer}/versions`],
      ['POST', `/v2/scorers/${o.scorer}/version/llm`, { instructions: 'hijack' }],
      ['POST', `/v2/scorers/${o.scorer}/version/luna`, { lora_task_id: 1, prompt: 'p' }],
      ['GET', `/v2/scorers/${o.scorer}/version/code`],
      ['DELETE', `/v2/users/api_keys/${o.keyId}`],
      ['DELETE', `/v2/projects/${o.project}`],
    ];
    for (const [method, path, json] of attempts) {
      const r = await w.call(method, path, { auth: other.auth, ...(json !== undefined ? { json } : {}) });
      expect([method, path, r.status]).toEqual([method, path, 404]);
    }
    // Their own lists show none of it.
    expect(w.ok(await w.call('GET', '/v2/projects', { auth: other.auth }))).toEqual([]);
    expect(w.ok(await w.call('GET', '/v2/scorers', { auth: other.auth }))).toEqual([]);
    expect(w.ok(await w.call('GET', '/v2/users/api_keys', { auth: other.auth }))).toEqual([]);
    // And nothing of the owner's changed.
    const a = w.admin;
    expect((await w.call('GET', `/v2/projects/${o.project}/runs/${o.run}/insights-settings`, { auth: a })).body.insights.logstream.enabled).toBe(false);
    expect(w.ok(await w.call('GET', `/v2/projects/${o.project}/log_streams`, { auth: a })).map((r: { name: string }) => r.name)).not.toContain('mine now');
    expect(w.ok(await w.call('GET', `/v2/scorers/${o.scorer}/versions`, { auth: a })).versions).toHaveLength(1);
    expect(w.ok(await w.call('POST', `/v2/projects/${o.project}/traces/search`, { auth: a, json: { log_stream_id: o.run } })).records.map((r: { input: string }) => r.input)).toEqual(['private input']);
    expect((await w.call('GET', '/v2/projects', { auth: { apiKey: o.key } })).status).toBe(200);
  });

  it('cannot learn of, block or touch the owner’s records by sending records with the same ids into a run of their own', async () => {
    const other = await w.user(`namesake-${Date.now()}@example.com`);
    const theirProject = await w.project(other.auth);
    const theirRun = await w.run(other.auth, theirProject, 'log_streams');
    const a = w.admin;
    const traces = async (auth: typeof a, project: string, run: string) =>
      w.ok(await w.call('POST', `/v2/projects/${project}/traces/search`, { auth, json: { log_stream_id: run } })).records as Array<{ id: string; has_children: boolean; input: string }>;
    const [mine] = await traces(a, owner.project, owner.run);
    expect(mine).toMatchObject({ input: 'private input', has_children: false });
    // The same id, and a span naming the owner's trace as its parent: answered as any new record would be.
    const ingest = await w.call('POST', `/v2/projects/${theirProject}/traces`, {
      auth: other.auth,
      json: { log_stream_id: theirRun, traces: [{ id: mine!.id, input: 'theirs', spans: [{ type: 'llm', input: 'q', parent_id: mine!.id }] }] },
    });
    expect(ingest.status).toBe(200);
    expect((await traces(a, owner.project, owner.run)).map((r) => [r.id, r.input, r.has_children])).toEqual([[mine!.id, 'private input', false]]);
    expect((await traces(other.auth, theirProject, theirRun)).map((r) => [r.id, r.input])).toEqual([[mine!.id, 'theirs']]);
    // And the owner can still ingest that id, again and again.
    expect((await w.call('POST', `/v2/projects/${owner.project}/traces`, { auth: a, json: { log_stream_id: owner.run, traces: [{ id: mine!.id, input: 'private input', spans: [] }] } })).status).toBe(200);
  });

  it('with the read_only role reads and manages its API keys, and changes no data (403)', async () => {
    const email = `reader-${Date.now()}@example.com`;
    w.ok(await w.call('POST', '/v2/users', { auth: w.admin, json: { email, password: 'reader password', role: 'read_only' } }));
    const reader = { bearer: await w.login(email, 'reader password') };
    const key = w.ok(await w.call('POST', '/v2/users/api_keys', { auth: reader, json: { description: 'reading' } }));
    expect((await w.call('GET', '/v2/projects', { auth: { apiKey: key.api_key } })).status).toBe(200);
    expect((await w.call('GET', '/v2/scorers', { auth: reader })).status).toBe(200);
    const writes: Array<[string, string, unknown]> = [
      ['POST', '/v2/projects', { name: 'not allowed' }],
      ['POST', '/v2/scorers', { name: 'not allowed', scorer_type: 'llm' }],
      ['PUT', '/v2/integrations/gateway', { token: 't', endpoint: 'https://gw.example.com/r', use_case: 'READER' }],
      // Ids of the owner's: refused for the role before anything is looked up, so nothing is told.
      ['PATCH', `/v2/projects/${owner.project}/runs/${owner.run}/insights-settings`, {}],
      ['POST', `/v2/projects/${owner.project}/traces`, { log_stream_id: owner.run, traces: [{ input: 'x' }] }],
      ['DELETE', `/v2/projects/${owner.project}`, undefined],
      ['POST', `/v2/scorers/${owner.scorer}/version/llm`, { instructions: 'x' }],
      ['POST', '/v2/users', { email: `made-by-reader-${Date.now()}@example.com`, password: 'long enough', role: 'user' }],
    ];
    for (const [method, path, json] of writes) {
      const r = await w.call(method, path, { auth: reader, json });
      expect([method, path, r.status]).toEqual([method, path, 403]);
    }
    expect(w.ok(await w.call('GET', '/v2/projects', { auth: reader }))).toEqual([]);
  });

  it('with the manager role creates users and read-only users, not admins or managers', async () => {
    const email = `manager-${Date.now()}@example.com`;
    w.ok(await w.call('POST', '/v2/users', { auth: w.admin, json: { email, password: 'manager password', role: 'manager' } }));
    const manager = { bearer: await w.login(email, 'manager password') };
    const create = (role: string) => w.call('POST', '/v2/users', { auth: manager, json: { email: `${role}-by-manager-${Date.now()}@example.com`, password: 'long enough', role } });
    expect((await create('user')).status).toBe(200);
    expect((await create('read_only')).status).toBe(200);
    expect((await create('admin')).status).toBe(403);
    expect((await create('manager')).status).toBe(403);
  });

  it('holding only an API key (or a session begun with one) manages no API keys or users: nothing it could leave behind outlives the key', async () => {
    const email = `keyholder-${Date.now()}@example.com`;
    w.ok(await w.call('POST', '/v2/users', { auth: w.admin, json: { email, password: 'keyholder password', role: 'admin' } }));
    const password = { basic: { email, password: 'keyholder password' } };
    const made = w.ok(await w.call('POST', '/v2/users/api_keys', { auth: password, json: { description: 'ci', expires_at: '2099-01-01T00:00:00Z' } }));
    const other = w.ok(await w.call('POST', '/v2/users/api_keys', { auth: password, json: { description: 'laptop' } }));
    const exchanged = w.ok(await w.call('POST', '/login/api_key', { json: { api_key: made.api_key } })).access_token as string;
    // Renewed, a session begun with the key still rests on it.
    const renewed = w.ok(await w.call('POST', '/v2/refresh_token', { auth: { bearer: exchanged } })).access_token as string;
    const needsPassword = { detail: 'API keys and users are managed with a password: sign in with one (HTTP Basic or /login), not with an API key or a session begun with one' };
    for (const auth of [{ apiKey: made.api_key }, { bearer: exchanged }, { bearer: renewed }]) {
      const attempts = [
        await w.call('POST', '/v2/users/api_keys', { auth, json: { description: 'persist' } }),
        await w.call('DELETE', `/v2/users/api_keys/${other.id}`, { auth }),
        await w.call('POST', '/v2/users', { auth, json: { email: `persist-${Date.now()}@example.com`, password: 'long enough', role: 'admin' } }),
      ];
      expect(attempts.map((r) => [r.status, r.body])).toEqual([[403, needsPassword], [403, needsPassword], [403, needsPassword]]);
      // Reading its keys, and everything else, it may.
      expect((await w.call('GET', '/v2/users/api_keys', { auth })).status).toBe(200);
      expect((await w.call('POST', '/v2/projects', { auth, json: { name: `by-key-${Date.now()}-${Math.random()}` } })).status).toBe(200);
    }
    const listed = w.ok(await w.call('GET', '/v2/users/api_keys', { auth: password })) as Array<{ id: string }>;
    expect(listed.map((k) => k.id).sort()).toEqual([made.id, other.id].sort());
    // With the password, as before: a bearer token of a password sign-in, and Basic.
    const signedIn = { bearer: await w.login(email, 'keyholder password') };
    w.ok(await w.call('DELETE', `/v2/users/api_keys/${other.id}`, { auth: signedIn }));
    expect((await w.call('POST', '/v2/users/api_keys', { auth: password, json: { description: 'again' } })).status).toBe(200);
  });

  it('cannot use a revoked key, a tampered or foreign token, or another user’s password', async () => {
    const key = w.ok(await w.call('POST', '/v2/users/api_keys', { auth: w.admin, json: { description: 'to revoke' } }));
    // Used first, so the server has resolved (and remembers) it: revoking through the API still stops it at once.
    expect((await w.call('GET', '/v2/projects', { auth: { apiKey: key.api_key } })).status).toBe(200);
    w.ok(await w.call('DELETE', `/v2/users/api_keys/${key.id}`, { auth: w.admin }));
    expect((await w.call('GET', '/v2/projects', { auth: { apiKey: key.api_key } })).status).toBe(401);
    const [h, p, s] = w.adminToken.split('.');
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const other = await w.user(`victim-${Date.now()}@example.com`);
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: other.id })).toString('base64url')}.${s}`;
    expect((await w.call('GET', '/v2/current_user', { auth: { bearer: forged } })).status).toBe(401);
    expect((await w.call('GET', '/v2/projects', { auth: { basic: { email: ADMIN.email, password: 'another secret password' } } })).status).toBe(401);
  });

  it('never sees a secret: no response and no log line carries a key, token, password or gateway token', async () => {
    const responses: string[] = [];
    for (const path of ['/v2/users/api_keys', '/v2/projects', '/v2/scorers', '/v2/current_user']) responses.push((await w.call('GET', path, { auth: w.admin })).text);
    const last = await w.call('PUT', '/v2/integrations/gateway', { auth: w.admin, json: { token: GATEWAY_TOKEN, endpoint: 'https://gw.example.com/r', use_case: 'OWNER' } });
    responses.push(last.text);
    await w.logged(last); // logs are asynchronous: every line up to this request's is in before we look
    const everything = [...responses, w.server.output.join('\n')].join('\n');
    for (const secret of [owner.key, GATEWAY_TOKEN, ADMIN.password, w.adminToken]) expect(everything.includes(secret)).toBe(false);
  });
});

describe('anyone, before signing in', () => {
  it('cannot make the server read and parse megabytes: a sign-in body is at most 16 KiB, however it is compressed', async () => {
    // 9 MB of JSON that takes some 200 MB once parsed, in under 9 KB of gzip.
    const bomb = zlib.gzipSync(`[${Array(3_000_000).fill('{}').join(',')}]`);
    expect(bomb.length).toBeLessThan(16 * 1024);
    for (const path of ['/login', '/login/api_key']) {
      const refused = await w.call('POST', path, { raw: bomb, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
      const plain = await w.call('POST', path, { raw: JSON.stringify({ username: 'x'.repeat(17_000), password: 'p', api_key: 'k' }), headers: { 'content-type': 'application/json' } });
      expect([path, refused.status, plain.status]).toEqual([path, 413, 413]);
    }
    // A sign-in as large as its fields may be still goes through.
    const form = new URLSearchParams({ username: ADMIN.email, password: ADMIN.password, grant_type: 'password', scope: 's'.repeat(1_000) });
    expect((await w.call('POST', '/login', { raw: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status).toBe(200);
  });
});
