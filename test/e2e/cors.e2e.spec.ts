// Calls from web pages of other origins (TRACELIGHT_CORS_ORIGINS): the listed origins' pages may call
// the API and read its answers, refusals included; other origins get no CORS headers; unset, none do.
import { http, type Reply } from '../support/http';
import { ADMIN, type RunningServer, startServer } from '../support/server';

const APP = 'https://app.example.com';
const ELSEWHERE = 'https://evil.example.net';

const corsHeaders = (r: Reply) => Object.fromEntries([...r.headers].filter(([name]) => name.startsWith('access-control-') || name === 'vary'));

describe('CORS for listed origins', () => {
  let s: RunningServer;
  let call: ReturnType<typeof http>;
  beforeAll(async () => {
    // Given as an operator may write it: the default port and upper case are not what browsers send.
    s = await startServer({ TRACELIGHT_CORS_ORIGINS: 'https://App.Example.com:443, https://admin.example.com' });
    call = http(s.baseUrl);
  });
  afterAll(() => s.stop());
  const basic = { basic: ADMIN };

  it('answers a listed origin’s preflight 204 before credentials, naming it and what it may send', async () => {
    const preflight = await call('OPTIONS', '/v2/projects', {
      headers: { Origin: APP, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization, content-type, service-api-key' },
    });
    expect(preflight.status).toBe(204);
    expect(corsHeaders(preflight)).toEqual({
      'access-control-allow-origin': APP,
      'access-control-allow-credentials': 'true',
      'access-control-allow-methods': 'GET,HEAD,PUT,POST,PATCH,DELETE',
      'access-control-allow-headers': 'authorization, content-type, service-api-key',
      'access-control-max-age': '600',
      vary: 'Origin',
    });
  });

  it('lets a listed origin read answers, refusals too, with the headers it needs exposed', async () => {
    const ok = await call('GET', '/v2/projects', { auth: basic, headers: { Origin: 'https://admin.example.com' } });
    expect(ok.status).toBe(200);
    expect(corsHeaders(ok)).toMatchObject({
      'access-control-allow-origin': 'https://admin.example.com',
      'access-control-allow-credentials': 'true',
      'access-control-expose-headers': 'Retry-After,X-Request-Id,WWW-Authenticate,Content-Encoding',
    });
    expect(ok.headers.get('vary')).toContain('Origin');
    // Refused for its credentials, its body, its path: the page can read why.
    const refused = [
      await call('GET', '/v2/projects', { headers: { Origin: APP } }),
      await call('GET', '/v2/projects', { headers: { Origin: APP, 'Service-API-Key': 'tl_not-a-key' } }),
      await call('POST', '/v2/projects', { auth: basic, raw: '{"name":', headers: { Origin: APP, 'content-type': 'application/json' } }),
      await call('GET', '/v2/no-such-route', { headers: { Origin: APP } }),
      await call('POST', '/v2/projects', { auth: basic, raw: `{"name":"${'x'.repeat(1_100_000)}"}`, headers: { Origin: APP, 'content-type': 'application/json' } }),
    ];
    expect(refused.map((r) => [r.status, r.headers.get('access-control-allow-origin')])).toEqual([
      [401, APP],
      [401, APP],
      [422, APP],
      [404, APP],
      [413, APP],
    ]);
  });

  it('gives an origin not listed, and a request with no Origin, no CORS headers', async () => {
    const preflight = await call('OPTIONS', '/v2/projects', { headers: { Origin: ELSEWHERE, 'Access-Control-Request-Method': 'POST' } });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-methods')).toBeNull();
    for (const headers of [{ Origin: ELSEWHERE }, { Origin: `${APP}.evil.example.net` }, { Origin: 'null' }, {}]) {
      const r = await call('GET', '/v2/projects', { auth: basic, headers });
      expect([headers, r.status, r.headers.get('access-control-allow-origin'), r.headers.get('access-control-allow-credentials')]).toEqual([headers, 200, null, null]);
    }
  });
});

describe('CORS for any origin', () => {
  it('names no origin and allows no credentials with *, and none at all unset', async () => {
    const any = await startServer({ TRACELIGHT_CORS_ORIGINS: '*' });
    try {
      const r = await http(any.baseUrl)('GET', '/v2/projects', { auth: { basic: ADMIN }, headers: { Origin: ELSEWHERE } });
      expect([r.status, r.headers.get('access-control-allow-origin'), r.headers.get('access-control-allow-credentials')]).toEqual([200, '*', null]);
      // Not /metrics (open without TRACELIGHT_METRICS_TOKEN): no page a visitor opens may read it.
      const metrics = await http(any.baseUrl)('GET', '/metrics', { headers: { Origin: ELSEWHERE } });
      expect([metrics.status, metrics.headers.get('access-control-allow-origin')]).toEqual([200, null]);
      const probe = await http(any.baseUrl)('GET', '/healthcheck', { headers: { Origin: ELSEWHERE } });
      expect([probe.status, probe.headers.get('access-control-allow-origin')]).toEqual([200, '*']);
    } finally {
      await any.stop();
    }
    const none = await startServer();
    try {
      const r = await http(none.baseUrl)('OPTIONS', '/v2/projects', { headers: { Origin: APP, 'Access-Control-Request-Method': 'POST' } });
      expect(r.headers.get('access-control-allow-origin')).toBeNull();
      const g = await http(none.baseUrl)('GET', '/v2/projects', { auth: { basic: ADMIN }, headers: { Origin: APP } });
      expect([g.status, g.headers.get('access-control-allow-origin'), g.headers.get('vary')]).toEqual([200, null, null]);
    } finally {
      await none.stop();
    }
  });

  it('refuses to start on an origin that is not one, naming it', async () => {
    const refused = await startServer({ TRACELIGHT_CORS_ORIGINS: `${APP}/, app.example.com, ${APP}` }).then(
      (s) => s.stop().then(() => 'started'),
      (e: unknown) => String(e),
    );
    expect(refused).toContain(`TRACELIGHT_CORS_ORIGINS must be * or a comma-separated list of origins like https://app.example.com (scheme, host and port only, no path or trailing slash), got "${APP}/", "app.example.com"`);
    const empty = await startServer({ TRACELIGHT_CORS_ORIGINS: ' , ' }).then(
      (s) => s.stop().then(() => 'started'),
      (e: unknown) => String(e),
    );
    expect(empty).toContain('TRACELIGHT_CORS_ORIGINS must be * or a comma-separated list of origins');
  });
});
