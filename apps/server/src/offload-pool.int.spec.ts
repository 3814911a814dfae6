// The offload pool with real worker threads, scripted (test/support/scripted-offload-worker.cjs) so
// that a worker can die and then fail to start again, as on a full disk.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { OffloadedRequest } from '@tracelight/http-koa';
import type { ServerConfig } from './config';
import { countDroppedLogLines } from './logger';
import { OffloadPool } from './offload-pool';

const SCRIPT = path.resolve(__dirname, '../../../test/support/scripted-offload-worker.cjs');
const request = (route: string, bytes = 3): OffloadedRequest => ({ route, params: {}, query: {}, body: new Uint8Array(bytes), bodyType: 'json', principal: undefined, headers: {} });
/**
 * `route`'s answer once the pool serves again (its worker restarted, after growing waits): asked every
 * 100 ms, for up to a minute, a generous bound since the machine may be loaded; the last answer otherwise.
 */
const servedAgain = async (pool: OffloadPool, route: string) => {
  let reply = await pool.run(request(route));
  for (let waited = 0; reply.status !== 200 && waited < 60_000; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    reply = await pool.run(request(route));
  }
  return reply;
};

describe('offload pool', () => {
  const failStartWhile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-pool-')), 'fail-start');
  const pool = new OffloadPool({ failStartWhile } as unknown as ServerConfig, { minBytes: 0, workers: 1, maxQueueBytes: 1 << 20 }, SCRIPT);
  beforeAll(() => pool.start());
  afterAll(() => pool.close());

  it('answers a prompt 503 with Retry-After while its worker cannot be started again, and serves again once it can', async () => {
    expect(await pool.run(request('POST /a'))).toEqual({ status: 200, body: { route: 'POST /a', bytes: 3 } });
    fs.writeFileSync(failStartWhile, '');
    // The request the worker died holding: its outcome is unknown.
    expect((await pool.run(request('DIE'))).status).toBe(503);
    // Restarts keep failing: each request is answered at once, not posted to a dead worker.
    for (let i = 0; i < 5; i++) {
      const reply = await pool.run(request('POST /b'));
      expect([reply.status, reply.headers]).toEqual([503, { 'Retry-After': '1' }]);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    fs.rmSync(failStartWhile);
    expect(await servedAgain(pool, 'POST /c')).toEqual({ status: 200, body: { route: 'POST /c', bytes: 3 } });
  });

  it('counts the log lines a worker dropped with those of the request thread', async () => {
    const counted: Array<[string, number]> = [];
    countDroppedLogLines((stream, lines) => counted.push([stream, lines]));
    counted.length = 0;
    expect((await pool.run(request('DROP'))).status).toBe(200);
    expect(counted).toEqual([['stdout', 3]]);
    // And in the totals a counter set up later starts from.
    const totals: Array<[string, number]> = [];
    countDroppedLogLines((stream, lines) => totals.push([stream, lines]));
    expect(totals).toEqual([
      ['stdout', 3],
      ['stderr', 0],
    ]);
  });
});

describe('offload pool, bounded by the bytes of the bodies its workers hold', () => {
  // 1,000 bytes of bodies at most, all workers together (here one).
  const pool = new OffloadPool({} as unknown as ServerConfig, { minBytes: 0, workers: 1, maxQueueBytes: 1_000 }, SCRIPT);
  beforeAll(() => pool.start());
  afterAll(() => pool.close());

  it('answers 503 with Retry-After at once past its bytes, holds nothing of that body, and takes requests again as it empties', async () => {
    // Held unanswered by the workers: 900 bytes in hand.
    const first = pool.run(request('HOLD', 600));
    const second = pool.run(request('HOLD', 300));
    expect(pool.held()).toEqual({ entries: 2, size: 900 });
    // 1,100 would be past the bound: refused at once, not queued.
    expect(await pool.run(request('POST /c', 200))).toEqual({
      status: 503,
      body: { detail: 'The offload workers have as many large requests waiting as they may hold. Retry shortly.' },
      headers: { 'Retry-After': '1' },
    });
    expect(pool.held()).toEqual({ entries: 2, size: 900 });
    // Still room for 100.
    expect(await pool.run(request('RELEASE', 100))).toEqual({ status: 200, body: { route: 'RELEASE', bytes: 100 } });
    expect((await Promise.all([first, second])).map((r) => r.status)).toEqual([200, 200]);
    expect(pool.held()).toEqual({ entries: 0, size: 0 });
    // Empty, it takes a body larger than its whole bound: one request is always taken.
    expect((await pool.run(request('POST /d', 5_000))).status).toBe(200);
  });
});

describe('offload pool, used before its workers are up', () => {
  it('holds a request that comes while its worker starts, and answers it once the worker is ready', async () => {
    const pool = new OffloadPool({} as unknown as ServerConfig, { minBytes: 0, workers: 1, maxQueueBytes: 1 << 20 }, SCRIPT);
    const started = pool.start();
    try {
      // Sent in the turn that started the worker, which cannot be ready before a later one.
      expect(await pool.run(request('POST /early'))).toEqual({ status: 200, body: { route: 'POST /early', bytes: 3 } });
      await started;
    } finally {
      await pool.close();
    }
  });

  it('reports a first start that fails, answers 503 meanwhile, and serves once a later attempt starts the worker', async () => {
    const failStartWhile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-pool-')), 'fail-start');
    fs.writeFileSync(failStartWhile, '');
    const pool = new OffloadPool({ failStartWhile } as unknown as ServerConfig, { minBytes: 0, workers: 1, maxQueueBytes: 1 << 20 }, SCRIPT);
    try {
      await expect(pool.start()).rejects.toThrow('offload worker: no room to open the storage');
      const refused = await pool.run(request('POST /a'));
      expect([refused.status, refused.headers]).toEqual([503, { 'Retry-After': '1' }]);
      fs.rmSync(failStartWhile);
      expect(await servedAgain(pool, 'POST /b')).toEqual({ status: 200, body: { route: 'POST /b', bytes: 3 } });
    } finally {
      await pool.close();
    }
  });

  it('closes while its worker is still starting, stopping it once up', async () => {
    const pool = new OffloadPool({} as unknown as ServerConfig, { minBytes: 0, workers: 2, maxQueueBytes: 1 << 20 }, SCRIPT);
    const started = pool.start();
    await pool.close();
    await started;
    expect(await pool.run(request('POST /late'))).toEqual({ status: 503, body: { detail: 'The server is shutting down' } });
  });
});
