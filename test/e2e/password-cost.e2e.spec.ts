// Raising scrypt's cost for passwords (TRACELIGHT_PASSWORD_COST): a password hashed at the old cost
// still works, and is hashed again at the new one when its owner next proves it, by signing in or by a
// Basic request; a wrong password moves nothing.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { http } from '../support/http';
import { ADMIN, type RunningServer, startServer } from '../support/server';
import { withStorage } from '../support/storage';

describe('a raised password cost', () => {
  // One data dir, so one database (its SQLite file, or the MongoDB database named after it), across the starts.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-password-cost-'));
  const BASIC_USER = { email: 'basic@example.com', password: 'a basic password' };
  let running: RunningServer | undefined;
  const start = async (env: Record<string, string>) => {
    running = await startServer(env, dataDir);
    return http(running.baseUrl);
  };
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });
  /** The scrypt N a user's stored hash was made with (read from the database, as the server runs). */
  const costOf = async (email: string): Promise<number> => {
    const hash = await withStorage(running!, (stored) => stored.passwordHashOf(email));
    return Math.log2(Number(hash?.split('$')[1]));
  };
  const costs = async () => [await costOf(ADMIN.email), await costOf(BASIC_USER.email)];
  const basic = ({ email, password }: { email: string; password: string }) => ({ Authorization: `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}` });

  it('before: users hashed at cost 14', async () => {
    const call = await start({ TRACELIGHT_PASSWORD_COST: '14' });
    const made = await call('POST', '/v2/users', { json: { email: BASIC_USER.email, password: BASIC_USER.password }, headers: basic(ADMIN) });
    expect(made.status).toBe(200);
    expect(await costs()).toEqual([14, 14]);
  });

  it('after: each is hashed at 15 once its owner proves the password, by signing in or by Basic; a wrong one moves nothing', async () => {
    const call = await start({ TRACELIGHT_PASSWORD_COST: '15' });
    const wrong = await call('POST', '/login', { json: { username: ADMIN.email, password: 'not the password' } });
    expect(wrong.status).toBe(401);
    expect((await call('GET', '/v2/projects', { headers: basic({ ...BASIC_USER, password: 'not the password' }) })).status).toBe(401);
    expect(await costs()).toEqual([14, 14]);

    expect((await call('POST', '/login', { json: { username: ADMIN.email, password: ADMIN.password } })).status).toBe(200);
    expect(await costs()).toEqual([15, 14]);
    expect((await call('GET', '/v2/projects', { headers: basic(BASIC_USER) })).status).toBe(200);
    expect(await costs()).toEqual([15, 15]);
    // The new hashes verify (the cached verification was of the old one).
    expect((await call('POST', '/login', { json: { username: ADMIN.email, password: ADMIN.password } })).status).toBe(200);
    expect((await call('GET', '/v2/projects', { headers: basic(BASIC_USER) })).status).toBe(200);
  });

  it('refuses a cost out of range, saying which are taken', async () => {
    const refused = await startServer({ TRACELIGHT_PASSWORD_COST: '20' }, dataDir).then(
      (s) => s.stop().then(() => 'started'),
      (e: unknown) => String(e),
    );
    expect(refused).toContain('TRACELIGHT_PASSWORD_COST must be an integer from 14 to 18, got "20"');
  });
});
