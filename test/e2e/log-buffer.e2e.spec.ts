// When nothing reads the server's log (a log shipper that hangs, a full pipe): the server goes on answering,
// holds at most TRACELIGHT_LOG_BUFFER of lines, drops and counts the rest, says so in the log once it is read
// again, and still stops when told to.
import { http } from '../support/http';
import { type RunningServer, startServer } from '../support/server';

// Each request's line carries its path, so a line is ~12 KB (a request line may take up to 16 KiB).
const PATH = `/not-here/${'x'.repeat(12_000)}`;
// ~54 MB of log text: far past what the pipe takes (some hundreds of KB) and the 64 KiB bound together.
const REQUESTS = 4_500;

let server: RunningServer;
beforeAll(async () => {
  // No SQLite writer thread and no offload worker: no worker thread starts, which would make a piped stdout
  // non-blocking on its own, so a stalled pipe is met as it is without them.
  server = await startServer({ TRACELIGHT_LOG_BUFFER: '64kb', TRACELIGHT_SQLITE_WRITER: 'inline', TRACELIGHT_OFFLOAD_WORKERS: '0' });
});
afterAll(() => server.stop('SIGKILL'));

/** `tracelight_log_dropped_lines_total{stream="stdout"}` as /metrics says it now. */
const droppedLines = async (): Promise<number> => {
  const metrics = await http(server.baseUrl)('GET', '/metrics');
  const count = /^tracelight_log_dropped_lines_total\{stream="stdout"\} (\d+)$/m.exec(metrics.text);
  if (!count) throw new Error(`no tracelight_log_dropped_lines_total{stream="stdout"} in /metrics:\n${metrics.text}`);
  return Number(count[1]);
};

/** `count` requests for PATH, eight at a time; the status of each. */
const askMissingPaths = async (count: number): Promise<number[]> => {
  const call = http(server.baseUrl);
  const statuses: number[] = [];
  const client = async (): Promise<void> => {
    while (statuses.length < count) {
      statuses.push(0);
      const at = statuses.length - 1;
      statuses[at] = (await call('GET', PATH)).status;
    }
  };
  await Promise.all(Array.from({ length: 8 }, client));
  return statuses;
};

/** The lines in which the server said how many lines it dropped from stdout. */
const dropNotices = () =>
  server.output
    .filter((line) => line.includes('"dropped_lines"'))
    .map((line) => JSON.parse(line) as { level: string; message: string; stream: string; dropped_lines: number });

describe('a log nobody reads', () => {
  it('answers every request, and drops and counts the lines past the bound instead of holding them', async () => {
    server.pauseOutput();
    const statuses = await askMissingPaths(REQUESTS);
    expect(statuses.filter((status) => status === 404)).toHaveLength(REQUESTS);
    // The pipe and the bound hold a few dozen of these lines: all the others were dropped, not kept in the server.
    expect(await droppedLines()).toBeGreaterThanOrEqual(REQUESTS * 0.9);
  });

  it('says in the log how many lines it dropped once the log is read again, and logs on', async () => {
    server.resumeOutput();
    await server.waitForOutput(/"message":"dropped \d+ log lines/);
    // Nothing is dropped any more: the notices, together, account for every line the counter counted.
    const counted = await droppedLines();
    for (let waited = 0; dropNotices().reduce((sum, notice) => sum + notice.dropped_lines, 0) !== counted; waited += 10) {
      if (waited >= 10_000) throw new Error(`the notices say ${JSON.stringify(dropNotices())}, /metrics counted ${counted}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    for (const notice of dropNotices()) {
      expect(notice).toEqual(
        expect.objectContaining({ level: 'warn', stream: 'stdout', message: expect.stringMatching(new RegExp(`^dropped ${notice.dropped_lines} log lines: stdout was not being read`)) }),
      );
    }
    // Lines written after the gap arrive as before.
    await server.waitForOutput('"path":"/metrics"');
  });

  it('stops when told to, though its log is still not read', async () => {
    server.pauseOutput();
    // Until a line is dropped again: the pipe is full and lines wait in the server.
    const before = await droppedLines();
    while ((await droppedLines()) === before) await askMissingPaths(100);
    expect(await server.stop()).toBe(0);
  });
});
