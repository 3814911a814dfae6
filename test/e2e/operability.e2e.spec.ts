// What a platform team relies on to run Tracelight: probes, metrics, request ids, limits, quiet logs.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as nodeHttp from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { CONFIG_VARIABLES } from '../../apps/server/src/config';
import { http } from '../support/http';
import { ADMIN, startServer } from '../support/server';
import { describeSqliteOnly, E2E_ENGINE } from '../support/storage';
import { startWorld, type World } from '../support/world';

// better-sqlite3 belongs to the SQLite adapter; a test opens the server's file through it, as another process would.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Database = require(path.resolve(__dirname, '../../adapters/sqlite/node_modules/better-sqlite3')) as typeof import('better-sqlite3');

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

  it('charges a user, not a spelling of the credential: scheme case, spacing and the user’s other schemes share one bucket', async () => {
    const { token } = await w.user('spellings@example.com');
    const spellings = [`Bearer ${token}`, `bearer ${token}`, `BEARER  ${token}`, `Bearer\t${token}`];
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) statuses.push((await w.call('GET', '/v2/projects', { headers: { Authorization: spellings[i % spellings.length]! } })).status);
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(31);
    expect(statuses.slice(-4)).toEqual([429, 429, 429, 429]);
    // The same user by another scheme (a Basic pair) is charged to the same bucket: still 429.
    expect((await w.call('GET', '/v2/projects', { auth: { basic: { email: 'spellings@example.com', password: 'another secret password' } } })).status).toBe(429);
  });
});

describe('metrics behind a token (TRACELIGHT_METRICS_TOKEN)', () => {
  const token = 'm3trics-token-for-prometheus-scrapes-0123456789';
  let s: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    s = await startServer({ TRACELIGHT_METRICS_TOKEN: token });
  });
  afterAll(() => s.stop());
  const scrape = (headers: Record<string, string>) => http(s.baseUrl)('GET', '/metrics', { headers });

  it('are answered to the bearer of the token only, in any spelling of the scheme; the probes stay open', async () => {
    for (const authorization of [`Bearer ${token}`, `bearer  ${token}`, `BEARER ${token}\t`]) {
      const r = await scrape({ authorization });
      expect(r.status).toBe(200);
      expect(r.text).toMatch(/^# HELP tracelight_http_requests_total /m);
    }
    const refusals = [
      [{}, 'Not authenticated'],
      [{ authorization: `Bearer ${token.slice(0, -1)}` }, 'Could not validate credentials'],
      [{ authorization: `Bearer ${token}x` }, 'Could not validate credentials'],
      [{ authorization: `Basic ${Buffer.from(`metrics:${token}`).toString('base64')}` }, 'Could not validate credentials'],
      [{ authorization: token }, 'Could not validate credentials'],
      [{ 'Service-API-Key': token }, 'Not authenticated'],
    ] as const;
    for (const [headers, detail] of refusals) {
      const r = await scrape(headers);
      expect([r.status, r.body, r.headers.get('www-authenticate')]).toEqual([401, { detail }, 'Bearer realm="metrics"']);
      expect(r.text).not.toContain('tracelight_');
    }
    expect((await http(s.baseUrl)('GET', '/healthcheck')).status).toBe(200);
    expect((await http(s.baseUrl)('GET', '/readyz')).status).toBe(200);
    // An API user's credentials are not the token either.
    const signedIn = await http(s.baseUrl)('POST', '/login', { json: { username: ADMIN.email, password: ADMIN.password } });
    expect((await scrape({ authorization: `Bearer ${(signedIn.body as { access_token: string }).access_token}` })).status).toBe(401);
    // The token is in no log line, nor is the scheme's rejected guess.
    expect(s.output.join('\n')).not.toContain(token.slice(0, 20));
  });
});

describe('answers at the edges of HTTP', () => {
  it('405 with Allow for a method a path is not served under, known to the router or not; 404 for what is not there', async () => {
    for (const [method, path, allow] of [
      ['GET', '/v2/refresh_token', 'POST'],
      ['PROPFIND', '/v2/projects', 'POST, HEAD, GET'],
    ] as const) {
      const r = await w.call(method, path, { auth: w.admin });
      expect([method, path, r.status, r.body, r.headers.get('allow')]).toEqual([method, path, 405, { detail: 'Method Not Allowed' }, allow]);
    }
    for (const [method, path] of [['PROPFIND', '/nowhere'], ['GET', '/nowhere'], ['GET', '/docs/constructor'], ['GET', '/docs/toString']] as const) {
      const r = await w.call(method, path);
      expect([method, path, r.status, r.body]).toEqual([method, path, 404, { detail: 'Not Found' }]);
    }
  });

  it('422 for a body its Content-Encoding does not describe', async () => {
    const r = await w.call('POST', '/v2/projects', { auth: w.admin, raw: '{"name":"not gzip"}', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([{ loc: ['body'], msg: 'Value error, Malformed compressed body', type: 'value_error', input: null }]);
  });

  it('closes the connection after refusing a chunked body as too large, so what was left unread is not taken for the next request', async () => {
    const small = await startWorld({ TRACELIGHT_BODY_LIMIT: '1kb' });
    try {
      // A stream: sent chunked, with no length.
      const chunked = new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode(JSON.stringify({ name: 'x'.repeat(5_000) })));
          c.close();
        },
      });
      const r = await fetch(`${small.server.baseUrl}/v2/projects`, {
        method: 'POST',
        headers: { authorization: `Bearer ${small.adminToken}`, 'content-type': 'application/json' },
        body: chunked,
        duplex: 'half',
      } as RequestInit);
      expect(r.status).toBe(413);
      expect(r.headers.get('connection')).toBe('close');
      // One of a stated length keeps its connection: the client gets its 413, not a broken pipe.
      const sized = await small.call('POST', '/v2/projects', { auth: small.admin, json: { name: 'x'.repeat(5_000) } });
      expect(sized.status).toBe(413);
      expect(sized.headers.get('connection')).not.toBe('close');
    } finally {
      await small.server.stop();
    }
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

describe('graceful shutdown', () => {
  it('on SIGTERM finishes what is in flight, closes keep-alive connections, closes the database and exits 0', async () => {
    // The ingest below (500 KB) goes through an offload worker, whose connections close too.
    const s = await startWorld({ TRACELIGHT_OFFLOAD_MIN_BYTES: '65536' });
    const key = await s.apiKey(s.admin);
    const project = await s.project(s.admin);
    const run = await s.run(s.admin, project, 'log_streams');
    const agent = new nodeHttp.Agent({ keepAlive: true, maxSockets: 8 });
    const url = new URL(`${s.server.baseUrl}/v2/projects`);
    const get = () =>
      new Promise<number>((resolve, reject) => {
        const req = nodeHttp.request({ host: url.hostname, port: url.port, path: url.pathname, agent, headers: { 'Service-API-Key': key } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end();
      });
    // Eight keep-alive clients asking without pause, as SDKs do, until the server is gone.
    const statuses: number[] = [];
    let stopped = false;
    const clients = Array.from({ length: 8 }, async () => {
      while (!stopped) {
        try {
          statuses.push(await get());
        } catch {
          return; // refused or closed: the server is going away
        }
      }
    });
    await new Promise((r) => setTimeout(r, 300));
    // An ingest of 2,000 spans, in flight when the signal comes.
    const spans = Array.from({ length: 2_000 }, (_, i) => ({ type: 'llm', input: `q${i}`, output: 'a'.repeat(200) }));
    const ingest = s.call('POST', `/v2/projects/${project}/traces`, { auth: { apiKey: key }, json: { log_stream_id: run, traces: [{ input: 'x', spans }] } });
    await new Promise((r) => setTimeout(r, 20));
    const code = await s.server.stop('SIGTERM');
    stopped = true;
    await Promise.all(clients);
    agent.destroy();
    expect((await ingest).status).toBe(200);
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.every((st) => st === 200)).toBe(true);
    // Exited on its own, before the forced exit (after TRACELIGHT_SHUTDOWN_TIMEOUT_MS, 10 s; it says 1): keep-alive clients held nothing.
    expect(code).toBe(0);
    expect(s.server.output.join('\n')).toMatch(/shutting down: finishing in-flight requests/);
    // Its last line says it stopped, once the database is closed.
    expect(JSON.parse(s.server.output.at(-1)!)).toMatchObject({ level: 'info', message: 'stopped: the database is closed' });
    // On SQLite, every connection closed, the writing one last: it checkpointed the write-ahead log into
    // the file and removed it, so the file alone (copied, backed up) is the whole database.
    if (E2E_ENGINE === 'sqlite') expect(fs.readdirSync(s.server.dataDir).filter((f) => f.startsWith('tracelight.db'))).toEqual(['tracelight.db']);
    // The ingest acknowledged before the exit is there after a restart on the same data.
    const again = await startServer(s.server.storageEnv);
    try {
      const found = await http(again.baseUrl)('POST', `/v2/projects/${project}/spans/search`, { auth: { apiKey: key }, json: { log_stream_id: run, limit: 1 } });
      expect(found.status).toBe(200);
      expect(found.body.records).toHaveLength(1);
    } finally {
      await again.stop();
    }
  });
});

describe('a stop that cannot finish cleanly', () => {
  it('says when the exit is forced, after TRACELIGHT_SHUTDOWN_TIMEOUT_MS, and how many requests were left unanswered', async () => {
    // Each request checks a password of its own (scrypt at the default cost, on libuv's thread pool; a pair
    // sent many times at once is checked once), a wrong one with no budget of failed sign-ins, one after
    // another on the pool's one thread. A check (32 MiB of memory-hard work, a cost chosen to take about
    // 100 ms) takes 100 ms on a CI runner's core and more than 30 ms on the fastest: the 99 queued behind
    // the first answer hold the thread 3 s or more, three times the stop's 1 s, on any of them. No more:
    // the exit itself waits for the checks already queued (Node's exit lets the pool finish its queue).
    const timeoutMs = 1_000;
    const s = await startServer({
      UV_THREADPOOL_SIZE: '1',
      TRACELIGHT_RATE_LIMIT_PER_MINUTE: '0',
      TRACELIGHT_SIGN_IN_FAILURES_PER_MINUTE: '0',
      TRACELIGHT_SHUTDOWN_TIMEOUT_MS: String(timeoutMs),
    });
    const url = new URL(`${s.baseUrl}/v2/projects`);
    const agent = new nodeHttp.Agent({ keepAlive: false, maxSockets: Infinity });
    const authorization = (i: number) => `Basic ${Buffer.from(`${ADMIN.email}:guess-${i}`).toString('base64')}`;
    const requests = Array.from(
      { length: 100 },
      (_, i) =>
        new Promise<number>((resolve) => {
          const req = nodeHttp.request({ host: url.hostname, port: url.port, path: url.pathname, agent, headers: { authorization: authorization(i) } }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          });
          req.on('error', () => resolve(0));
          req.end();
        }),
    );
    try {
      // Every request is being answered (the first answers are out) before the signal comes.
      expect(await Promise.race(requests)).toBe(401);
      expect(await s.stop('SIGTERM')).toBe(1);
      // Its own line, wherever it falls: stdout's request lines and stderr's lines reach the test in any
      // order (a request answered just before the exit can be read after it).
      const forced = JSON.parse(s.output.find((line) => line.includes('"shutdown forced')) ?? '{}') as Record<string, unknown>;
      expect(forced).toMatchObject({ level: 'error', after_ms: timeoutMs, waiting_for: 'in-flight requests' });
      // When, by the server's clock: after the bound, and not after a longer one (the default's 10 s). Its
      // event loop has nothing else to do (the checks run on the pool), so its timer fires on time but for
      // what a loaded machine delays it, which 4 s more covers.
      const stopping = JSON.parse(s.output.find((line) => line.includes('shutting down: finishing in-flight requests')) ?? '{}') as Record<string, unknown>;
      const tookMs = Date.parse(String(forced['time'])) - Date.parse(String(stopping['time']));
      expect(tookMs).toBeGreaterThanOrEqual(timeoutMs - 50);
      expect(tookMs).toBeLessThan(timeoutMs + 4_000);
      expect(forced['message']).toMatch(/^shutdown forced after 1 s, still waiting for in-flight requests: \d+ request\(s\) left unanswered$/);
      expect(forced['unanswered_requests']).toBeGreaterThan(0);
      expect((await Promise.all(requests)).filter((status) => status === 0).length).toBeGreaterThanOrEqual(forced['unanswered_requests'] as number);
    } finally {
      agent.destroy();
      await s.stop('SIGKILL');
    }
  });
});

describeSqliteOnly('a stop that cannot finish cleanly on SQLite', () => {
  it('says, besides that it stopped, that the write-ahead log was left beside the database file, and why', async () => {
    const s = await startServer();
    const file = path.join(s.dataDir, 'tracelight.db');
    // Another process with the database open: the server's last connection cannot take the log into the file.
    const other = new Database(file);
    try {
      // In a transaction that writes: it holds the file's write lock until it ends.
      other.exec('BEGIN IMMEDIATE');
      expect(await s.stop('SIGTERM')).toBe(0);
      // One on stderr, one on stdout: in either order here.
      const [left, last] = ['"wal":', '"message":"stopped'].map((part) => JSON.parse(s.output.find((line) => line.includes(part)) ?? '{}') as Record<string, unknown>);
      expect(left).toMatchObject({ level: 'error', wal: `${file}-wal`, database: file, reason: expect.stringMatching(/^another process still has the database open/) });
      expect(left!['message']).toMatch(new RegExp(`^the database closed, but its write-ahead log ${file}-wal was left beside it: another process`));
      expect(last).toMatchObject({ level: 'info', message: 'stopped: the database is closed' });
    } finally {
      other.close();
      await s.stop('SIGKILL');
    }
  });
});

describe('a body cut off by shutdown', () => {
  it('is logged as one sent nothing (499), whichever reader had it, never as a validation error', async () => {
    // Its clients are given 1 s (5 s by default), then cut off: none of them would ever send more.
    const s = await startWorld({ TRACELIGHT_SHUTDOWN_CLIENT_GRACE_MS: '1000' });
    const project = await s.project(s.admin);
    const scorer = s.ok(await s.call('POST', '/v2/scorers', { auth: s.admin, json: { name: 'cut-upload', scorer_type: 'code' } })).id;
    const head = (path: string, id: string, type: string, length: number) =>
      `POST ${path} HTTP/1.1\r\nHost: x\r\nX-Request-Id: ${id}\r\nAuthorization: Bearer ${s.adminToken}\r\nContent-Type: ${type}\r\nContent-Length: ${length}\r\n\r\n`;
    // Part of each body, the rest never sent: read by the body parser, by the server itself (a 9 MB ingest), by busboy.
    const sockets = [
      `${head('/v2/projects', 'cut-json', 'application/json', 100)}{"na`,
      `${head(`/v2/projects/${project}/traces`, 'cut-ingest', 'application/json', 9_000_000)}{"traces":[{"input":"${'x'.repeat(1_000_000)}`,
      `${head(`/v2/scorers/${scorer}/version/code`, 'cut-upload', 'multipart/form-data; boundary=b', 1000)}--b\r\nContent-Disposition: form-data; name="file"; filename="a.py"\r\n\r\nprint(1)`,
    ].map((payload) => {
      const socket = net.connect(Number(new URL(s.server.baseUrl).port), '127.0.0.1');
      socket.on('error', () => undefined);
      socket.write(payload);
      return socket;
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      // The server gives up on them once its grace for clients has passed (TRACELIGHT_SHUTDOWN_CLIENT_GRACE_MS).
      expect(await s.server.stop('SIGTERM')).toBe(0);
      const statuses = ['cut-json', 'cut-ingest', 'cut-upload'].map((id) => {
        const line = s.server.output.find((l) => l.includes(`"request_id":"${id}"`));
        return [id, line === undefined ? undefined : (JSON.parse(line) as { status: number }).status];
      });
      // The connections are closed at the grace, which the stop says: no answer leaves, so none is logged as
      // one (the body's 400 would).
      expect(JSON.parse(await s.server.waitForOutput('still waiting on their clients cut off'))).toMatchObject({ level: 'warn', after_ms: 1000, cut_requests: 3 });
      expect(statuses).toEqual([
        ['cut-json', 499],
        ['cut-ingest', 499],
        ['cut-upload', 499],
      ]);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });
});

describe('replicas starting together on a new database', () => {
  it('all start: the one that finds the first admin made by another meanwhile goes on, rather than exit', async () => {
    // Five rounds of two at once: each round, both count no user, and one insert of the admin comes second.
    for (let round = 0; round < 5; round++) {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-replicas-'));
      const started = await Promise.allSettled([startServer({}, dataDir), startServer({}, dataDir)]);
      const servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
      try {
        expect(started.flatMap((s) => (s.status === 'rejected' ? [String(s.reason).split('\n').slice(0, 3).join(' ')] : []))).toEqual([]);
        for (const s of servers) {
          const signIn = await fetch(`${s.baseUrl}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: ADMIN.email, password: ADMIN.password }) });
          expect([round, signIn.status]).toEqual([round, 200]);
        }
        // Each says what its variables came to once it has looked (behind its listening socket): one made the admin.
        const said = await Promise.all(servers.map((s) => s.waitForOutput(/created the first admin|the first admin exists already/, 60_000)));
        expect(said.filter((l) => l.includes('created the first admin'))).toHaveLength(1);
      } finally {
        await Promise.all(servers.map((s) => s.stop()));
      }
    }
  });
});

describe('--help', () => {
  it('prints every configuration variable with its default and exits 0, without starting or touching a data dir', async () => {
    const main = path.resolve(__dirname, '../../apps/server/dist/main.js');
    const { stdout } = await new Promise<{ stdout: string }>((resolve, reject) =>
      execFile(process.execPath, [main, '--help'], { env: { PATH: process.env['PATH'] ?? '', TRACELIGHT_DATA_DIR: '/nonexistent/never-created' } }, (e, out) =>
        e ? reject(e) : resolve({ stdout: out }),
      ),
    );
    for (const [name, dflt] of CONFIG_VARIABLES) expect(stdout).toContain(`${name}  (default: ${dflt.replace(/`/g, '')})`);
  });
});

describe('a start that cannot go on for a reason of the machine', () => {
  const main = path.resolve(__dirname, '../../apps/server/dist/main.js');
  const start = (env: Record<string, string>) =>
    new Promise<{ code: number | null; stderr: string }>((resolve) =>
      execFile(process.execPath, [main], { env: { PATH: process.env['PATH'] ?? '', TRACELIGHT_PORT: '0', ...env }, timeout: 120_000 }, (e, _stdout, stderr) =>
        resolve({ code: e ? ((e as { code?: number }).code ?? null) : 0, stderr }),
      ),
    );

  it('says why in one line, without a stack trace, and exits 1: a file for a data directory, a file that is no database, a MongoDB URL it cannot use (its password not shown)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-nostart-'));
    const file = path.join(dir, 'a-file');
    fs.writeFileSync(file, '');
    const notADatabase = path.join(dir, 'data');
    fs.mkdirSync(notADatabase);
    fs.writeFileSync(path.join(notADatabase, 'tracelight.db'), 'not a database '.repeat(20));
    const cases = await Promise.all([
      start({ TRACELIGHT_DATA_DIR: file }),
      start({ TRACELIGHT_DATA_DIR: notADatabase }),
      start({ TRACELIGHT_DATA_DIR: path.join(dir, 'm'), TRACELIGHT_DATABASE_URL: 'mongodb://u:s3cret-pw@127.0.0.1:1/tl?serverSelectionTimeoutMS=300' }),
    ]);
    expect(cases.map((c) => c.code)).toEqual([1, 1, 1]);
    for (const c of cases) {
      expect(c.stderr.trim().split('\n')).toHaveLength(1);
      expect(c.stderr).not.toMatch(/\n\s+at /);
      expect(c.stderr).not.toContain('s3cret-pw');
    }
    expect(cases[0]!.stderr).toBe(`Tracelight failed to start: cannot make the data directory ${file} (EEXIST): TRACELIGHT_DATA_DIR must name a directory this process may write, or a path where one can be made\n`);
    expect(cases[1]!.stderr).toMatch(/^Tracelight failed to start: cannot open the SQLite database .+tracelight\.db \(file is not a database\)/);
    expect(cases[2]!.stderr).toMatch(/^Tracelight failed to start: cannot use the MongoDB database at mongodb:\/\/u:\*\*\*\*@127\.0\.0\.1:1\/tl.+MongoServerSelectionError/);
  });
});
