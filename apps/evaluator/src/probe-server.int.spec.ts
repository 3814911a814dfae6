// The evaluator's probe server over real HTTP on 127.0.0.1: its two routes, what it refuses, and its close.
import { Counter, Registry } from 'prom-client';
import { type ProbeServer, startProbeServer } from './probe-server';

describe('the probe server', () => {
  let server: ProbeServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const start = async (sources: Parameters<typeof startProbeServer>[2], failed: (e: unknown) => void = () => undefined) => {
    server = await startProbeServer('127.0.0.1', 0, sources, failed);
    return `http://127.0.0.1:${server.port}`;
  };

  it('answers /metrics with the registry\'s text as scraped, and /healthcheck by whether it scores', async () => {
    const registry = new Registry();
    const jobs = new Counter({ name: 'jobs_total', help: 'jobs', registers: [registry] });
    let scoring = true;
    const base = await start({ metrics: async () => ({ contentType: registry.contentType, text: await registry.metrics() }), scoring: () => scoring });
    jobs.inc(2);
    const metrics = await fetch(`${base}/metrics`);
    expect([metrics.status, metrics.headers.get('content-type'), await metrics.text()]).toEqual([200, registry.contentType, '# HELP jobs_total jobs\n# TYPE jobs_total counter\njobs_total 2\n']);
    const up = await fetch(`${base}/healthcheck`);
    expect([up.status, await up.json()]).toEqual([200, { status: 'scoring' }]);
    scoring = false;
    const down = await fetch(`${base}/healthcheck`);
    expect([down.status, await down.json()]).toEqual([503, { status: 'stopping' }]);
  });

  it('answers 404 for any other path and 405 for another method', async () => {
    const base = await start({ metrics: async () => ({ contentType: 'text/plain', text: '' }), scoring: () => true });
    for (const path of ['/', '/health', '/metrics.txt', '/v2/projects', '//metrics']) {
      const r = await fetch(`${base}${path}`);
      expect([path, r.status, await r.json()]).toEqual([path, 404, { detail: 'Not Found' }]);
    }
    const r = await fetch(`${base}/healthcheck`, { method: 'DELETE' });
    expect([r.status, r.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
  });

  it('answers 500 and reports it when the metrics cannot be read, and goes on answering', async () => {
    const failures: unknown[] = [];
    const base = await start({ metrics: () => Promise.reject(new Error('collect broke')), scoring: () => true }, (e) => failures.push(e));
    const r = await fetch(`${base}/metrics`);
    expect([r.status, await r.json()]).toEqual([500, { detail: 'the metrics could not be read' }]);
    expect(failures.map((e) => (e as Error).message)).toEqual(['collect broke']);
    expect((await fetch(`${base}/healthcheck`)).status).toBe(200);
  });

  it('refuses to start on a port in use', async () => {
    const base = await start({ metrics: async () => ({ contentType: 'text/plain', text: '' }), scoring: () => true });
    const port = Number(new URL(base).port);
    await expect(startProbeServer('127.0.0.1', port, { metrics: async () => ({ contentType: 'text/plain', text: '' }), scoring: () => true }, () => undefined)).rejects.toThrow(/EADDRINUSE/);
  });

  it('closes with a scraper\'s connection kept alive, and then refuses connections', async () => {
    const base = await start({ metrics: async () => ({ contentType: 'text/plain', text: 'x' }), scoring: () => true });
    // fetch keeps its connection alive: close must not wait for it.
    expect((await fetch(`${base}/metrics`)).status).toBe(200);
    await server!.close();
    server = undefined;
    await expect(fetch(`${base}/healthcheck`)).rejects.toThrow();
  });
});
