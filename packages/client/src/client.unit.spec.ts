// The typed client's clock against a scripted server whose clock is an hour off its own: the answers the
// real server never gives (a token without iat, no Date header, a Max-Age cookie, a Retry-After date), and
// what the client counts on its own clock from them. The e2e suite shows the real server's answers.
import { TracelightClient } from './client';

const HOUR = 3600;
/** A whole second on the client's clock, so that whole-second stamps fall where the tests say. */
const START_MS = Date.UTC(2026, 0, 1, 12, 0, 0);

const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const httpDate = (seconds: number) => new Date(seconds * 1000).toUTCString();

interface Sent {
  readonly path: string;
  readonly bearer: string | undefined;
  readonly cookie: string | undefined;
  readonly status: number;
}

interface Script {
  /** The server's clock less the client's, in seconds. */
  readonly skew: number;
  /** The claims of a token made at `now` (the server's clock, in seconds); iat and exp whole seconds unless said. */
  readonly claims?: (now: number) => { iat?: number; exp: number };
  /** Whether answers carry a Date header. */
  readonly date?: boolean;
  /** The Set-Cookie of a sign-in made at `now` (the server's clock), if any. */
  readonly cookie?: (now: number) => string;
  /** A sign-in's failure, if it fails: its status and headers. */
  readonly signInFails?: (now: number) => Record<string, string> | undefined;
}

/**
 * A server with its own clock (the client's and `skew`): it signs in, refreshes with a bearer token or the
 * cookie (setting none), and answers /v2/projects, refusing a token whose exp has passed on its clock.
 */
const scripted = (script: Script) => {
  let clientMs = START_MS;
  const serverNow = () => clientMs / 1000 + script.skew;
  const sent: Sent[] = [];
  let made = 0;
  const token = (): string => {
    const now = serverNow();
    const claims = script.claims?.(now) ?? { iat: Math.floor(now), exp: Math.floor(now) + 40 };
    return `${base64url({ alg: 'HS256' })}.${base64url({ ...claims, n: ++made })}.signature`;
  };
  const expOf = (value: string | undefined) => (JSON.parse(Buffer.from(value?.split('.')[1] ?? '', 'base64url').toString()) as { exp: number }).exp;
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const path = new URL(String(input)).pathname;
    const headers = new Headers(init?.headers);
    const bearer = headers.get('authorization')?.replace(/^Bearer /, '');
    const cookie = headers.get('cookie') ?? undefined;
    const answer = (status: number, body: unknown, extra: Record<string, string> = {}, setCookie?: string) => {
      sent.push({ path, bearer, cookie, status });
      const h = new Headers({ 'content-type': 'application/json', ...extra });
      if (script.date !== false) h.set('date', httpDate(Math.floor(serverNow())));
      if (setCookie !== undefined) h.append('set-cookie', setCookie);
      return new Response(JSON.stringify(body), { status, headers: h });
    };
    if (bearer !== undefined && expOf(bearer) <= serverNow()) return answer(401, { detail: 'token expired' });
    if (path === '/login') {
      const failure = script.signInFails?.(serverNow());
      if (failure) return answer(503, { detail: 'Service temporarily unavailable' }, failure);
      return answer(200, { access_token: token(), token_type: 'bearer' }, {}, script.cookie?.(serverNow()));
    }
    if (path === '/v2/refresh_token') return answer(200, { access_token: token(), token_type: 'bearer' });
    return answer(200, []);
  };
  const client = new TracelightClient('http://tracelight.test', { login: { email: 'a@example.com', password: 'a password' } }, { fetch, now: () => clientMs });
  return {
    client,
    sent,
    /** Sets the client's clock (and the server's with it) to `seconds` after the start. */
    at: (seconds: number) => {
      clientMs = START_MS + seconds * 1000;
    },
    /** What was sent from the `from`-th request on: path, and which credential went with it. */
    since: (from: number) => sent.slice(from).map((s) => [s.path, s.bearer !== undefined ? 'bearer' : s.cookie !== undefined ? 'cookie' : 'none', s.status]),
  };
};

/** A signed-in client whose clock is then set to `seconds` after its sign-in: what its next call sends. */
const nextCallAfter = async (script: Script, seconds: number) => {
  const s = scripted(script);
  await s.client.listProjects();
  s.at(seconds);
  const from = s.sent.length;
  await s.client.listProjects();
  return s.since(from);
};

const kept = [['/v2/projects', 'bearer', 200]];
const refreshed = [['/v2/refresh_token', 'bearer', 200], ['/v2/projects', 'bearer', 200]];
const renewedWithCookie = [['/v2/refresh_token', 'cookie', 200], ['/v2/projects', 'bearer', 200]];
const signedInAgain = [['/login', 'none', 200], ['/v2/projects', 'bearer', 200]];

describe.each([
  ['an hour ahead of', -HOUR],
  ['an hour behind', HOUR],
])('a client whose clock is %s the server’s', (_, skew) => {
  it('counts a token’s lifetime (exp - iat) from its sign-in: refreshed in its last quarter, never sent in its last second', async () => {
    expect(await nextCallAfter({ skew }, 29.9)).toEqual(kept);
    expect(await nextCallAfter({ skew }, 30.05)).toEqual(refreshed);
    // Made at .999 of a second: its iat is rounded down, so the server holds it expired 39.001 s after it was
    // asked for. The client renews it first from 39 s on; counting the whole 40 s, it would send it spent.
    const late = { skew: skew + 0.999, cookie: () => 'refresh_token=c1; Path=/' };
    expect(await nextCallAfter(late, 38.95)).toEqual(refreshed);
    expect(await nextCallAfter(late, 39.5)).toEqual(renewedWithCookie);
  });

  it('times a token without iat from the answer’s Date', async () => {
    const claims = (now: number) => ({ exp: Math.floor(now) + 40 });
    expect(await nextCallAfter({ skew, claims }, 29.9)).toEqual(kept);
    expect(await nextCallAfter({ skew, claims }, 30.05)).toEqual(refreshed);
    expect(await nextCallAfter({ skew, claims, cookie: () => 'refresh_token=c1' }, 39.05)).toEqual(renewedWithCookie);
  });

  it('keeps a refresh cookie for its Expires less the answer’s Date, a second early', async () => {
    const cookie = (now: number) => `refresh_token=c1; Expires=${httpDate(Math.floor(now) + 60)}; Path=/; HttpOnly`;
    expect(await nextCallAfter({ skew, cookie }, 58.95)).toEqual(renewedWithCookie);
    expect(await nextCallAfter({ skew, cookie }, 59.05)).toEqual(signedInAgain);
  });

  it('keeps a refresh cookie for its Max-Age from the sign-in, whatever Expires says', async () => {
    // An Expires a minute past on the server's clock: Max-Age wins, as RFC 6265 has it.
    const cookie = (now: number) => `refresh_token=c1; Max-Age=60; Expires=${httpDate(Math.floor(now) - 60)}`;
    expect(await nextCallAfter({ skew, cookie }, 59.95)).toEqual(renewedWithCookie);
    expect(await nextCallAfter({ skew, cookie }, 60.05)).toEqual(signedInAgain);
  });

  it('drops a refresh cookie whose Expires has passed by the answer’s Date', async () => {
    // Still an hour away on an hour-behind client's clock, were it read against it.
    const cookie = (now: number) => `refresh_token=c1; Expires=${httpDate(Math.floor(now) - 10)}`;
    expect(await nextCallAfter({ skew, cookie }, 40)).toEqual(signedInAgain);
  });

  it('waits out a Retry-After date by its distance from the answer’s Date', async () => {
    let failing = true;
    const s = scripted({ skew, signInFails: (now) => (failing ? { 'retry-after': httpDate(Math.floor(now) + 20) } : undefined) });
    await expect(s.client.listProjects()).rejects.toMatchObject({ status: 503, retryAfter: 20 });
    failing = false;
    s.at(19.9);
    await expect(s.client.listProjects()).rejects.toMatchObject({ status: 503, retryAfter: 20 });
    expect(s.since(0)).toEqual([['/login', 'none', 503]]);
    s.at(20.05);
    await s.client.listProjects();
    expect(s.since(1)).toEqual(signedInAgain);
  });
});

describe('a client given answers without a Date', () => {
  it('reads a token’s exp without iat, a cookie’s Expires and a Retry-After date on its own clock, there being nothing else to read them by', async () => {
    const claims = (now: number) => ({ exp: Math.floor(now) + 40 });
    // Nothing to count a lifetime from: refreshed 30 s before exp (the margin's cap), as the clock reads it.
    expect(await nextCallAfter({ skew: 0, date: false, claims }, 9.9)).toEqual(kept);
    expect(await nextCallAfter({ skew: 0, date: false, claims }, 10.05)).toEqual(refreshed);
    const cookie = (now: number) => `refresh_token=c1; Expires=${httpDate(Math.floor(now) + 60)}`;
    expect(await nextCallAfter({ skew: 0, date: false, cookie }, 59.95)).toEqual(renewedWithCookie);
    expect(await nextCallAfter({ skew: 0, date: false, cookie }, 60.05)).toEqual(signedInAgain);
    const s = scripted({ skew: 0, date: false, signInFails: (now) => ({ 'retry-after': httpDate(Math.floor(now) + 20) }) });
    await expect(s.client.listProjects()).rejects.toMatchObject({ status: 503, retryAfter: 20 });
  });
});
