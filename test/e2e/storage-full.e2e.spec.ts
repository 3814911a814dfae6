// Storage full on SQLite: TRACELIGHT_SQLITE_MAX_BYTES fills the database portably (SQLITE_FULL, as a full
// disk gives). Writes that do not fit are refused 507 and logged; reads, probes and every write already
// acknowledged stay; with room again (here a larger quota) the refused write is taken. SQLite only: a
// MongoDB server's disk cannot be filled from here (the adapter's answer to its OutOfDiskSpace is a unit
// test's). And on any engine, a start whose new secret key finds no room says so.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { startServer } from '../support/server';
import { describeSqliteOnly } from '../support/storage';
import { startWorld, type World } from '../support/world';

// better-sqlite3 belongs to the SQLite adapter; a test reads the server's file through it (read-only).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Database = require(path.resolve(__dirname, '../../adapters/sqlite/node_modules/better-sqlite3')) as typeof import('better-sqlite3');

const FULL = { detail: 'Insufficient storage: this write was not stored. Try it again once space has been freed.' };
const trace = (bytes: number) => ({ id: randomUUID(), name: 't', input: 'x'.repeat(bytes), output: 'o', spans: [] });

describeSqliteOnly('storage full (SQLite past TRACELIGHT_SQLITE_MAX_BYTES)', () => {
  let w: World;
  let projectId: string;
  let runId: string;
  const acknowledged: string[] = [];
  const refusedTrace = trace(1_200_000); // ≥ 1 MiB: an offload worker parses and stores it
  afterAll(() => w.server.stop());

  const ingest = (traces: unknown[]) => w.call('POST', `/v2/projects/${projectId}/traces`, { auth: w.admin, json: { log_stream_id: runId, traces } });
  const stored = async () => {
    const page = await w.call('POST', `/v2/projects/${projectId}/traces/search`, { auth: w.admin, json: { log_stream_id: runId, limit: 1000 } });
    expect(page.status).toBe(200);
    return (page.body.records as Array<{ id: string }>).map((r) => r.id);
  };

  it('refuses the writes that do not fit with 507, on every path, and logs one line for each', async () => {
    w = await startWorld({ TRACELIGHT_SQLITE_MAX_BYTES: '384kb' });
    projectId = await w.project(w.admin, 'full-project');
    runId = await w.run(w.admin, projectId, 'log_streams', 'full-run');

    // Filled with 16 KiB traces, then 1 KiB ones, until even those are refused (a repeated character
    // from 8 KiB is stored deflated, in a few hundred bytes: it takes more than 200 of each).
    let refused;
    for (const size of [16_384, 1024]) {
      refused = undefined;
      for (let i = 0; i < 2000 && !refused; i++) {
        const t = trace(size);
        const reply = await ingest([t]);
        if (reply.status === 200) acknowledged.push(t.id);
        else refused = reply;
      }
    }
    expect(acknowledged.length).toBeGreaterThan(0);
    expect([refused?.status, refused?.body]).toEqual([507, FULL]);
    expect([(await ingest([refusedTrace])).status, (await ingest([refusedTrace])).body]).toEqual([507, FULL]);
    const span = { traceId: randomUUID().replace(/-/g, ''), spanId: '0123456789abcdef', name: 'n', startTimeUnixNano: '1700000000000000000', endTimeUnixNano: '1700000001000000000', attributes: [{ key: 'input.value', value: { stringValue: 'x'.repeat(100_000) } }] };
    const otlp = await w.call('POST', '/v1/traces', { auth: w.admin, headers: { project: 'full-project', logstream: 'full-run' }, json: { resourceSpans: [{ scopeSpans: [{ spans: [span] }] }] } });
    // OTLP's own form: RESOURCE_EXHAUSTED, a status exporters do not retry (unlike 503).
    expect([otlp.status, otlp.body]).toEqual([507, { code: 8, message: FULL.detail }]);
    const scorer = await w.call('POST', '/v2/scorers', { auth: w.admin, json: { name: 'roomy', scorer_type: 'llm', description: 'd'.repeat(10_000) } });
    expect([scorer.status, scorer.body]).toEqual([507, FULL]);
    // Small single writes are stored while a page has room for them, else refused alike; never another 5xx.
    const gatewayToken = `gw-${randomUUID()}`;
    for (const [method, path, json] of [
      ['PATCH', `/v2/projects/${projectId}/runs/${runId}/insights-settings`, { insights: { logstream: { enabled: true } } }],
      ['PUT', '/v2/integrations/gateway', { token: gatewayToken, endpoint: 'https://gw.example.com', use_case: 'FULL' }],
      ['POST', '/v2/projects', { name: 'one more' }],
      ['POST', `/v2/projects/${projectId}/log_streams`, { name: 'one more' }],
      ['POST', '/v2/users/api_keys', { description: 'one more' }],
    ] as const) {
      const reply = await w.call(method, path, { auth: w.admin, json });
      expect([path, reply.status, reply.status === 507 ? reply.body : FULL]).toEqual([path, reply.status === 507 ? 507 : 200, FULL]);
    }

    // Reads go on, sign-in too (and an API key's first use: its own test, below).
    expect(await stored()).toEqual(expect.arrayContaining(acknowledged));
    expect((await w.call('GET', '/healthcheck')).status).toBe(200);
    expect(await w.call('GET', '/readyz')).toMatchObject({ status: 200, body: { status: 'ready' } });
    expect((await w.call('POST', '/login', { form: { username: 'admin@example.com', password: 'correct horse battery staple' } })).status).toBe(200);

    await w.logged(refused!);
    const line = JSON.parse(w.server.output.find((l) => l.includes(refused!.headers.get('x-request-id')!))!);
    expect(line).toMatchObject({ level: 'error', message: 'request', status: 507, error: 'storage full: SQLITE_FULL: database or disk is full' });
    expect(w.server.output.filter((l) => /"status":5\d\d/.test(l) && !l.includes('"status":507'))).toEqual([]);
    expect(w.server.output.join('\n')).not.toContain(gatewayToken);
  });

  /** An OTLP export of one span with an input of `bytes` (≥ 1 MiB: an offload worker decodes and stores it). */
  const otlpExport = (bytes: number) => ({
    resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: randomUUID().replace(/-/g, ''), spanId: 'fedcba9876543210', name: 'to a new stream', startTimeUnixNano: '1700000000000000000', endTimeUnixNano: '1700000001000000000', attributes: [{ key: 'input.value', value: { stringValue: 'y'.repeat(bytes) } }] }] }] }],
  });
  const exportTo = (logstream: string, bytes = 100_000) => w.call('POST', '/v1/traces', { auth: w.admin, headers: { project: 'full-project', logstream }, json: otlpExport(bytes) });
  const streamsNamed = async (name: string) => w.ok(await w.call('GET', `/v2/projects/${projectId}/log_streams?name=${name}`, { auth: w.admin })) as Array<{ id: string }>;

  it('creates no log stream for an OTLP export to a new one that it refuses: the log stream is stored with the records or not at all', async () => {
    const offloaded = async () => Number(/^tracelight_http_offloaded_requests_total\{route="\/v1\/traces"\} (\d+)/m.exec((await w.call('GET', '/metrics')).text)?.[1] ?? 0);
    const offloadedBefore = await offloaded();
    for (const [name, bytes] of [['new-stream-0', 100_000], ['new-stream-1', 100_000], ['new-stream-0', 100_000], ['new-stream-offloaded', 1_200_000]] as const) {
      const refused = await exportTo(name, bytes);
      expect([name, refused.status, refused.body]).toEqual([name, 507, { code: 8, message: FULL.detail }]);
      expect([name, await streamsNamed(name)]).toEqual([name, []]);
    }
    // The last one on an offload worker's own connection (its own transactions), the others on the writer thread.
    expect(await offloaded()).toBe(offloadedBefore + 1);
  });

  it('takes the refused write once there is room (a larger quota), with every acknowledged write intact', async () => {
    expect(await w.server.stop()).toBe(0);
    w = await startWorld({ ...w.server.storageEnv, TRACELIGHT_SQLITE_MAX_BYTES: '64mb' });
    expect((await ingest([refusedTrace])).status).toBe(200);
    expect((await stored()).sort()).toEqual([...acknowledged, refusedTrace.id].sort());
    // The refused OTLP export too, which now creates its log stream, with its span in it.
    expect((await exportTo('new-stream-0')).status).toBe(200);
    const [stream] = await streamsNamed('new-stream-0');
    const spans = w.ok(await w.call('POST', `/v2/projects/${projectId}/spans/search`, { auth: w.admin, json: { log_stream_id: stream!.id } })).records;
    expect(spans.map((sp: { name: string }) => sp.name)).toEqual(['to a new stream']);
  });

  it('does not start when even the schema does not fit, and says so in words', async () => {
    const refusal = await startServer({ TRACELIGHT_SQLITE_MAX_BYTES: '64kb' }).then(
      (s) => s.stop().then(() => 'started'),
      (e: Error) => e.message,
    );
    expect(refusal).toMatch(
      /\nTracelight failed to start: no room to apply migration 1 \(.*\): SQLITE_FULL \(database or disk is full\)\. Nothing of it was applied: free space on its disk \(or raise TRACELIGHT_SQLITE_MAX_BYTES\) and start again$/,
    );
  });
});

describe('a start with no room for a new secret key', () => {
  it('does not start when the new secret key cannot be written, says so in words, and leaves nothing behind', async () => {
    // No mount in CI: a file-size limit of 0 makes every write fail (EFBIG), as a full disk does (ENOSPC).
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-nokey-'));
    const main = path.resolve(__dirname, '../../apps/server/dist/main.js');
    const failed = await promisify(execFile)('sh', ['-c', `trap '' XFSZ; ulimit -f 0; exec "${process.execPath}" "${main}"`], {
      env: { PATH: process.env['PATH'] ?? '', TRACELIGHT_DATA_DIR: dataDir, TRACELIGHT_PORT: '0' },
    }).then(
      () => undefined,
      (e: { code: number; stderr: string }) => e,
    );
    expect([failed?.code, failed?.stderr]).toEqual([
      1,
      `Tracelight failed to start: cannot write a new secret key to ${path.join(dataDir, 'secret.key')} (EFBIG): nothing was kept. Free space on its disk or let this process write there (or set TRACELIGHT_SECRET_KEY), and start again\n`,
    ]);
    expect(fs.readdirSync(dataDir)).toEqual([]);
  });
});

describeSqliteOnly('an API key first used once storage is full (SQLite past TRACELIGHT_SQLITE_MAX_BYTES)', () => {
  let w: World;
  let reader: import('better-sqlite3').Database | undefined;
  afterAll(async () => {
    reader?.close();
    await w?.server.stop();
  });

  it('authenticates its reads though its last use finds no room to be recorded; that is recorded once there is room', async () => {
    w = await startWorld({ TRACELIGHT_SQLITE_MAX_BYTES: '384kb' });
    reader = new Database(path.join(w.server.dataDir, 'tracelight.db'), { readonly: true, fileMustExist: true });
    const projectId = await w.project(w.admin);
    const runId = await w.run(w.admin, projectId, 'log_streams');
    const createKey = async (description: string) => w.ok(await w.call('POST', '/v2/users/api_keys', { auth: w.admin, json: { description } })) as { id: string; api_key: string };
    /** Bytes free on the one page that holds every API key (the table's root, while the keys fit on one page). */
    const freeOnKeysPage = (): number => {
      const pages = reader!.prepare("SELECT unused FROM dbstat WHERE name = 'api_keys'").all() as Array<{ unused: number }>;
      expect(pages).toHaveLength(1);
      return pages[0]!.unused;
    };
    const later = await createKey('first used once storage is full');
    // Its first use makes its row 6 bytes longer (last_used_at: NULL, then a 6-byte integer). Other keys fill
    // its page to within fewer bytes than that, so the update needs new pages, which a full database lacks:
    // otherwise it is rewritten in place and fits under any quota.
    const before = freeOnKeysPage();
    await createKey('x'.repeat(64));
    const perKey = before - freeOnKeysPage() - 64; // what a key takes on the page besides its description
    for (let free = freeOnKeysPage(); free >= 6; free = freeOnKeysPage()) {
      const fits = free - perKey;
      // Descriptions are at most 1,024 characters: a longer gap is filled in steps, each leaving room for another key.
      await createKey('x'.repeat(fits <= 1024 ? fits : Math.min(1024, fits - perKey - 64)));
    }

    // The rest of the database filled, until even 1 KiB traces are refused.
    const ingest = (bytes: number) => w.call('POST', `/v2/projects/${projectId}/traces`, { auth: w.admin, json: { log_stream_id: runId, traces: [trace(bytes)] } });
    for (const size of [16_384, 1024]) for (let i = 0; i < 2000 && (await ingest(size)).status === 200; i++);
    expect([(await ingest(1024)).body]).toEqual([FULL]);

    // The key, never used, authenticates a read.
    const read = await w.call('GET', `/v2/projects/${projectId}`, { auth: { apiKey: later.api_key } });
    expect([read.status, read.body.id]).toEqual([200, projectId]);
    // Its last use was indeed refused for want of room: not recorded.
    const lastUsed = async () => (w.ok(await w.call('GET', '/v2/users/api_keys', { auth: w.admin })) as Array<{ id: string; last_used: string | null }>).find((k) => k.id === later.id)?.last_used;
    expect(await lastUsed()).toBeNull();

    // With room again (a larger quota), its next use is recorded.
    reader.close();
    reader = undefined;
    expect(await w.server.stop()).toBe(0);
    w = await startWorld({ ...w.server.storageEnv, TRACELIGHT_SQLITE_MAX_BYTES: '64mb' });
    expect((await w.call('GET', `/v2/projects/${projectId}`, { auth: { apiKey: later.api_key } })).status).toBe(200);
    expect(await lastUsed()).toEqual(expect.any(String));
  });
});

describeSqliteOnly('scorer versions refused for want of room (SQLite past TRACELIGHT_SQLITE_MAX_BYTES)', () => {
  let w: World;
  afterAll(() => w.server.stop());

  it('take no number: the versions stored beside them are numbered 1, 2, 3… without a gap', async () => {
    // A version body of 2 MB, past the default TRACELIGHT_API_BODY_LIMIT: the limit is raised so that the room refuses it.
    w = await startWorld({ TRACELIGHT_SQLITE_MAX_BYTES: '1mb', TRACELIGHT_API_BODY_LIMIT: '4mb' });
    const scorer = w.ok(await w.call('POST', '/v2/scorers', { auth: w.admin, json: { name: 'judge', scorer_type: 'llm' } }));
    const version = (instructions: string) => w.call('POST', `/v2/scorers/${scorer.id}/version/llm`, { auth: w.admin, json: { instructions } });
    const made: number[] = [];
    for (let round = 0; round < 3; round++) {
      // A version too large for the room left, sent with small ones that fit, all at once.
      const [large, ...small] = await Promise.all([version('x'.repeat(2_000_000)), ...Array.from({ length: 5 }, () => version('Rate it'))]);
      expect([large!.status, large!.body]).toEqual([507, FULL]);
      expect(small.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      made.push(...small.map((r) => r.body.version as number));
    }
    expect(made.sort((a, b) => a - b)).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
    const listed = w.ok(await w.call('GET', `/v2/scorers/${scorer.id}/versions?limit=100`, { auth: w.admin }));
    expect(listed.versions.map((v: { version: number }) => v.version)).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
  });
});
