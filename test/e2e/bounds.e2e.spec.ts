// What a large or hostile population of clients leaves behind in the server: every in-process structure
// that grows with clients, credentials or data stays within its bound, seen through the entries and
// sizes /metrics reports (tracelight_held_entries, tracelight_held_size), never through timings.
import { randomUUID } from 'node:crypto';
import * as net from 'node:net';
import * as zlib from 'node:zlib';
import { http } from '../support/http';
import { ADMIN, startServer } from '../support/server';
import { describeSqliteOnly } from '../support/storage';
import { startWorld } from '../support/world';

/** What /metrics says `structure` holds (size: undefined when it reports none). */
const held = async (baseUrl: string, structure: string): Promise<{ entries: number; size: number | undefined }> => {
  const text = (await http(baseUrl)('GET', '/metrics')).text;
  const read = (metric: string) => {
    const m = new RegExp(`^${metric}\\{structure="${structure}"\\} (\\d+)$`, 'm').exec(text);
    return m ? Number(m[1]) : undefined;
  };
  const entries = read('tracelight_held_entries');
  if (entries === undefined) throw new Error(`/metrics reports no ${structure}`);
  return { entries, size: read('tracelight_held_size') };
};

const junkKey = { 'Service-API-Key': 'not a key' };

describe('rate-limit buckets', () => {
  it('are dropped once refilled: 300 callers one after another leave one bucket, not 300', async () => {
    // 100,000 requests a second per caller: a bucket is full again a few microseconds after its request.
    const s = await startServer({ TRACELIGHT_RATE_LIMIT_PER_MINUTE: '6000000', TRACELIGHT_TRUST_PROXY: 'true' });
    try {
      const call = http(s.baseUrl);
      // Failed authentications, each charged to the address it came from.
      for (let i = 0; i < 300; i++) {
        const r = await call('GET', '/v2/projects', { headers: { ...junkKey, 'X-Forwarded-For': `10.1.${i >> 8}.${i & 255}` } });
        expect(r.status).toBe(401);
      }
      expect((await held(s.baseUrl, 'rate_limit_buckets')).entries).toBe(1);
    } finally {
      await s.stop();
    }
  });
});

describe('client addresses behind two trusted proxies (TRACELIGHT_TRUST_PROXY=2), 5 requests a minute', () => {
  let s: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    s = await startServer({ TRACELIGHT_RATE_LIMIT_PER_MINUTE: '5', TRACELIGHT_TRUST_PROXY: '2' });
  });
  afterAll(() => s.stop());
  /** The statuses of `n` failed authentications, the i-th with the X-Forwarded-For `forwarded(i)`. */
  const failures = async (n: number, forwarded: (i: number) => string, headers: Record<string, string> = junkKey) => {
    const statuses: number[] = [];
    for (let i = 0; i < n; i++) statuses.push((await http(s.baseUrl)('GET', '/v2/projects', { headers: { ...headers, 'X-Forwarded-For': forwarded(i) } })).status);
    return statuses;
  };
  const limited = [401, 401, 401, 401, 401, 429, 429, 429];

  it('charges the address the outer proxy saw: whatever a client writes to the left of it, it is limited', async () => {
    // The proxies append what they saw: 198.51.100.1 (the client, to the outer one), then the outer one.
    expect(await failures(8, (i) => `203.0.113.${i}, 198.51.100.1, 192.0.2.7`)).toEqual(limited);
  });

  it('charges an IPv6 client by its /64, and an IPv4-mapped address as the IPv4 one', async () => {
    expect(await failures(8, (i) => `2001:db8:1:2:${i.toString(16)}::1, 192.0.2.7`)).toEqual(limited);
    // Another /64 is another client.
    expect(await failures(1, () => '2001:db8:1:3::1, 192.0.2.7')).toEqual([401]);
    expect(await failures(4, () => '198.51.100.9, 192.0.2.7')).toEqual([401, 401, 401, 401]);
    expect(await failures(2, () => '::ffff:198.51.100.9, 192.0.2.7')).toEqual([401, 429]);
  });

  it('keys a bucket by the address, never by what the header holds: 50 forged 8 KB entries leave one small bucket', async () => {
    const before = await held(s.baseUrl, 'rate_limit_buckets');
    // Not addresses: charged to the connection's peer, this test's own address.
    const statuses = await failures(50, (i) => `${String(i).padStart(8_000, 'x')}, 192.0.2.7`);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5)).toEqual(Array(45).fill(429));
    const after = await held(s.baseUrl, 'rate_limit_buckets');
    expect(after.entries - before.entries).toBe(1);
    expect(after.size! - before.size!).toBeLessThan(100);
  });

  it('does not check the password of a Basic pair from an address whose failures emptied its bucket', async () => {
    const basic = (i: number) => ({ Authorization: `Basic ${Buffer.from(`${ADMIN.email}:guess-${i}`).toString('base64')}` });
    const lookups = async () => {
      const text = (await http(s.baseUrl)('GET', '/metrics')).text;
      return Number(/tracelight_storage_operation_duration_seconds_count\{repository="users",operation="findByEmail",outcome="ok"\} (\d+)/.exec(text)?.[1] ?? 0);
    };
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push(...(await failures(1, () => '198.51.100.20, 192.0.2.7', basic(i))));
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    const checked = await lookups();
    for (let i = 5; i < 25; i++) statuses.push(...(await failures(1, () => '198.51.100.20, 192.0.2.7', basic(i))));
    expect(statuses.slice(5)).toEqual(Array(20).fill(429));
    // Each check begins by looking the user up: none was made for the 20 refused pairs.
    expect(await lookups()).toBe(checked);
    // Even the right password waits there, as sign-in does (POST /login is charged to the address too).
    expect((await failures(1, () => '198.51.100.20, 192.0.2.7', { Authorization: `Basic ${Buffer.from(`${ADMIN.email}:${ADMIN.password}`).toString('base64')}` }))).toEqual([429]);
  });
});

describe('failed sign-ins, 3 a minute per address (TRACELIGHT_SIGN_IN_FAILURES_PER_MINUTE=3), behind one trusted proxy', () => {
  let s: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    s = await startServer({ TRACELIGHT_SIGN_IN_FAILURES_PER_MINUTE: '3', TRACELIGHT_TRUST_PROXY: '1' });
  });
  afterAll(() => s.stop());
  const from = (address: string) => ({ 'X-Forwarded-For': address });
  const login = (address: string, password: string) => http(s.baseUrl)('POST', '/login', { json: { username: ADMIN.email, password }, headers: from(address) });
  const basic = (address: string, password: string) =>
    http(s.baseUrl)('GET', '/v2/projects', { headers: { ...from(address), Authorization: `Basic ${Buffer.from(`${ADMIN.email}:${password}`).toString('base64')}` } });
  /** How many times a user was looked up by email: each password check begins so. */
  const lookups = async () => {
    const text = (await http(s.baseUrl)('GET', '/metrics')).text;
    return Number(/tracelight_storage_operation_duration_seconds_count\{repository="users",operation="findByEmail",outcome="ok"\} (\d+)/.exec(text)?.[1] ?? 0);
  };

  it('answers sign-ins from an address past its failures 429, unchecked, the right password too; other addresses and tokens go on', async () => {
    const signedIn = await login('198.51.100.30', ADMIN.password);
    expect(signedIn.status).toBe(200);
    const token = (signedIn.body as { access_token: string }).access_token;
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await login('198.51.100.30', `guess-${i}`)).status);
    expect(statuses).toEqual([401, 401, 401]);
    const checked = await lookups();
    const refused = await login('198.51.100.30', 'guess-3');
    expect([refused.status, refused.body]).toEqual([429, { detail: 'Too many requests' }]);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await login('198.51.100.30', ADMIN.password)).status).toBe(429);
    expect((await basic('198.51.100.30', ADMIN.password)).status).toBe(429);
    expect((await http(s.baseUrl)('POST', '/login/api_key', { json: { api_key: 'not a key' }, headers: from('198.51.100.30') })).status).toBe(429);
    // None of the refused ones was checked.
    expect(await lookups()).toBe(checked);
    // A token from that address is not held back, nor is another address's sign-in.
    expect((await http(s.baseUrl)('GET', '/v2/projects', { headers: { ...from('198.51.100.30'), Authorization: `Bearer ${token}` } })).status).toBe(200);
    expect((await login('198.51.100.31', ADMIN.password)).status).toBe(200);
  });

  it.each([
    ['sign-ins', (i: number) => login('198.51.100.50', `guess-${i}`)],
    ['Basic pairs', (i: number) => basic('198.51.100.60', `guess-${i}`)],
  ])('checks no more than the budget of %s guessed all at once: each different one takes its share before it is checked', async (_what, guess) => {
    const checked = await lookups();
    const statuses = await Promise.all(Array.from({ length: 12 }, (_, i) => guess(i).then((r) => r.status)));
    expect(statuses.filter((status) => status === 401)).toHaveLength(3);
    expect(statuses.filter((status) => status === 429)).toHaveLength(9);
    expect((await lookups()) - checked).toBe(3);
  });

  it('takes pairs that differ only in where the email ends and the password begins for different guesses', async () => {
    // "x@example.com" and "\0\0g", "x@example.com\0" and "\0g", …: joined with a NUL between, the same bytes; each a guess of its own.
    const split = (i: number) => ({
      ...from('198.51.100.63'),
      Authorization: `Basic ${Buffer.from(`x@example.com${'\0'.repeat(i)}:${'\0'.repeat(11 - i)}g`).toString('base64')}`,
    });
    const statuses = await Promise.all(Array.from({ length: 12 }, (_, i) => http(s.baseUrl)('GET', '/v2/projects', { headers: split(i) }).then((r) => r.status)));
    expect(statuses.filter((status) => status === 401)).toHaveLength(3);
    expect(statuses.filter((status) => status === 429)).toHaveLength(9);
  });

  it('lets the same right Basic pair through however many requests carry it at once, on a budget of 3', async () => {
    // A user of its own, so that no check of this pair is remembered from an earlier test.
    const admin = { Authorization: `Bearer ${((await login('198.51.100.62', ADMIN.password)).body as { access_token: string }).access_token}` };
    const email = `parallel-${Date.now()}@example.com`;
    expect((await http(s.baseUrl)('POST', '/v2/users', { json: { email, password: 'a parallel password' }, headers: admin })).status).toBe(200);
    const pair = { ...from('198.51.100.61'), Authorization: `Basic ${Buffer.from(`${email}:a parallel password`).toString('base64')}` };
    const statuses = await Promise.all(Array.from({ length: 12 }, () => http(s.baseUrl)('GET', '/v2/projects', { headers: pair }).then((r) => r.status)));
    expect(statuses).toEqual(Array(12).fill(200));
    // Nothing was kept from the budget: three wrong guesses are still checked, the fourth is not.
    const after = await Promise.all([1, 2, 3].map((i) => basic('198.51.100.61', `guess-${i}`).then((r) => r.status)));
    expect(after).toEqual([401, 401, 401]);
    expect((await basic('198.51.100.61', 'guess-4')).status).toBe(429);
  });

  it('counts wrong Basic pairs and wrong keys at /login/api_key as failed sign-ins, and never a sign-in that succeeds', async () => {
    const statuses: number[] = [];
    statuses.push((await basic('198.51.100.40', 'guess-a')).status);
    statuses.push((await http(s.baseUrl)('POST', '/login/api_key', { json: { api_key: 'not a key' }, headers: from('198.51.100.40') })).status);
    statuses.push((await basic('198.51.100.40', 'guess-b')).status);
    statuses.push((await basic('198.51.100.40', ADMIN.password)).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    const right: number[] = [];
    for (let i = 0; i < 10; i++) right.push((await login('198.51.100.41', ADMIN.password)).status, (await basic('198.51.100.41', ADMIN.password)).status);
    expect(right).toEqual(Array(20).fill(200));
  });
});

describe('the scheme behind a trusted proxy (TRACELIGHT_TRUST_PROXY=1)', () => {
  it('marks the refresh cookie Secure by the X-Forwarded-Proto entry the proxy wrote, not one a client wrote to its left', async () => {
    const s = await startServer({ TRACELIGHT_TRUST_PROXY: '1' });
    try {
      const signIn = async (proto: string) => {
        const r = await http(s.baseUrl)('POST', '/login', { json: { username: ADMIN.email, password: ADMIN.password }, headers: { 'X-Forwarded-Proto': proto } });
        expect(r.status).toBe(200);
        return /;\s*secure/i.test(r.headers.get('set-cookie') ?? '');
      };
      // A proxy that appends what it saw to what the client sent; one that sets the header whole.
      expect(await signIn('http, https')).toBe(true);
      expect(await signIn('https, http')).toBe(false);
      expect(await signIn('https')).toBe(true);
      expect(await signIn('http')).toBe(false);
    } finally {
      await s.stop();
    }
  });
});

// MongoDB's adapter prepares nothing: its queries are documents built for each search.
describeSqliteOnly('prepared search statements (SQLite)', () => {
  it('are kept within a budget of SQL, not only a count: searches with long lists do not pile up', async () => {
    const w = await startWorld();
    try {
      const project = await w.project(w.admin);
      const run = await w.run(w.admin, project, 'log_streams');
      // 25 lists of about 1,000 values: ~76,000 characters of SQL, ~5 MB once prepared. Each search has
      // lists of other lengths, so each is a statement of its own shape.
      for (let i = 0; i < 12; i++) {
        const filters = Array.from({ length: 25 }, (_, f) => ({
          column_id: 'model',
          type: 'text',
          operator: 'one_of',
          value: Array.from({ length: 1_000 - i * 25 - f }, (_, v) => `m${v}`),
        }));
        const r = await w.call('POST', `/v2/projects/${project}/spans/search`, { auth: w.admin, json: { log_stream_id: run, filters } });
        expect([r.status, r.body.records]).toEqual([200, []]);
      }
      const statements = await held(w.server.baseUrl, 'search_statements');
      expect(statements.size).toBeLessThanOrEqual(512 * 1024);
      expect(statements.entries).toBeLessThan(12);
      // An ordinary search is still kept: the budget holds hundreds of them. Two statements: the search, and
      // its probe of the record index (a model of three characters or more has trigrams to look up).
      const plain = { log_stream_id: run, filters: [{ column_id: 'model', type: 'text', operator: 'eq', value: 'gpt-4o' }] };
      expect((await w.call('POST', `/v2/projects/${project}/spans/search`, { auth: w.admin, json: plain })).status).toBe(200);
      expect((await held(w.server.baseUrl, 'search_statements')).entries).toBe(statements.entries + 2);
    } finally {
      await w.server.stop();
    }
  });
});

// A body of many tiny records costs little to send and, decoded, much to hold (600,000 spans of 15
// bytes were 9 MB of JSON and 600 MB of objects before their 422): it is refused on a count taken
// before decoding. That the count comes first shows in which refusal a batch gets that is both too
// large and malformed: decoding would have found its bad first record.
describe.each([
  ['on the request thread', { TRACELIGHT_OFFLOAD_WORKERS: '0' }],
  ['in an offload worker', { TRACELIGHT_OFFLOAD_MIN_BYTES: '0' }],
])('a batch of more records than a request may carry, %s', (_how, env) => {
  let w: Awaited<ReturnType<typeof startWorld>>;
  let project: string;
  let run: string;
  let key: string;
  beforeAll(async () => {
    w = await startWorld({ TRACELIGHT_MAX_RECORDS_PER_REQUEST: '10', ...env });
    project = await w.project(w.admin, `tiny-records-${Date.now()}`);
    run = await w.run(w.admin, project, 'log_streams');
    key = await w.apiKey(w.admin);
  });
  afterAll(() => w.server.stop());

  it('is refused on its count before its records are decoded: an ingest', async () => {
    const spans = [{ type: 'not a span type' }, ...Array.from({ length: 10 }, () => ({ type: 'llm' }))];
    const r = await w.call('POST', `/v2/projects/${project}/traces`, { auth: w.admin, json: { log_stream_id: run, traces: [{ spans }] } });
    expect([r.status, r.body]).toEqual([
      422,
      { detail: [{ loc: ['body', 'traces'], msg: 'Value error, this request carries 12 traces and spans; send at most 10 per request (split the batch)', type: 'value_error' }] },
    ]);
  });

  it('is refused on its count before its spans are decoded, at the list that holds them: immediate mode', async () => {
    const spans = [{ type: 'not a span type' }, ...Array.from({ length: 10 }, () => ({ type: 'llm', spans: [] }))];
    const r = await w.call('POST', `/v2/projects/${project}/spans`, { auth: w.admin, json: { log_stream_id: run, trace_id: randomUUID(), parent_id: randomUUID(), spans } });
    expect([r.status, r.body]).toEqual([
      422,
      { detail: [{ loc: ['body', 'spans'], msg: 'Value error, this request carries 11 spans; send at most 10 per request (split the batch)', type: 'value_error' }] },
    ]);
  });

  it('is a body missing when it is JSON null, as FastAPI reads it: an ingest', async () => {
    const r = await w.call('POST', `/v2/projects/${project}/traces`, { auth: w.admin, raw: 'null', headers: { 'content-type': 'application/json' } });
    expect([r.status, r.body]).toEqual([422, { detail: [{ loc: ['body'], msg: 'Field required', type: 'missing', input: null }] }]);
  });

  it('is refused on its count before its spans are decoded: an OTLP/JSON export', async () => {
    const span = (i: number) => ({ traceId: i === 0 ? 'not an id' : '5b8efff798038103d269b633813fc60c', spanId: `eee19b7ec3c1b17${i % 10}`, name: 'n' });
    const r = await w.call('POST', '/v1/traces', {
      auth: { apiKey: key },
      json: { resourceSpans: [{ scopeSpans: [{ spans: Array.from({ length: 6 }, (_, i) => span(i)) }, { spans: Array.from({ length: 5 }, (_, i) => span(i + 6)) }] }] },
      headers: { project: project, logstream: 'tiny' },
    });
    expect([r.status, r.body]).toEqual([400, { code: 3, message: 'body: Value error, this export carries 11 spans; send at most 10 per request' }]);
  });

  it('is refused on its count before its spans are decoded: an OTLP protobuf export, counted on the wire', async () => {
    const varint = (n: number): number[] => (n < 128 ? [n] : [(n & 127) | 128, ...varint(n >>> 7)]);
    const field = (tag: number, bytes: Buffer) => Buffer.concat([Buffer.from([tag, ...varint(bytes.length)]), bytes]);
    // Span: trace_id (1) and span_id (2); the first with an all-zero trace id, which is no valid id.
    const span = (i: number) => field(0x12, Buffer.concat([field(0x0a, Buffer.alloc(16, i === 0 ? 0 : 7)), field(0x12, Buffer.alloc(8, i + 1))]));
    const body = field(0x0a, field(0x12, Buffer.concat(Array.from({ length: 11 }, (_, i) => span(i)))));
    const r = await fetch(`${w.server.baseUrl}/v1/traces`, {
      method: 'POST',
      headers: { 'Service-API-Key': key, 'content-type': 'application/x-protobuf', project, logstream: 'tiny' },
      body,
    });
    expect(r.status).toBe(400);
    // google.rpc.Status: code 3, then the message.
    const status = Buffer.from(await r.arrayBuffer());
    expect(status.subarray(0, 3)).toEqual(Buffer.from([0x08, 3, 0x12]));
    expect(status.subarray(4).toString('utf8')).toBe('body: Value error, this export carries 11 spans; send at most 10 per request');
  });
});

describe('scorers remembered once read', () => {
  it('are bounded by the size of their JSON, not only by count: 20 scorers of 1 MB each do not all stay', async () => {
    const w = await startWorld();
    try {
      // A scorer's defaults are free text a body may carry: here 1,000,000 characters of model name each.
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) {
        const created = await w.call('POST', '/v2/scorers', {
          auth: w.admin,
          json: { name: `large-${i}`, scorer_type: 'llm', defaults: { model_name: String(i).padEnd(1_000_000, 'm') } },
        });
        expect(created.status).toBe(200);
        ids.push(created.body.id);
      }
      for (const id of ids) expect((await w.call('GET', `/v2/scorers/${id}`, { auth: w.admin })).status).toBe(200);
      const scorers = await held(w.server.baseUrl, 'scorers');
      expect(scorers.size).toBeLessThanOrEqual(16 * 1024 * 1024);
      expect(scorers.entries).toBeLessThan(20);
      // Each is read again from the database, whole, when it is no longer remembered.
      const first = await w.call('GET', `/v2/scorers/${ids[0]}`, { auth: w.admin });
      expect(first.body.defaults.model_name).toBe('0'.padEnd(1_000_000, 'm'));
    } finally {
      await w.server.stop();
    }
  });
});

// MongoDB's adapter decodes each document it reads and remembers none of them.
describeSqliteOnly('JSON columns remembered decoded (SQLite)', () => {
  it('hold at most 2 M characters of text each: 200 scorers with 15,000-character defaults, all listed', async () => {
    const w = await startWorld();
    try {
      for (let i = 0; i < 200; i++) {
        const created = await w.call('POST', '/v2/scorers', {
          auth: w.admin,
          json: { name: `wide-${i}`, scorer_type: 'llm', defaults: { model_name: String(i).padEnd(15_000, 'm') } },
        });
        expect(created.status).toBe(200);
      }
      // One read of every scorer row: each scorer's defaults text is decoded, and remembered within the budget.
      const listed = await w.call('GET', '/v2/scorers', { auth: w.admin });
      expect([listed.status, listed.body.length]).toEqual([200, 200]);
      const defaults = await held(w.server.baseUrl, 'decoded_json.scorer_defaults');
      expect(defaults.size).toBeLessThanOrEqual(2 * 1024 * 1024);
      expect(defaults.entries).toBeLessThan(200);
    } finally {
      await w.server.stop();
    }
  });
});

describe('a body of many bad values', () => {
  let w: Awaited<ReturnType<typeof startWorld>>;
  let project: string;
  let run: string;
  beforeAll(async () => {
    w = await startWorld({ TRACELIGHT_OFFLOAD_WORKERS: '0' });
    project = await w.project(w.admin);
    run = await w.run(w.admin, project, 'log_streams');
  });
  afterAll(() => w.server.stop());

  it('is answered with its first 100 problems: a trace of a million bad tags (2 MB) is a 422 of 100 entries', async () => {
    // Before, decoding gathered a million errors and the 422 overflowed the stack: a 500.
    const body = `{"log_stream_id":"${run}","traces":[{"tags":[${Array(1_000_000).fill('1').join(',')}]}]}`;
    const r = await w.call('POST', `/v2/projects/${project}/traces`, { auth: w.admin, raw: body, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(422);
    expect(r.body.detail).toHaveLength(100);
    expect(r.body.detail[0]).toEqual({ loc: ['body', 'traces', 0, 'tags', 0], msg: 'Input should be a valid string', type: 'string_type', input: 1 });
    expect(r.body.detail[99].loc).toEqual(['body', 'traces', 0, 'tags', 99]);
  });

  it('echoes about 4 KiB of each problem\'s input at most: a 5 MB ingest body that names no run is not sent back whole', async () => {
    const traces = Array.from({ length: 1_000 }, (_, i) => ({ name: `trace-${i}`, input: 'q'.repeat(5_000) }));
    const r = await w.call('POST', `/v2/projects/${project}/traces`, { auth: w.admin, json: { traces } });
    expect(r.status).toBe(422);
    // Before, its one entry echoed the whole body: a 5 MB answer.
    expect(r.text.length).toBeLessThan(6_000);
    const [entry] = r.body.detail;
    expect(entry).toMatchObject({ loc: ['body'], type: 'value_error' });
    expect(entry.input.traces[0]).toMatchObject({ name: 'trace-0', input: expect.stringMatching(/^q{3000,4096}…$/) });
    expect(entry.input.traces.at(-1)).toBe('…');
  });

  it('as a batch within the record limit: 9,999 spans each with a bad type and two bad metrics give at most 100 entries, not 29,997', async () => {
    const spans = Array.from({ length: 9_999 }, () => ({ type: 'nope', metrics: { a: 'x', b: 'y' } }));
    const r = await w.call('POST', `/v2/projects/${project}/traces`, { auth: w.admin, json: { log_stream_id: run, traces: [{ spans }] } });
    expect(r.status).toBe(422);
    // The first problems found, span by span. A nullable member's other complaint ("not null either") is
    // among the errors gathered but not reported, so fewer than 100 may show.
    expect(r.body.detail.length).toBeLessThanOrEqual(100);
    expect(r.body.detail.length).toBeGreaterThanOrEqual(60);
    expect(r.body.detail.slice(0, 3).map((e: { loc: unknown }) => e.loc)).toEqual([
      ['body', 'traces', 0, 'spans', 0, 'type'],
      ['body', 'traces', 0, 'spans', 0, 'metrics', 'a'],
      ['body', 'traces', 0, 'spans', 0, 'metrics', 'b'],
    ]);
  });
});

describe('request bodies read at once (TRACELIGHT_BODY_BUDGET)', () => {
  /** Sends `head` and the first bytes of a body on a raw socket; `rest()` sends the remainder and resolves with the answer's status line. */
  const begin = (baseUrl: string, head: string, first: string) => {
    const socket = net.connect(Number(new URL(baseUrl).port), '127.0.0.1');
    let text = '';
    const answered = new Promise<string>((resolve) => {
      socket.on('data', (c: Buffer) => {
        text += c.toString('latin1');
        if (text.includes('\r\n')) resolve(text.split('\r\n')[0]!);
      });
      socket.on('close', () => resolve(text.split('\r\n')[0] ?? ''));
    });
    socket.on('error', () => undefined);
    socket.write(head + first);
    return { answered, rest: (more: string | Buffer) => (socket.write(more), answered), text: () => text, close: () => socket.destroy() };
  };

  it('are bounded together: a body that would go past the budget is answered 503 with Retry-After at once, unread; room comes back with the answers', async () => {
    // JSON parsed on the request thread counts 24 times its length (what its parsed form may take).
    const w = await startWorld({ TRACELIGHT_BODY_BUDGET: '1536kb' });
    try {
      const name = (n: number) => `{"name":"${'p'.repeat(n)}"}`;
      const head = (length: number) =>
        `POST /v2/projects HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${w.adminToken}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
      // A body of 40,000 bytes (960,000 counted), stated and begun, its rest held back: its room is taken while it arrives.
      const large = name(39_988);
      const first = begin(w.server.baseUrl, head(large.length), large.slice(0, 10));
      for (let i = 0; i < 100 && (await held(w.server.baseUrl, 'request_bodies')).entries === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(await held(w.server.baseUrl, 'request_bodies')).toEqual({ entries: 1, size: large.length * 24 });
      // Another as large would go past 1,536 KiB: refused at once, before a byte of its body is sent.
      const second = begin(w.server.baseUrl, head(large.length), '');
      expect(await second.answered).toBe('HTTP/1.1 503 Service Unavailable');
      expect(second.text()).toMatch(/\r\nretry-after: 1\r\n/i);
      second.close();
      // A small one still fits beside the first.
      const small = name(10);
      expect(await begin(w.server.baseUrl, head(small.length), small).answered).toBe('HTTP/1.1 200 OK');
      // The first, completed, is answered and gives its room back: a large one fits again.
      expect(await first.rest(large.slice(10))).toBe('HTTP/1.1 422 Unprocessable Entity'); // a name of 39,988 characters is too long
      for (let i = 0; i < 100 && (await held(w.server.baseUrl, 'request_bodies')).entries > 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(await held(w.server.baseUrl, 'request_bodies')).toEqual({ entries: 0, size: 0 });
      const again = begin(w.server.baseUrl, head(large.length), large);
      expect(await again.answered).toBe('HTTP/1.1 422 Unprocessable Entity');
      for (const s of [first, again]) s.close();
    } finally {
      await w.server.stop();
    }
  });

  it('count a body of unknown size (compressed, chunked) as it arrives: a few KB of gzip inflating past the budget is refused, a small chunked one is taken', async () => {
    const w = await startWorld({ TRACELIGHT_BODY_BUDGET: '1536kb' });
    try {
      const name = (n: number) => `{"name":"${'p'.repeat(n)}"}`;
      const head = (length: number | undefined, extra = '') =>
        `POST /v2/projects HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${w.adminToken}\r\nContent-Type: application/json\r\n${extra}` +
        `${length === undefined ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`}\r\n\r\n`;
      // 100,000 bytes of JSON (2,400,000 counted once read) in 127 bytes of gzip.
      const bomb = zlib.gzipSync(name(99_988));
      expect(bomb.length).toBeLessThan(200);
      const gzipped = () => {
        const s = begin(w.server.baseUrl, head(bomb.length, 'Content-Encoding: gzip\r\n'), '');
        return s.rest(bomb).then((status) => (s.close(), { status, text: s.text() }));
      };
      // A first body of 40,000 bytes (960,000 counted), begun and held back.
      const large = name(39_988);
      const first = begin(w.server.baseUrl, head(large.length), large.slice(0, 10));
      for (let i = 0; i < 100 && (await held(w.server.baseUrl, 'request_bodies')).entries === 0; i++) await new Promise((r) => setTimeout(r, 20));
      // Beside it, the gzipped body is refused once it has inflated past what is left, and gives its room back.
      const refused = await gzipped();
      expect(refused.status).toBe('HTTP/1.1 503 Service Unavailable');
      expect(refused.text).toMatch(/\r\nretry-after: 1\r\n/i);
      expect(await held(w.server.baseUrl, 'request_bodies')).toEqual({ entries: 1, size: large.length * 24 });
      // So is a chunked one once it has, its connection closed: the rest of it, never ending, is not read as the next request.
      const big = name(99_988);
      const endless = begin(w.server.baseUrl, head(undefined), `${big.length.toString(16)}\r\n${big}\r\n`);
      expect(await endless.answered).toBe('HTTP/1.1 503 Service Unavailable');
      for (let i = 0; i < 100 && !endless.text().includes('\r\n\r\n'); i++) await new Promise((r) => setTimeout(r, 20));
      expect(endless.text()).toMatch(/\r\nconnection: close\r\n/i);
      endless.close();
      // A small chunked body is counted as what it is, not as the most a body may be (10 MB × 24).
      const small = name(6);
      const chunked = begin(w.server.baseUrl, head(undefined), `${small.length.toString(16)}\r\n${small}\r\n0\r\n\r\n`);
      expect(await chunked.answered).toBe('HTTP/1.1 200 OK');
      chunked.close();
      // The first answered, the gzipped body alone is read and parsed (a name of 99,988 characters is too long).
      expect(await first.rest(large.slice(10))).toBe('HTTP/1.1 422 Unprocessable Entity');
      first.close();
      for (let i = 0; i < 100 && (await held(w.server.baseUrl, 'request_bodies')).entries > 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect((await gzipped()).status).toBe('HTTP/1.1 422 Unprocessable Entity');
      for (let i = 0; i < 100 && (await held(w.server.baseUrl, 'request_bodies')).entries > 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(await held(w.server.baseUrl, 'request_bodies')).toEqual({ entries: 0, size: 0 });
    } finally {
      await w.server.stop();
    }
  });

  it('count a body an offload worker will parse as its bytes, one parsed here as what its parsed form may take', async () => {
    const w = await startWorld({ TRACELIGHT_OFFLOAD_MIN_BYTES: '1024' });
    try {
      const project = w.ok(await w.call('POST', '/v2/projects', { auth: w.admin, json: { name: 'weighed' } })).id as string;
      const stream = w.ok(await w.call('POST', `/v2/projects/${project}/log_streams`, { auth: w.admin, json: { name: 's' } })).id as string;
      const body = JSON.stringify({ log_stream_id: stream, traces: [{ name: 't', input: 'x'.repeat(40_000), output: 'y', spans: [] }] });
      const head = (length: number) =>
        `POST /v2/projects/${project}/traces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${w.adminToken}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
      for (const [sent, weight] of [[body, 1], [body.slice(0, 1000).replace(/x+$/, 'x"}]}'), 24]] as const) {
        const request = begin(w.server.baseUrl, head(sent.length), sent.slice(0, 10));
        for (let i = 0; i < 100 && (await held(w.server.baseUrl, 'request_bodies')).entries === 0; i++) await new Promise((r) => setTimeout(r, 20));
        expect([sent.length, await held(w.server.baseUrl, 'request_bodies')]).toEqual([sent.length, { entries: 1, size: sent.length * weight }]);
        expect(await request.rest(sent.slice(10))).toBe('HTTP/1.1 200 OK');
        for (let i = 0; i < 100 && (await held(w.server.baseUrl, 'request_bodies')).entries > 0; i++) await new Promise((r) => setTimeout(r, 20));
        request.close();
      }
    } finally {
      await w.server.stop();
    }
  });
});
