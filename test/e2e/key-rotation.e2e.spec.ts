// A rotation of the server's master key (TRACELIGHT_SECRET_KEY, with the old one as
// TRACELIGHT_PREVIOUS_SECRET_KEY for a while): sessions and API keys go on through it, an API key used
// meanwhile is hashed again under the new key and outlives the old one, and what the old key alone
// made stops working once it is dropped.
import { keyId } from '@tracelight/credentials';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { http } from '../support/http';
import { ADMIN, type RunningServer, startServer } from '../support/server';

const OLD = randomBytes(32).toString('hex');
const NEW = randomBytes(32).toString('hex');

describe('a rotation of the master key', () => {
  // One data dir, so one database (its SQLite file, or the MongoDB database named after it), across the starts.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-rotation-'));
  let running: RunningServer | undefined;
  const start = async (env: Record<string, string>) => {
    running = await startServer(env, dataDir);
    return { server: running, call: http(running.baseUrl) };
  };
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  let token: string;
  let usedKey: string;
  let unusedKey: string;
  let rotatedToken: string;

  it('before: a token and two API keys made with the old key', async () => {
    const { call } = await start({ TRACELIGHT_SECRET_KEY: OLD });
    token = ((await call('POST', '/login', { json: { username: ADMIN.email, password: ADMIN.password } })).body as { access_token: string }).access_token;
    const key = async () =>
      ((await call('POST', '/v2/users/api_keys', { json: { description: 'before the rotation' }, headers: { Authorization: `Bearer ${token}` } })).body as { api_key: string }).api_key;
    usedKey = await key();
    unusedKey = await key();
    expect((await call('GET', '/v2/projects', { headers: { 'Service-API-Key': usedKey } })).status).toBe(200);
  });

  it('during: what the old key made still works, and new tokens are signed with the new key', async () => {
    const { server, call } = await start({ TRACELIGHT_SECRET_KEY: NEW, TRACELIGHT_PREVIOUS_SECRET_KEY: OLD });
    expect((await call('GET', '/v2/projects', { headers: { Authorization: `Bearer ${token}` } })).status).toBe(200);
    expect((await call('GET', '/v2/projects', { headers: { 'Service-API-Key': usedKey } })).status).toBe(200);
    // Used again, now found under its new hash.
    expect((await call('GET', '/v2/projects', { headers: { 'Service-AO-API-Key': usedKey } })).status).toBe(200);
    const refreshed = await call('POST', '/v2/refresh_token', { headers: { Authorization: `Bearer ${token}` } });
    expect(refreshed.status).toBe(200);
    rotatedToken = (refreshed.body as { access_token: string }).access_token;
    expect((await call('GET', '/v2/projects', { headers: { 'Service-API-Key': 'tl_not-a-key' } })).status).toBe(401);
    expect(server.output.join('\n')).not.toContain(OLD);
    // Which keys it uses, by their ids alone: what an operator compares across processes and with the admin CLI.
    const listening = server.output.filter((l) => l.includes('"secret_key_id"')).map((l) => JSON.parse(l) as unknown);
    expect(listening).toHaveLength(1);
    expect(listening[0]).toMatchObject({ secret_key_id: keyId(Buffer.from(NEW, 'hex')), previous_secret_key_id: keyId(Buffer.from(OLD, 'hex')) });
    expect(server.output.join('\n')).not.toContain(NEW);
  });

  it('after: the API key used meanwhile and the new token work; the unused key and the old token do not', async () => {
    const { call } = await start({ TRACELIGHT_SECRET_KEY: NEW });
    expect((await call('GET', '/v2/projects', { headers: { 'Service-API-Key': usedKey } })).status).toBe(200);
    expect((await call('GET', '/v2/projects', { headers: { Authorization: `Bearer ${rotatedToken}` } })).status).toBe(200);
    const unused = await call('GET', '/v2/projects', { headers: { 'Service-API-Key': unusedKey } });
    expect([unused.status, unused.body]).toEqual([401, { detail: 'Invalid API key' }]);
    expect((await call('GET', '/v2/projects', { headers: { Authorization: `Bearer ${token}` } })).status).toBe(401);
  });

  it('refuses to start with a previous key too short to be one, without repeating it', async () => {
    const refused = await startServer({ TRACELIGHT_SECRET_KEY: NEW, TRACELIGHT_PREVIOUS_SECRET_KEY: 'Sh0rtOldKey' }, dataDir).then(
      (s) => s.stop().then(() => 'started'),
      (e: unknown) => String(e),
    );
    expect(refused).toMatch(/TRACELIGHT_PREVIOUS_SECRET_KEY must be at least 32 bytes/);
    expect(refused).not.toContain('Sh0rt');
  });

  it('refuses to start with the key in use given as the previous one too (a rotation mis-set)', async () => {
    const refused = await startServer({ TRACELIGHT_SECRET_KEY: NEW, TRACELIGHT_PREVIOUS_SECRET_KEY: NEW }, dataDir).then(
      (s) => s.stop().then(() => 'started'),
      (e: unknown) => String(e),
    );
    expect(refused).toContain('TRACELIGHT_PREVIOUS_SECRET_KEY is the key in use');
    expect(refused).not.toContain(NEW);
  });
});
