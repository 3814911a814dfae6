// POST /logout: the console's sign-out. It ends the session of the refresh cookie (and of a bearer
// token sent beside it), so that neither the cookie nor the session's access tokens work afterwards,
// and expires the cookie; other sessions of the same user go on.
import { ADMIN } from '../support/server';
import type { Reply } from '../support/http';
import { startWorld, type World } from '../support/world';

const cookieLine = (r: Reply): string | undefined => r.headers.getSetCookie().find((c) => c.startsWith('refresh_token='));
const cookieOf = (r: Reply): string | undefined => cookieLine(r)?.split(';')[0];

let w: World;
beforeAll(async () => {
  w = await startWorld();
});
afterAll(() => w.server.stop());

const signIn = async () => {
  const r = await w.call('POST', '/login', { form: { username: ADMIN.email, password: ADMIN.password } });
  expect(r.status).toBe(200);
  return { cookie: cookieOf(r)!, token: r.body.access_token as string };
};

describe('sign-out', () => {
  it('ends the cookie’s session: the cookie and the session’s access token are refused after, the cookie is expired', async () => {
    const session = await signIn();
    const other = await signIn();
    const out = await w.call('POST', '/logout', { headers: { cookie: session.cookie } });
    expect([out.status, out.body]).toEqual([200, { message: 'Signed out' }]);
    const line = cookieLine(out)!;
    expect(line.split(';')[0]).toBe('refresh_token=');
    expect(line.toLowerCase()).toContain('httponly');
    expect(line.toLowerCase()).toContain('samesite=strict');
    expect(Date.parse(/expires=([^;]+)/i.exec(line)![1]!)).toBeLessThanOrEqual(Date.now());
    expect((await w.call('POST', '/v2/refresh_token', { headers: { cookie: session.cookie } })).status).toBe(401);
    expect((await w.call('GET', '/v2/current_user', { auth: { bearer: session.token } })).status).toBe(401);
    // Another sign-in of the same user is another session: it goes on.
    expect((await w.call('GET', '/v2/current_user', { auth: { bearer: other.token } })).status).toBe(200);
    expect((await w.call('POST', '/v2/refresh_token', { headers: { cookie: other.cookie } })).status).toBe(200);
  });

  it('ends the session of a bearer token sent alone', async () => {
    const session = await signIn();
    const out = await w.call('POST', '/v2/logout', { auth: { bearer: session.token } });
    expect(out.status).toBe(200);
    expect((await w.call('GET', '/v2/current_user', { auth: { bearer: session.token } })).status).toBe(401);
    expect((await w.call('POST', '/v2/refresh_token', { headers: { cookie: session.cookie } })).status).toBe(401);
  });

  it('answers 200 with the cookie expired when there is no session left to end', async () => {
    for (const headers of [{}, { cookie: 'refresh_token=not-a-token' }, { authorization: 'Bearer nonsense' }]) {
      const out = await w.call('POST', '/logout', { headers });
      expect([out.status, out.body]).toEqual([200, { message: 'Signed out' }]);
      expect(cookieOf(out)).toBe('refresh_token=');
    }
    // Signing out twice is signing out once.
    const session = await signIn();
    expect((await w.call('POST', '/logout', { headers: { cookie: session.cookie } })).status).toBe(200);
    expect((await w.call('POST', '/logout', { headers: { cookie: session.cookie } })).status).toBe(200);
  });

  it('cannot end another user’s session with a cookie of one’s own', async () => {
    const other = await w.user(`sign-out-${Date.now()}@example.com`);
    const mine = await signIn();
    await w.call('POST', '/logout', { headers: { cookie: mine.cookie }, auth: { bearer: mine.token } });
    expect((await w.call('GET', '/v2/current_user', { auth: other.auth })).status).toBe(200);
  });
});
