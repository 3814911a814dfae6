// Storage full on SQLite: TRACELIGHT_SQLITE_MAX_BYTES fills the database portably (SQLITE_FULL, as a full
// disk gives). Writes that do not fit are refused 507 and logged; reads, probes and every write already
// acknowledged stay; with room again (here a larger quota) the refused write is taken.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { startServer } from '../support/server';
import { startWorld, type World } from '../support/world';

const FULL = { detail: 'Insufficient storage: this write was not stored. Try it again once space has been freed.' };
const trace = (bytes: number) => ({ id: randomUUID(), name: 't', input: 'x'.repeat(bytes), output: 'o', spans: [] });

describe('storage full (SQLite past TRACELIGHT_SQLITE_MAX_BYTES)', () => {
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
    const laterKey = await w.apiKey(w.admin); // first used once storage is full

    // Filled with 16 KiB traces, then 1 KiB ones, until even those are refused.
    let refused;
    for (const size of [16_384, 1024]) {
      refused = undefined;
      for (let i = 0; i < 200 && !refused; i++) {
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

    // Reads go on, sign-in too, and an API key used for the first time now works.
    expect(await stored()).toEqual(expect.arrayContaining(acknowledged));
    expect((await w.call('GET', '/healthcheck')).status).toBe(200);
    expect(await w.call('GET', '/readyz')).toMatchObject({ status: 200, body: { status: 'ready' } });
    expect((await w.call('GET', `/v2/projects/${projectId}`, { auth: { apiKey: laterKey } })).status).toBe(200);
    expect((await w.call('POST', '/login', { form: { username: 'admin@example.com', password: 'correct horse battery staple' } })).status).toBe(200);

    await w.logged(refused!);
    const line = JSON.parse(w.server.output.find((l) => l.includes(refused!.headers.get('x-request-id')!))!);
    expect(line).toMatchObject({ level: 'error', message: 'request', status: 507, error: 'storage full: SQLITE_FULL: database or disk is full' });
    expect(w.server.output.filter((l) => /"status":5\d\d/.test(l) && !l.includes('"status":507'))).toEqual([]);
    expect(w.server.output.join('\n')).not.toContain(gatewayToken);
  });

  it('takes the refused write once there is room (a larger quota), with every acknowledged write intact', async () => {
    expect(await w.server.stop()).toBe(0);
    w = await startWorld({ ...w.server.storageEnv, TRACELIGHT_SQLITE_MAX_BYTES: '64mb' });
    expect((await ingest([refusedTrace])).status).toBe(200);
    expect((await stored()).sort()).toEqual([...acknowledged, refusedTrace.id].sort());
  });

  it('does not start when even the schema does not fit, and says so in words', async () => {
    const refusal = await startServer({ TRACELIGHT_SQLITE_MAX_BYTES: '64kb' }).then(
      () => 'started',
      (e: Error) => e.message,
    );
    expect(refusal).toMatch(
      /\nTracelight failed to start: no room to apply migration 1 \(.*\): SQLITE_FULL \(database or disk is full\)\. Nothing of it was applied: free space on its disk \(or raise TRACELIGHT_SQLITE_MAX_BYTES\) and start again$/,
    );
  });

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
