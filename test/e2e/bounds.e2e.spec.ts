// What a large or hostile population of clients leaves behind in the server: every in-process structure
// that grows with clients, credentials or data stays within its bound, seen through the entries and
// sizes /metrics reports (tracelight_held_entries, tracelight_held_size), never through timings.
import { http } from '../support/http';
import { startServer } from '../support/server';

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
