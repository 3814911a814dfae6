// What a platform team relies on to run Tracelight: probes, metrics, request ids, limits, quiet logs.
import { ADMIN } from '../support/server';
import { startWorld, type World } from '../support/world';

let w: World;
beforeAll(async () => {
  w = await startWorld({ TRACELIGHT_RATE_LIMIT_PER_MINUTE: '30' });
});
afterAll(() => w.server.stop());

describe('operability', () => {
  it('answers liveness and readiness without credentials', async () => {
    expect((await w.call('GET', '/healthcheck')).status).toBe(200);
    const ready = await w.call('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready' });
  });

  it('exposes Prometheus metrics by route template and status', async () => {
    await w.call('GET', `/v2/projects/${'0'.repeat(8)}-0000-0000-0000-000000000000`, { auth: w.admin });
    const metrics = await w.call('GET', '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(/tracelight_http_requests_total\{method="GET",route="\/v2\/projects\/:project_id",status="404"\} \d+/);
    expect(metrics.text).toMatch(/tracelight_http_request_duration_seconds_bucket\{/);
    expect(metrics.text).not.toMatch(/route="\/v2\/projects\/0{8}/);
    // Storage operations are timed too, by repository, operation and outcome.
    expect(metrics.text).toMatch(/tracelight_storage_operation_duration_seconds_count\{repository="projects",operation="findById",outcome="ok"\} \d+/);
    expect(metrics.text).toMatch(/tracelight_storage_operation_duration_seconds_count\{repository="users",operation="findByEmail",outcome="ok"\} \d+/);
  });

  it('echoes a request id, and logs every request without credentials or passwords', async () => {
    const key = await w.apiKey(w.admin);
    const r = await w.call('GET', '/v2/projects', { auth: { apiKey: key }, headers: { 'X-Request-Id': 'trace-me-123' } });
    expect(r.headers.get('x-request-id')).toBe('trace-me-123');
    const basic = await w.call('GET', '/v2/projects', { auth: { basic: ADMIN } });
    // Logs are written asynchronously: wait for both requests' lines before reading them.
    await w.logged(r);
    await w.logged(basic);
    const log = w.server.output.join('\n');
    expect(log).toMatch(/"request_id":"trace-me-123"/);
    expect(log).not.toContain(key);
    expect(log).not.toContain(ADMIN.password);
    expect(log).not.toContain(w.adminToken);
  });

  it('limits each credential, answering 429 with Retry-After, without slowing other callers', async () => {
    const busy = await w.apiKey(w.admin);
    const other = await w.apiKey(w.admin);
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 40; i++) {
      const r = await w.call('GET', '/v2/projects', { auth: { apiKey: busy } });
      statuses.push(r.status);
      if (r.status === 429) retryAfter = r.headers.get('retry-after');
    }
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(28);
    expect(statuses).toContain(429);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect((await w.call('GET', '/v2/projects', { auth: { apiKey: other } })).status).toBe(200);
  });

  it('charges a user, not a spelling of the credential: scheme case, spacing and new tokens share one bucket', async () => {
    const { token } = await w.user('spellings@example.com');
    const spellings = [`Bearer ${token}`, `bearer ${token}`, `BEARER  ${token}`, `Bearer\t${token}`];
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) statuses.push((await w.call('GET', '/v2/projects', { headers: { Authorization: spellings[i % spellings.length]! } })).status);
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(31);
    expect(statuses.slice(-4)).toEqual([429, 429, 429, 429]);
    // A token refreshed while throttled is the same user: still 429.
    expect((await w.call('GET', '/v2/projects', { auth: { basic: { email: 'spellings@example.com', password: 'another secret password' } } })).status).toBe(429);
  });
});

describe('rate limit on callers not known', () => {
  let v: World;
  beforeAll(async () => {
    v = await startWorld({ TRACELIGHT_RATE_LIMIT_PER_MINUTE: '10' });
  });
  afterAll(() => v.server.stop());

  it('charges failed authentications to the client address, whatever credential each one presents', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 14; i++) {
      const headers = [{ Authorization: `Basic ${Buffer.from(`${ADMIN.email}:guess-${i}`).toString('base64')}` }, { 'Service-API-Key': `junk-${i}` }, { Authorization: `Bearer junk-${i}` }][i % 3]!;
      statuses.push((await v.call('GET', '/v2/projects', { headers })).status);
    }
    // The world's own sign-in was charged to this address as well.
    const refusals = statuses.filter((s) => s === 401).length;
    expect(refusals).toBeGreaterThanOrEqual(8);
    expect(statuses).toEqual([...Array(refusals).fill(401), ...Array(14 - refusals).fill(429)]);
    // Signing in with a password is charged there too, junk headers or not.
    const login = await v.call('POST', '/login', { form: { username: ADMIN.email, password: ADMIN.password }, headers: { 'Service-API-Key': 'junk' } });
    expect(login.status).toBe(429);
    expect(Number(login.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // A caller who authenticates has a bucket of its own, and the probes are never limited.
    expect((await v.call('GET', '/v2/projects', { auth: v.admin })).status).toBe(200);
    expect((await v.call('GET', '/healthcheck')).status).toBe(200);
  });
});
