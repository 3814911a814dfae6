// The V8 settings the server starts with: allocation-site pretenuring is off unless TRACELIGHT_V8_PRETENURING
// says otherwise (why: that variable's row in the configuration table). V8 reports each young collection's
// pretenuring feedback under --trace-pretenuring-statistics, and only when the feature is on, so the
// server's own output says which way it ran.
import { startServer } from '../support/server';

/** The lines V8 wrote about pretenuring while the server answered `requests` requests, with young collections kept frequent. */
const pretenuringReports = async (env: Record<string, string>, requests: number): Promise<string[]> => {
  const server = await startServer(env, undefined, { nodeFlags: ['--trace-pretenuring-statistics', '--max-semi-space-size=1'] });
  try {
    // Four at a time: some requests are in flight at each young collection, as under any load.
    for (let i = 0; i < requests; i += 4)
      await Promise.all([0, 1, 2, 3].map(async () => expect((await fetch(`${server.baseUrl}/healthcheck`)).status).toBe(200)));
  } finally {
    expect(await server.stop()).toBe(0);
  }
  // V8 writes through C's buffered stdout: everything is there once the process has exited.
  return server.output.filter((line) => line.includes('pretenuring:'));
};

describe('V8 settings', () => {
  it('runs without allocation-site pretenuring by default, and with it when TRACELIGHT_V8_PRETENURING=true', async () => {
    expect(await pretenuringReports({}, 2000)).toEqual([]);
    expect((await pretenuringReports({ TRACELIGHT_V8_PRETENURING: 'true' }, 2000)).length).toBeGreaterThan(0);
  });
});
