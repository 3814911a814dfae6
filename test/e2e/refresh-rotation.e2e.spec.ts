// Refresh-token rotation with reuse detection, over real HTTP against real servers on SQLite files: each
// use of the refresh cookie answers a new one; a spent one sent again after the grace window revokes its
// session (its current cookie and its access tokens too); within the window it gets the same successor,
// also when two processes on one database are asked at once; the state outlives a restart; the typed
// client goes on across rotations.
import { TracelightClient } from '@tracelight/client';
import { JwtTokenSigner, loadOrCreateSecretKey } from '../../adapters/credentials/src';
import type { Reply } from '../support/http';
import { ADMIN, type RunningServer, startServer } from '../support/server';
import { startWorld, type World } from '../support/world';
import { http } from '../support/http';

/** Short, so that the tests wait little past it; long enough that requests sent together fall inside it on a busy machine. */
const GRACE_MS = 1_000;
const ENV = { TRACELIGHT_REFRESH_REUSE_GRACE_MS: String(GRACE_MS), TRACELIGHT_CREDENTIAL_CACHE_MS: '0' };
const REUSED = { detail: 'refresh token reused: this session is revoked, sign in again' };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const pastGrace = () => sleep(GRACE_MS + 200);
const claimsOf = (token: string | undefined): Record<string, unknown> =>
  JSON.parse(Buffer.from(token?.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
/** The `refresh_token=…` pair an answer sets, if it sets one. */
const cookieOf = (r: Reply | Response): string | undefined => r.headers.getSetCookie().find((c) => c.startsWith('refresh_token='))?.split(';')[0];
const tokenIn = (cookie: string | undefined) => decodeURIComponent(cookie?.slice('refresh_token='.length) ?? '');

type Call = ReturnType<typeof http>;
interface Session {
  readonly cookie: string;
  readonly token: string;
}
const signIn = async (call: Call): Promise<Session> => {
  const r = await call('POST', '/login', { form: { username: ADMIN.email, password: ADMIN.password } });
  expect(r.status).toBe(200);
  return { cookie: cookieOf(r)!, token: r.body.access_token };
};
const refresh = (call: Call, cookie: string) => call('POST', '/v2/refresh_token', { headers: { cookie } });
/** A cookie refresh that must succeed: the new cookie and access token. */
const rotate = async (call: Call, cookie: string): Promise<Session> => {
  const r = await refresh(call, cookie);
  expect([r.status, r.text]).toEqual([200, expect.any(String)]);
  const next = cookieOf(r);
  expect(next).toMatch(/^refresh_token=./);
  return { cookie: next!, token: r.body.access_token };
};
const currentUser = (call: Call, token: string) => call('GET', '/v2/current_user', { auth: { bearer: token } });

let w: World;
beforeAll(async () => {
  w = await startWorld(ENV);
});
afterAll(() => w.server.stop());

describe('the refresh cookie', () => {
  it('is answered anew on every use, each one a later generation of the same family', async () => {
    const s0 = await signIn(w.call);
    const s1 = await rotate(w.call, s0.cookie);
    const s2 = await rotate(w.call, s1.cookie);
    expect(new Set([s0.cookie, s1.cookie, s2.cookie]).size).toBe(3);
    const claims = [s0, s1, s2].map((s) => claimsOf(tokenIn(s.cookie)));
    expect(claims.map((c) => c['gen'])).toEqual([0, 1, 2]);
    expect(new Set(claims.map((c) => c['fid'])).size).toBe(1);
    expect(claimsOf(s2.token)['fid']).toBe(claims[0]!['fid']);
    expect((await currentUser(w.call, s2.token)).status).toBe(200);
  });

  it('spent and sent again after the grace window, revokes its session: its current cookie and its access tokens are refused, other sessions go on', async () => {
    const s0 = await signIn(w.call);
    const other = await signIn(w.call);
    const s1 = await rotate(w.call, s0.cookie);
    const s2 = await rotate(w.call, s1.cookie);
    expect((await currentUser(w.call, s2.token)).status).toBe(200);
    await pastGrace();

    const reuse = await refresh(w.call, s1.cookie);
    expect([reuse.status, reuse.body]).toEqual([401, REUSED]);
    expect(cookieOf(reuse)).toBeUndefined();
    // The current cookie, the spent ones, and every access token of the session.
    for (const cookie of [s2.cookie, s0.cookie, s1.cookie]) {
      const r = await refresh(w.call, cookie);
      expect([r.status, r.body]).toEqual([401, REUSED]);
    }
    for (const token of [s0.token, s1.token, s2.token]) {
      const r = await currentUser(w.call, token);
      expect([r.status, r.body]).toEqual([401, REUSED]);
      expect((await w.call('POST', '/v2/refresh_token', { auth: { bearer: token } })).status).toBe(401);
    }
    // Another sign-in of the same user is another family.
    expect((await currentUser(w.call, other.token)).status).toBe(200);
    await rotate(w.call, other.cookie);
    expect((await currentUser(w.call, (await signIn(w.call)).token)).status).toBe(200);
  });

  it('spent twice within the grace window, two tabs at once then a retry, gets the same successor each time, and the session goes on', async () => {
    const s0 = await signIn(w.call);
    const together = await Promise.all([refresh(w.call, s0.cookie), refresh(w.call, s0.cookie)]);
    expect(together.map((r) => r.status)).toEqual([200, 200]);
    const successor = cookieOf(together[0]!);
    expect(successor).toMatch(/^refresh_token=./);
    expect(cookieOf(together[1]!)).toBe(successor);
    const retry = await refresh(w.call, s0.cookie);
    expect([retry.status, cookieOf(retry)]).toEqual([200, successor]);
    for (const r of [...together, retry]) expect((await currentUser(w.call, r.body.access_token)).status).toBe(200);
    // The successor is the current one: it rotates, and the session stays good.
    const s2 = await rotate(w.call, successor!);
    expect(claimsOf(tokenIn(s2.cookie))['gen']).toBe(2);
    expect((await currentUser(w.call, s2.token)).status).toBe(200);
  });

  it('is not rotated by the bearer refresh, which sets no cookie', async () => {
    const s0 = await signIn(w.call);
    const bearer = await w.call('POST', '/v2/refresh_token', { auth: { bearer: s0.token } });
    expect(bearer.status).toBe(200);
    expect(cookieOf(bearer)).toBeUndefined();
    expect(claimsOf(bearer.body.access_token)['fid']).toBe(claimsOf(tokenIn(s0.cookie))['fid']);
    await rotate(w.call, s0.cookie);
  });

  it('of before rotation (a refresh token naming no family) is refused: sign in again', async () => {
    const signer = new JwtTokenSigner({ secretKey: loadOrCreateSecretKey({ dataDir: w.server.dataDir }), tokenTtlSeconds: 3600, refreshTokenTtlSeconds: 604_800, passwordCacheTtlSeconds: 0 });
    const me = w.ok(await w.call('GET', '/v2/current_user', { auth: w.admin }));
    const older = signer.issueRefresh(me.id, new Date(), { startedAt: new Date(), apiKeyId: null }).token;
    const r = await refresh(w.call, `refresh_token=${older}`);
    expect([r.status, r.body]).toEqual([401, { detail: 'refresh token of an earlier version: sign in again' }]);
  });
});

describe('two server processes on one database', () => {
  let a: RunningServer;
  let b: RunningServer;
  beforeAll(async () => {
    a = await startServer(ENV);
    b = await startServer({ ...ENV, ...a.storageEnv });
  });
  afterAll(() => Promise.all([a.stop(), b.stop()]));

  it('spend a cookie refreshed on both at once only once: every answer is the same successor, which rotates next', async () => {
    const [onA, onB] = [http(a.baseUrl), http(b.baseUrl)];
    const s0 = await signIn(onA);
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => refresh(i % 2 === 0 ? onA : onB, s0.cookie)));
    expect(answers.map((r) => r.status)).toEqual(Array(6).fill(200));
    expect(new Set(answers.map(cookieOf)).size).toBe(1);
    const s2 = await rotate(onB, cookieOf(answers[0]!)!);
    expect(claimsOf(tokenIn(s2.cookie))['gen']).toBe(2);
    expect((await currentUser(onA, s2.token)).status).toBe(200);
  });

  it('see a revocation made on the other: its cookie and its access tokens are refused there too', async () => {
    const [onA, onB] = [http(a.baseUrl), http(b.baseUrl)];
    const s0 = await signIn(onA);
    const s1 = await rotate(onA, s0.cookie);
    await pastGrace();
    expect((await refresh(onB, s0.cookie)).body).toEqual(REUSED);
    expect([(await refresh(onA, s1.cookie)).status, (await currentUser(onA, s1.token)).status]).toEqual([401, 401]);
  });
});

describe('a restart on the same SQLite file', () => {
  it('keeps which cookie is current, which are spent and which sessions are revoked', async () => {
    const first = await startServer(ENV);
    const before = http(first.baseUrl);
    const kept = await signIn(before);
    const kept1 = await rotate(before, kept.cookie);
    const revoked = await signIn(before);
    const revoked1 = await rotate(before, revoked.cookie);
    await pastGrace();
    expect((await refresh(before, revoked.cookie)).body).toEqual(REUSED);
    await first.stop();

    const second = await startServer(ENV, first.dataDir);
    try {
      const after = http(second.baseUrl);
      expect((await refresh(after, revoked1.cookie)).body).toEqual(REUSED);
      expect((await currentUser(after, revoked1.token)).body).toEqual(REUSED);
      // The current cookie goes on; the one it replaced is known to be spent (its reuse revokes).
      const kept2 = await rotate(after, kept1.cookie);
      expect(claimsOf(tokenIn(kept2.cookie))['gen']).toBe(2);
      expect((await refresh(after, kept.cookie)).body).toEqual(REUSED);
      expect((await refresh(after, kept2.cookie)).body).toEqual(REUSED);
    } finally {
      await second.stop();
    }
  });
});

describe('the typed client', () => {
  /** Access tokens live 2 s: each round below starts with the token expired, so the client renews it with the cookie. */
  let short: World;
  beforeAll(async () => {
    short = await startWorld({ ...ENV, TRACELIGHT_TOKEN_TTL_SECONDS: '2' });
  });
  afterAll(() => short.server.stop());

  it('goes on across several rotations with the cookie each refresh sets, one refresh for the calls made together', async () => {
    const sent: Array<{ path: string; token: string | undefined; cookie: string | null; status: number; setCookie: string | undefined }> = [];
    const recording: typeof fetch = async (input, init) => {
      const headers = new Headers(init?.headers);
      const res = await fetch(input, init);
      sent.push({
        path: String(input).replace(short.server.baseUrl, ''),
        token: headers.get('authorization')?.replace(/^Bearer /, ''),
        cookie: headers.get('cookie'),
        status: res.status,
        setCookie: cookieOf(res),
      });
      return res;
    };
    const client = new TracelightClient(short.server.baseUrl, { login: ADMIN }, { fetch: recording });
    await client.listProjects();
    const ROUNDS = 3;
    for (let round = 0; round < ROUNDS; round++) {
      const lastToken = [...sent].reverse().find((s) => s.token !== undefined)?.token;
      await sleep(Math.max(0, (claimsOf(lastToken)['exp'] as number) * 1000 + 50 - Date.now()));
      await Promise.all(Array.from({ length: 4 }, () => client.listProjects()));
    }
    expect(sent.map((s) => [s.path, s.status])).toEqual([
      ['/login', 200],
      ['/v2/projects', 200],
      ...Array.from({ length: ROUNDS }, () => [['/v2/refresh_token', 200], ...Array(4).fill(['/v2/projects', 200])]).flat(),
    ]);
    // Each refresh sends the cookie the one before it set (the sign-in's first), and gets a new one.
    const setters = sent.filter((s) => s.setCookie !== undefined);
    expect(setters.map((s) => s.path)).toEqual(['/login', ...Array(ROUNDS).fill('/v2/refresh_token')]);
    const refreshes = sent.filter((s) => s.path === '/v2/refresh_token');
    refreshes.forEach((r, i) => expect([i, r.cookie, r.token]).toEqual([i, setters[i]!.setCookie, undefined]));
    expect(new Set(setters.map((s) => s.setCookie)).size).toBe(ROUNDS + 1);
  });
});
