// Refresh-token rotation with reuse detection, over real HTTP against real servers on either engine: each
// use of the refresh cookie answers a new one; a spent one sent again after the grace window revokes its
// session (its current cookie and its access tokens too); within the window it gets the same successor,
// also when two processes on one database are asked at once; the state outlives a restart; the typed
// client goes on across rotations; a refused cookie is expired by the 401 that refuses it.
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
/** The whole `refresh_token` lines an answer's Set-Cookie holds. */
const refreshCookieLines = (r: Reply): string[] => r.headers.getSetCookie().filter((c) => c.startsWith('refresh_token='));
/**
 * A Set-Cookie line's attributes but its expiry, named in lower case, sorted: what a cookie that deletes
 * must share with the one it deletes (Path, Domain: RFC 6265 §5.3) and what it was set with (HttpOnly,
 * Secure, SameSite).
 */
const attributesOf = (line: string): string[] =>
  line
    .split(';')
    .slice(1)
    .map((a) => a.trim().toLowerCase())
    .filter((a) => !a.startsWith('expires=') && !a.startsWith('max-age='))
    .sort();
/** When a Set-Cookie line has its cookie expire (Max-Age first, as RFC 6265 has it), in ms since the epoch; Infinity for a session cookie. */
const expiryOf = (line: string): number => {
  const attribute = (name: string) => line.split(';').map((a) => a.trim()).find((a) => a.toLowerCase().startsWith(`${name}=`))?.slice(name.length + 1);
  const maxAge = attribute('max-age');
  if (maxAge !== undefined) return Date.now() + Number(maxAge) * 1000;
  const expires = attribute('expires');
  return expires === undefined ? Infinity : Date.parse(expires);
};
/** The answer removes the refresh cookie that `setLine` set: one line, an empty value, an expiry passed, the same attributes. */
const expectCleared = (r: Reply, setLine: string) => {
  const lines = refreshCookieLines(r);
  expect(lines.map((l) => l.split(';')[0])).toEqual(['refresh_token=']);
  expect(expiryOf(lines[0]!)).toBeLessThanOrEqual(Date.now());
  expect(attributesOf(lines[0]!)).toEqual(attributesOf(setLine));
};

type Call = ReturnType<typeof http>;
type FamilyId = NonNullable<Parameters<JwtTokenSigner['issueRefresh']>[2]['familyId']>;
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
    // The browser is told to drop it, and sends it no more.
    expect(cookieOf(reuse)).toBe('refresh_token=');
    // The current cookie, the spent ones, and every access token of the session.
    for (const cookie of [s2.cookie, s0.cookie, s1.cookie]) {
      const r = await refresh(w.call, cookie);
      expect([r.status, r.body, cookieOf(r)]).toEqual([401, REUSED, 'refresh_token=']);
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

describe('a refresh cookie refused with 401', () => {
  /** The Set-Cookie line of a sign-in: how the refresh cookie is set. */
  let setLine: string;
  beforeAll(async () => {
    const r = await w.call('POST', '/login', { form: { username: ADMIN.email, password: ADMIN.password } });
    expect(r.status).toBe(200);
    setLine = refreshCookieLines(r)[0]!;
    expect(attributesOf(setLine)).toEqual(['httponly', 'path=/', 'samesite=strict']);
  });

  it('is expired by that answer, whichever way it is refused, on both paths of the route', async () => {
    const s0 = await signIn(w.call);
    const s1 = await rotate(w.call, s0.cookie);
    await pastGrace();
    const live = await signIn(w.call);
    const signer = new JwtTokenSigner({ secretKey: loadOrCreateSecretKey({ dataDir: w.server.dataDir }), tokenTtlSeconds: 3600, refreshTokenTtlSeconds: 604_800, passwordCacheTtlSeconds: 0 });
    const me = w.ok(await w.call('GET', '/v2/current_user', { auth: w.admin }));
    const longAgo = new Date(Date.now() - 8 * 86_400_000);
    const liveClaims = claimsOf(tokenIn(live.cookie));
    const expired = signer.issueRefresh(me.id, longAgo, { startedAt: longAgo, apiKeyId: null, familyId: liveClaims['fid'] as FamilyId }, 0).token;
    const older = signer.issueRefresh(me.id, new Date(), { startedAt: new Date(), apiKeyId: null }).token;
    const tampered = `${live.cookie.slice(0, -1)}${live.cookie.endsWith('A') ? 'B' : 'A'}`;
    const refused: Array<[string, string, unknown]> = [
      // Spent and sent again after the grace window: the session is revoked…
      ['reused', s0.cookie, REUSED],
      // …and so its current cookie is refused too.
      ['revoked', s1.cookie, REUSED],
      ['expired', `refresh_token=${expired}`, { detail: 'token expired' }],
      ['tampered', tampered, { detail: 'bad token signature' }],
      ['forged', 'refresh_token=forged', { detail: 'malformed token' }],
      ['of before rotation', `refresh_token=${older}`, { detail: 'refresh token of an earlier version: sign in again' }],
      ['an access token', `refresh_token=${live.token}`, { detail: 'not a refresh token' }],
      ['empty', 'refresh_token=', { detail: 'Not authenticated' }],
    ];
    for (const path of ['/v2/refresh_token', '/refresh_token'])
      for (const [name, cookie, body] of refused) {
        const r = await w.call('POST', path, { headers: { cookie: `theme=dark; ${cookie}` } });
        expect([path, name, r.status, r.body]).toEqual([path, name, 401, body]);
        expectCleared(r, setLine);
      }
    // None of those touched the live session, whose cookie was only presented spoilt.
    await rotate(w.call, live.cookie);
  });

  it('is not expired when it was not what the route refused: no cookie sent, or an Authorization header sent beside it (the bearer refresh, which a browser sends with the cookie)', async () => {
    const s = await signIn(w.call);
    const spoiltBearer = `${s.token.slice(0, -1)}${s.token.endsWith('A') ? 'B' : 'A'}`;
    const unchanged: Array<[string, Record<string, string>]> = [
      ['nothing', {}],
      ['another cookie', { cookie: 'theme=dark' }],
      ['a refused bearer token', { authorization: `Bearer ${spoiltBearer}` }],
      ['a refused bearer token beside the cookie', { authorization: `Bearer ${spoiltBearer}`, cookie: s.cookie }],
      ['a malformed Authorization header beside the cookie', { authorization: 'Basic !!', cookie: s.cookie }],
    ];
    for (const [name, headers] of unchanged) {
      const r = await w.call('POST', '/v2/refresh_token', { headers });
      expect([name, r.status, r.headers.getSetCookie()]).toEqual([name, 401, []]);
    }
    // The spec's bearer refresh, with the cookie beside it or not: a token, no cookie set or expired.
    for (const headers of [{}, { cookie: s.cookie }]) {
      const r = await w.call('POST', '/v2/refresh_token', { auth: { bearer: s.token }, headers });
      expect([r.status, Object.keys(r.body).sort(), r.headers.getSetCookie()]).toEqual([200, ['access_token', 'token_type'], []]);
    }
    // The cookie sent beside a refused bearer token still refreshes.
    await rotate(w.call, s.cookie);
  });

  it('over HTTPS (behind a trusted proxy) is expired Secure, as it was set', async () => {
    const s = await startServer({ ...ENV, TRACELIGHT_TRUST_PROXY: '1' });
    try {
      const call = http(s.baseUrl);
      for (const proto of ['https', 'http']) {
        const headers = { 'X-Forwarded-Proto': proto };
        const signedIn = await call('POST', '/login', { form: { username: ADMIN.email, password: ADMIN.password }, headers });
        expect(signedIn.status).toBe(200);
        const set = refreshCookieLines(signedIn)[0]!;
        expect([proto, attributesOf(set).includes('secure')]).toEqual([proto, proto === 'https']);
        const r = await call('POST', '/v2/refresh_token', { headers: { ...headers, cookie: 'refresh_token=forged' } });
        expect(r.status).toBe(401);
        expectCleared(r, set);
      }
    } finally {
      await s.stop();
    }
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

describe('a restart on the same database (its SQLite file, or the MongoDB database named after its data dir)', () => {
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
