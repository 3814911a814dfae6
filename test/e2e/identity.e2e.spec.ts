// Sign-in, tokens, API keys and the spec's four credential schemes, over real HTTP.
// The credentials adapter signs the tokens a test needs with the server's own key: no mock, the real signer.
import { JwtTokenSigner, loadOrCreateSecretKey } from '../../adapters/credentials/src';
import { ADMIN } from '../support/server';
import { startWorld, type World } from '../support/world';

let w: World;
beforeAll(async () => {
  w = await startWorld({ TRACELIGHT_TOKEN_TTL_SECONDS: '3600' });
});
afterAll(() => w.server.stop());

const decodeJwt = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));

describe('POST /login (OAuth2 password flow)', () => {
  it('gives a bearer token for the right form-encoded email and password', async () => {
    const r = await w.call('POST', '/login', { form: { username: ADMIN.email, password: ADMIN.password } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ access_token: expect.any(String), token_type: 'bearer' });
    const claims = decodeJwt(r.body.access_token);
    expect(claims.exp - claims.iat).toBe(3600);
  });

  it('accepts JSON too, and is also served under /v2', async () => {
    const r = await w.call('POST', '/v2/login', { json: { username: ADMIN.email, password: ADMIN.password } });
    expect(r.status).toBe(200);
    expect(r.body.token_type).toBe('bearer');
  });

  it('answers 401 for a wrong password and for an unknown email, with the same message', async () => {
    const wrong = await w.call('POST', '/login', { form: { username: ADMIN.email, password: 'not the password' } });
    const unknown = await w.call('POST', '/login', { form: { username: 'nobody@example.com', password: 'whatever1' } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
  });

  it('answers 422 naming the missing field', async () => {
    const r = await w.call('POST', '/login', { form: { username: ADMIN.email } });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'password'], type: 'missing' })]);
  });
});

describe('answers that carry a credential', () => {
  it('say Cache-Control: no-store (sign-in, API-key exchange, refresh, a new API key), and others do not', async () => {
    const key = await w.apiKey(w.admin);
    const replies = {
      login: await w.call('POST', '/login', { form: { username: ADMIN.email, password: ADMIN.password } }),
      apiKeyLogin: await w.call('POST', '/login/api_key', { json: { api_key: key } }),
      refresh: await w.call('POST', '/v2/refresh_token', { auth: w.admin }),
      newKey: await w.call('POST', '/v2/users/api_keys', { auth: w.admin, json: { description: 'no-store' } }),
    };
    for (const [name, r] of Object.entries(replies)) expect([name, r.status, r.headers.get('cache-control')]).toEqual([name, 200, 'no-store']);
    expect((await w.call('GET', '/v2/projects', { auth: w.admin })).headers.get('cache-control')).toBeNull();
  });
});

describe('POST /v2/refresh_token', () => {
  it('takes no body: one sent, even malformed, is not read', async () => {
    const r = await w.call('POST', '/v2/refresh_token', { auth: w.admin, raw: '{bad', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ access_token: expect.any(String), token_type: 'bearer' });
  });

  it('exchanges a valid bearer token for a new one with a fresh expiry', async () => {
    const first = decodeJwt(w.adminToken);
    await new Promise((r) => setTimeout(r, 1100));
    const r = await w.call('POST', '/v2/refresh_token', { auth: w.admin });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ access_token: expect.any(String), token_type: 'bearer' });
    expect(r.body.access_token).not.toBe(w.adminToken);
    expect(decodeJwt(r.body.access_token).exp).toBeGreaterThan(first.exp);
    const me = await w.call('GET', '/v2/current_user', { auth: { bearer: r.body.access_token } });
    expect(me.body.email).toBe(ADMIN.email);
  });

  it.each([
    ['no token', {}],
    ['a malformed token', { Authorization: 'Bearer not-a-jwt' }],
    ['a non-bearer scheme', { Authorization: `Basic ${Buffer.from(`${ADMIN.email}:${ADMIN.password}`).toString('base64')}` }],
  ])('answers 401 for %s', async (_, headers) => {
    const r = await w.call('POST', '/v2/refresh_token', { headers });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ detail: expect.any(String) });
  });

  it('keeps a session within its longest life: a token of a sign-in older than the refresh token’s lifetime is not renewed', async () => {
    // A token as this server signs them (its own key, from its data dir), of a session begun 8 days ago.
    const key = loadOrCreateSecretKey({ dataDir: w.server.dataDir });
    const signer = new JwtTokenSigner({ secretKey: key, tokenTtlSeconds: 3600, refreshTokenTtlSeconds: 604_800, passwordCacheTtlSeconds: 0 });
    const me = w.ok(await w.call('GET', '/v2/current_user', { auth: w.admin }));
    const session = (startedAt: Date) => signer.issue(me.id, new Date(), { startedAt, apiKeyId: null }).accessToken;
    const old = session(new Date(Date.now() - 8 * 86_400_000));
    // Still a valid token until it expires, but not renewable.
    expect((await w.call('GET', '/v2/current_user', { auth: { bearer: old } })).status).toBe(200);
    const r = await w.call('POST', '/v2/refresh_token', { auth: { bearer: old } });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ detail: 'session expired: sign in again' });
    expect((await w.call('POST', '/v2/refresh_token', { auth: { bearer: session(new Date(Date.now() - 6 * 86_400_000)) } })).status).toBe(200);
    // Renewed ten minutes before the session's end, a token lives until that end, not its hour past it.
    const startedAt = new Date(Date.now() - 604_800_000 + 600_000);
    const late = w.ok(await w.call('POST', '/v2/refresh_token', { auth: { bearer: session(startedAt) } })).access_token as string;
    const claims = decodeJwt(late);
    expect(claims.exp).toBe(Math.floor((startedAt.getTime() + 604_800_000) / 1000));
    expect(claims.exp - claims.iat).toBeLessThanOrEqual(601);
  });

  it('takes a token exchanged for an API key, and its renewals, with the key when it is revoked', async () => {
    const created = w.ok(await w.call('POST', '/v2/users/api_keys', { auth: w.admin, json: { description: 'exchanged' } }));
    const token = w.ok(await w.call('POST', '/login/api_key', { json: { api_key: created.api_key } })).access_token;
    const renewed = w.ok(await w.call('POST', '/v2/refresh_token', { auth: { bearer: token } })).access_token;
    expect((await w.call('GET', '/v2/current_user', { auth: { bearer: renewed } })).status).toBe(200);
    expect(w.ok(await w.call('DELETE', `/v2/users/api_keys/${created.id}`, { auth: w.admin }))).toBeDefined();
    for (const t of [token, renewed]) {
      for (const r of [
        await w.call('POST', '/v2/refresh_token', { auth: { bearer: t } }),
        await w.call('GET', '/v2/current_user', { auth: { bearer: t } }),
        await w.call('POST', '/v2/projects', { auth: { bearer: t }, json: { name: `after-revoke-${Date.now()}` } }),
      ]) {
        expect(r.status).toBe(401);
        expect(r.body).toEqual({ detail: 'the API key this session began with is revoked or expired' });
      }
    }
    // A session begun with a password is not tied to any key.
    expect((await w.call('GET', '/v2/current_user', { auth: { bearer: w.adminToken } })).status).toBe(200);
  });

  it('answers 401 for a tampered token', async () => {
    const [h, p, s] = w.adminToken.split('.');
    const claims = decodeJwt(w.adminToken);
    const forged = Buffer.from(JSON.stringify({ ...claims, exp: claims.exp + 10_000 })).toString('base64url');
    const r = await w.call('POST', '/v2/refresh_token', { auth: { bearer: `${h}.${forged}.${s}` } });
    expect(r.status).toBe(401);
    expect(p).not.toBe(forged);
  });

  it('answers 401 for an expired token', async () => {
    const shortLived = await startWorld({ TRACELIGHT_TOKEN_TTL_SECONDS: '1' });
    try {
      await new Promise((r) => setTimeout(r, 2100));
      const r = await shortLived.call('POST', '/v2/refresh_token', { auth: shortLived.admin });
      expect(r.status).toBe(401);
      const other = await shortLived.call('GET', '/v2/projects', { auth: shortLived.admin });
      expect(other.status).toBe(401);
    } finally {
      await shortLived.server.stop();
    }
  });
});

describe('API keys', () => {
  it('refuse half of a surrogate pair in a description (stored as text, it would come back changed) with 422 string_unicode', async () => {
    const keys = async () => (w.ok(await w.call('GET', '/v2/users/api_keys', { auth: w.admin })) as unknown[]).length;
    const before = await keys();
    const r = await w.call('POST', '/v2/users/api_keys', { auth: w.admin, json: { description: 'laptop \ud83d' } });
    expect([r.status, r.body.detail]).toEqual([422, [expect.objectContaining({ loc: ['body', 'description'], type: 'string_unicode', input: 'laptop \ud83d' })]]);
    expect(await keys()).toBe(before);
  });

  it('are shown once, listed without the secret, and usable with both spec headers until revoked', async () => {
    const created = await w.call('POST', '/v2/users/api_keys', { auth: w.admin, json: { description: 'ci key' } });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: expect.any(String),
      api_key: expect.any(String),
      description: 'ci key',
      truncated: expect.any(String),
      created_at: expect.any(String),
      expires_at: null,
      last_used: null,
    });
    const key: string = created.body.api_key;
    expect(key.length).toBeGreaterThanOrEqual(40);
    expect(created.body.truncated.startsWith(key.slice(0, 5))).toBe(true);
    expect(created.body.truncated.endsWith(key.slice(-4))).toBe(true);

    const listed = await w.call('GET', '/v2/users/api_keys', { auth: w.admin });
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain(key);
    expect(listed.body.map((k: { id: string }) => k.id)).toContain(created.body.id);

    for (const header of ['Service-API-Key', 'Service-AO-API-Key']) {
      const r = await w.call('GET', '/v2/projects', { auth: { apiKey: key, header } });
      expect(r.status).toBe(200);
    }
    const exchanged = await w.call('POST', '/login/api_key', { json: { api_key: key } });
    expect(exchanged.status).toBe(200);
    expect(exchanged.body.token_type).toBe('bearer');

    const revoked = await w.call('DELETE', `/v2/users/api_keys/${created.body.id}`, { auth: w.admin });
    expect(revoked.status).toBe(200);
    expect((await w.call('GET', '/v2/projects', { auth: { apiKey: key } })).status).toBe(401);
    expect((await w.call('POST', '/login/api_key', { json: { api_key: key } })).status).toBe(401);
    expect((await w.call('DELETE', `/v2/users/api_keys/${created.body.id}`, { auth: w.admin })).status).toBe(404);
  });

  it('cannot be revoked by another user', async () => {
    const other = await w.user(`keys-${Date.now()}@example.com`);
    const created = w.ok(await w.call('POST', '/v2/users/api_keys', { auth: w.admin, json: { description: 'mine' } }));
    expect((await w.call('DELETE', `/v2/users/api_keys/${created.id}`, { auth: other.auth })).status).toBe(404);
    expect((await w.call('GET', '/v2/projects', { auth: { apiKey: created.api_key } })).status).toBe(200);
  });

  it('reject an expiry in the past and a bad date with 422', async () => {
    const past = await w.call('POST', '/v2/users/api_keys', {
      auth: w.admin,
      json: { description: 'old', expires_at: '2001-01-01T00:00:00Z' },
    });
    expect(past.status).toBe(422);
    const bad = await w.call('POST', '/v2/users/api_keys', { auth: w.admin, json: { description: 'x', expires_at: 'tomorrow' } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ['body', 'expires_at'], type: 'datetime_parsing', input: 'tomorrow' });
  });
});

describe('credential schemes on a /v2 route', () => {
  it('accepts HTTP Basic with email and password', async () => {
    const r = await w.call('GET', '/v2/projects', { auth: { basic: ADMIN } });
    expect(r.status).toBe(200);
    const again = await w.call('GET', '/v2/projects', { auth: { basic: ADMIN } });
    expect(again.status).toBe(200);
  });

  it('rejects HTTP Basic with a wrong password', async () => {
    const r = await w.call('GET', '/v2/projects', { auth: { basic: { email: ADMIN.email, password: 'wrong password' } } });
    expect(r.status).toBe(401);
  });

  it('answers 401 "Not authenticated" with a WWW-Authenticate challenge when no credentials are sent', async () => {
    const r = await w.call('GET', '/v2/projects');
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ detail: 'Not authenticated' });
    expect(r.headers.get('www-authenticate')).toBeTruthy();
  });

  it.each([
    ['an unknown API key', { 'Service-API-Key': 'tl_unknown_key_value_that_does_not_exist_anywhere' }],
    ['an unknown AO API key', { 'Service-AO-API-Key': 'nope' }],
    ['a garbage bearer token', { Authorization: 'Bearer abc.def.ghi' }],
    ['an unknown scheme', { Authorization: 'Digest abc' }],
    ['malformed Basic', { Authorization: 'Basic !!!' }],
  ])('answers 401 for %s', async (_, headers) => {
    const r = await w.call('GET', '/v2/projects', { headers });
    expect(r.status).toBe(401);
  });
});

describe('users', () => {
  it('are created by an admin only', async () => {
    const email = `user-${Date.now()}@example.com`;
    const created = await w.call('POST', '/v2/users', { auth: w.admin, json: { email, password: 'long enough password' } });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ id: expect.any(String), email, role: 'user', created_at: expect.any(String) });
    expect(created.text).not.toContain('long enough password');
    const token = await w.login(email, 'long enough password');
    const forbidden = await w.call('POST', '/v2/users', { auth: { bearer: token }, json: { email: `x${email}`, password: 'long enough password' } });
    expect(forbidden.status).toBe(403);
    const duplicate = await w.call('POST', '/v2/users', { auth: w.admin, json: { email, password: 'long enough password' } });
    expect(duplicate.status).toBe(409);
  });
});
