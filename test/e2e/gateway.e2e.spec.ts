// Spec operation 3: PUT /v2/integrations/gateway.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ADMIN } from '../support/server';
import { withStorage } from '../support/storage';
import { startWorld, type World } from '../support/world';

let w: World;
beforeAll(async () => {
  w = await startWorld();
});
afterAll(() => w.server.stop());

const TOKEN = 'gw-secret-token-0123456789-abcdefghijklmnop';
const body = (over: Record<string, unknown> = {}) => ({
  token: TOKEN,
  endpoint: 'https://gateway.example.com/relay/v1',
  use_case: 'CUSTOMER_SUPPORT',
  ...over,
});

describe('gateway integration', () => {
  it('creates on the first PUT and updates the same record afterwards', async () => {
    const me = w.ok(await w.call('GET', '/v2/current_user', { auth: w.admin }));
    const first = await w.call('PUT', '/v2/integrations/gateway', { auth: w.admin, json: body() });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      id: expect.any(String),
      name: 'gateway',
      provider: 'gateway',
      created_at: expect.any(String),
      updated_at: expect.any(String),
      created_by: me.id,
      permissions: [],
      is_selected: false,
      is_disabled: false,
      extra: { endpoint: 'https://gateway.example.com/relay/v1', use_case: 'CUSTOMER_SUPPORT' },
    });
    await new Promise((r) => setTimeout(r, 20));
    const second = await w.call('PUT', '/v2/integrations/gateway', {
      auth: w.admin,
      json: body({ token: 'rotated-token-value', use_case: 'SEARCH_V2' }),
    });
    expect(second.status).toBe(200);
    expect(second.body.id).toBe(first.body.id);
    expect(second.body.created_at).toBe(first.body.created_at);
    expect(Date.parse(second.body.updated_at)).toBeGreaterThan(Date.parse(first.body.updated_at));
    expect(second.body.extra.use_case).toBe('SEARCH_V2');
  });

  it('answers the caller’s integration to a GET, without the token; 404 for a user who has none', async () => {
    const other = await w.user(`gw-get-${Date.now()}@example.com`);
    const none = await w.call('GET', '/v2/integrations/gateway', { auth: other.auth });
    expect([none.status, none.body]).toEqual([404, { detail: 'Gateway integration not found' }]);
    const put = w.ok(await w.call('PUT', '/v2/integrations/gateway', { auth: other.auth, json: body({ use_case: 'READ_BACK' }) }));
    const got = await w.call('GET', '/v2/integrations/gateway', { auth: other.auth });
    expect([got.status, got.body]).toEqual([200, put]);
    expect(got.text).not.toContain(TOKEN);
    // Another user's integration is not the caller's.
    expect(w.ok(await w.call('GET', '/integrations/gateway', { auth: w.admin })).created_by).not.toBe(other.id);
  });

  it('never returns, logs or stores the token in clear', async () => {
    const r = await w.call('PUT', '/v2/integrations/gateway', { auth: w.admin, json: body() });
    expect(r.text).not.toContain(TOKEN);
    await w.logged(r); // logs are asynchronous: every line up to this request's is in before we look
    expect(w.server.output.join('\n')).not.toContain(TOKEN);
    // Neither in the data dir's files (SQLite's among them) nor in the database, on whichever engine.
    const files = fs.readdirSync(w.server.dataDir).map((f) => path.join(w.server.dataDir, f));
    for (const file of files.filter((f) => fs.statSync(f).isFile())) {
      expect(fs.readFileSync(file).includes(Buffer.from(TOKEN))).toBe(false);
    }
    expect(await withStorage(w.server, (stored) => stored.holds(TOKEN))).toBe(false);
    // What is looked through would show it: the endpoint sent beside it is stored as sent.
    expect(await withStorage(w.server, (stored) => stored.holds(body().endpoint))).toBe(true);
  });

  it('keeps one integration per user: two users get two records', async () => {
    const other = await w.user(`gw-${Date.now()}@example.com`);
    const mine = w.ok(await w.call('PUT', '/v2/integrations/gateway', { auth: w.admin, json: body() }));
    const theirs = w.ok(await w.call('PUT', '/v2/integrations/gateway', { auth: other.auth, json: body() }));
    expect(theirs.id).not.toBe(mine.id);
    expect(theirs.created_by).toBe(other.id);
  });

  it('works with each of the four credential schemes', async () => {
    const key = await w.apiKey(w.admin);
    for (const auth of [{ apiKey: key }, { apiKey: key, header: 'Service-AO-API-Key' }, w.admin, { basic: ADMIN }]) {
      expect((await w.call('PUT', '/v2/integrations/gateway', { auth, json: body() })).status).toBe(200);
    }
    expect((await w.call('PUT', '/v2/integrations/gateway', { json: body() })).status).toBe(401);
  });

  it('answers a PUT without a body, with an empty one or with JSON null, as FastAPI does: one missing entry for the whole body', async () => {
    for (const options of [{}, ...['', 'null', ' null\n'].map((raw) => ({ raw, headers: { 'content-type': 'application/json' } }))]) {
      const r = await w.call('PUT', '/v2/integrations/gateway', { auth: w.admin, ...options });
      expect([r.status, r.body]).toEqual([422, { detail: [{ loc: ['body'], msg: 'Field required', type: 'missing', input: null }] }]);
    }
    // An empty object is a body: each member it lacks is named.
    const r = await w.call('PUT', '/v2/integrations/gateway', { auth: w.admin, json: {} });
    expect(r.body.detail.map((d: { loc: string[] }) => d.loc)).toEqual([['body', 'token'], ['body', 'endpoint'], ['body', 'use_case']]);
  });

  it.each([
    ['token', { token: undefined }, 'missing'],
    ['endpoint', { endpoint: undefined }, 'missing'],
    ['use_case', { use_case: undefined }, 'missing'],
    ['token', { token: '' }, 'string_too_short'],
    ['token', { token: 42 }, 'string_type'],
    // Sealed as UTF-8, half of a surrogate pair would open as U+FFFD: a token other than the one sent, never seen again.
    ['token', { token: 'A\ud800B' }, 'string_unicode'],
    // Sent on as a credential: a CR or LF could not go into a header, a blank token is none, and a token has a bound.
    ['token', { token: 'line1\r\nX-Injected: 1' }, 'string_pattern_mismatch'],
    ['token', { token: '   ' }, 'string_pattern_mismatch'],
    ['token', { token: 't'.repeat(8193) }, 'string_too_long'],
    ['endpoint', { endpoint: 'ftp://gateway.example.com/x' }, undefined],
    ['endpoint', { endpoint: 'not a url' }, undefined],
    // Half of a surrogate pair: the URL parser would call another address, and stored it would come back changed.
    ['endpoint', { endpoint: 'https://gateway.example.com/cut\ud83d' }, 'url_parsing'],
    // A base URL: a query would choose the whole path judges call ({endpoint}/chat/completions becomes its value).
    ['endpoint', { endpoint: 'http://127.0.0.1:23413/internal/admin/keys?q=' }, 'value_error'],
    ['endpoint', { endpoint: 'https://gateway.example.com/relay/v1#x' }, 'value_error'],
    ['use_case', { use_case: 'customer_support' }, undefined],
    ['use_case', { use_case: '1ABC' }, undefined],
  ])('answers 422 naming %s for %j', async (field, over, type) => {
    const json = body(over);
    for (const [k, v] of Object.entries(over)) if (v === undefined) delete (json as Record<string, unknown>)[k];
    const r = await w.call('PUT', '/v2/integrations/gateway', { auth: w.admin, json });
    expect(r.status).toBe(422);
    expect(r.body.detail).toHaveLength(1);
    expect(r.body.detail[0]).toMatchObject({ loc: ['body', field], msg: expect.any(String), type: type ?? expect.any(String) });
  });
});
