// When the server's output cannot be written at all (a full disk: ENOSPC; past the largest file it may write:
// EFBIG): the server goes on answering, drops and counts the lines past TRACELIGHT_LOG_BUFFER, says so in the
// log once it is written again, and still stops when told to, its database closed.
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { http } from '../support/http';
import { track } from '../support/started';
import { ADMIN } from '../support/server';

const MAIN = path.resolve(__dirname, '../../apps/server/dist/main.js');
// Each request's line carries its path, so a line is ~12 KB.
const PATH = `/not-here/${'x'.repeat(12_000)}`;

interface Launched {
  readonly child: ChildProcess;
  readonly dataDir: string;
  readonly exited: Promise<number | null>;
}

/** Starts the built server with `command` (`sh -c`, `$MAIN` the server) and the given stdout and stderr. */
const launch = (command: string, stdout: number, stderr: number): Launched => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-logerr-'));
  const child = spawn('sh', ['-c', command], {
    env: {
      PATH: process.env['PATH'] ?? '',
      NODE: process.execPath,
      MAIN,
      TRACELIGHT_HOST: '127.0.0.1',
      TRACELIGHT_PORT: '0',
      TRACELIGHT_DATA_DIR: dataDir,
      TRACELIGHT_ADMIN_EMAIL: ADMIN.email,
      TRACELIGHT_ADMIN_PASSWORD: ADMIN.password,
      TRACELIGHT_LOG_BUFFER: '64kb',
    },
    stdio: ['ignore', stdout, stderr],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // Stopped once the file is done, should a test not get that far.
  void exited.then(track({ name: `a server (pid ${child.pid})`, stop: () => (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'), exited) }));
  return { child, dataDir, exited };
};

/**
 * The port the process listens on, read from /proc: its log, the "listening" line with it, may never be
 * written. Its sockets' inodes, looked up among the listening TCP sockets.
 */
const listeningPort = async (launched: Launched): Promise<number> => {
  const pid = launched.child.pid!;
  for (let waited = 0; waited < 120_000; waited += 50) {
    if (launched.child.exitCode !== null) throw new Error(`the server exited with ${launched.child.exitCode} before listening`);
    const inodes = new Set<string>();
    for (const fd of fs.readdirSync(`/proc/${pid}/fd`, { withFileTypes: false })) {
      const target = (() => {
        try {
          return fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
        } catch {
          return '';
        }
      })();
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode) inodes.add(inode);
    }
    for (const line of fs.readFileSync(`/proc/${pid}/net/tcp`, 'utf8').split('\n').slice(1)) {
      const [, local, , state, , , , , , inode] = line.trim().split(/\s+/);
      if (state === '0A' && inode !== undefined && inodes.has(inode)) return parseInt(local!.split(':')[1]!, 16);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the server did not listen within 120 s');
};

/**
 * GET `path`; a request not answered within 30 s fails the test, saying so (a hung server stalls no test;
 * the bound is one a loaded machine does not reach).
 */
const get = (baseUrl: string, path: string) =>
  http(baseUrl)('GET', path, { timeoutMs: 30_000 }).catch((e: Error) => {
    throw new Error(`GET ${path.length > 30 ? `${path.slice(0, 30)}…` : path} was not answered within 30 s (${e.message})`);
  });

/** `tracelight_log_dropped_lines_total{stream="stdout"}` as /metrics says it now. */
const droppedLines = async (baseUrl: string): Promise<number> => {
  const metrics = await get(baseUrl, '/metrics');
  const count = /^tracelight_log_dropped_lines_total\{stream="stdout"\} (\d+)$/m.exec(metrics.text);
  if (!count) throw new Error(`no tracelight_log_dropped_lines_total{stream="stdout"} in /metrics:\n${metrics.text}`);
  return Number(count[1]);
};

/** Asks until stdout has dropped lines: the log's first ~64 KB are held, later lines dropped. Every answer must come. */
const askUntilDropped = async (baseUrl: string): Promise<void> => {
  for (let asked = 0; (await droppedLines(baseUrl)) === 0; asked++) {
    if (asked > 200) throw new Error('no log line was dropped after 200 requests');
    expect((await get(baseUrl, PATH)).status).toBe(404);
    expect((await get(baseUrl, '/healthcheck')).status).toBe(200);
  }
};

/** SIGTERM, and the exit code; SIGKILL (and a failure) if it has not exited within `withinMs`. */
const stopWithin = async (launched: Launched, withinMs: number): Promise<number | null> => {
  launched.child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([launched.exited, new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), withinMs)))]);
  clearTimeout(timer);
  if (outcome === 'hung') {
    launched.child.kill('SIGKILL');
    throw new Error(`the server did not stop within ${withinMs / 1000} s of SIGTERM`);
  }
  return outcome;
};

/** The database was closed: the last connection took the write-ahead log into the file and removed it. */
const databaseFiles = (dataDir: string) => fs.readdirSync(dataDir).filter((f) => f.startsWith('tracelight.db'));

const devFull = fs.existsSync('/dev/full') && fs.existsSync('/proc/self/net/tcp');
(devFull ? describe : describe.skip)(
  devFull ? 'output that always fails with ENOSPC (/dev/full)' : 'skipped: no /dev/full and /proc here (Linux has them): no descriptor that fails every write with ENOSPC',
  () => {
    let launched: Launched | undefined;
    afterEach(() => launched?.child.kill('SIGKILL'));

    it('answers every request, drops and counts the lines, and stops on SIGTERM with its database closed', async () => {
      const full = fs.openSync('/dev/full', 'w');
      try {
        launched = launch('exec "$NODE" "$MAIN"', full, full);
      } finally {
        fs.closeSync(full);
      }
      const baseUrl = `http://127.0.0.1:${await listeningPort(launched)}`;
      await askUntilDropped(baseUrl);
      expect((await get(baseUrl, '/healthcheck')).status).toBe(200);
      expect(await stopWithin(launched, 30_000)).toBe(0);
      expect(databaseFiles(launched.dataDir)).toEqual(['tracelight.db']);
    });
  },
);

describe('output past the largest file the server may write (EFBIG), then writable again', () => {
  let launched: Launched | undefined;
  afterEach(() => launched?.child.kill('SIGKILL'));

  it('drops and counts the lines while it cannot write, says how many once it can, and stops as usual', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-logerr-out-'));
    const out = path.join(dir, 'out.log');
    // A file-size limit of 8 MiB (512-byte blocks), the log already 56 KB short of it (a sparse file): the
    // server starts and writes some lines, then every write to its log fails, as a full disk's would. Its
    // database is far from the limit.
    fs.writeFileSync(out, '');
    fs.truncateSync(out, 8 * 1024 * 1024 - 56 * 1024);
    const stdout = fs.openSync(out, 'a');
    const stderr = fs.openSync(path.join(dir, 'err.log'), 'a');
    try {
      launched = launch(`trap '' XFSZ; ulimit -f 16384; exec "$NODE" "$MAIN"`, stdout, stderr);
    } finally {
      fs.closeSync(stdout);
      fs.closeSync(stderr);
    }
    const baseUrl = `http://127.0.0.1:${await listeningPort(launched)}`;
    await askUntilDropped(baseUrl);

    // Room again (the log rotated away, as logrotate's copytruncate does): what was held is written, then one
    // notice of what was dropped meanwhile, then the lines that follow.
    fs.truncateSync(out, 0);
    const lines = (): string[] => fs.readFileSync(out, 'utf8').split('\n').filter((line) => line !== '');
    const notices = () =>
      lines()
        .filter((line) => line.includes('"dropped_lines"'))
        .map((line) => JSON.parse(line) as { stream: string; dropped_lines: number });
    for (let waited = 0; notices().length === 0; waited += 50) {
      if (waited >= 60_000) throw new Error(`no notice of dropped lines within 60 s of room again:\n${lines().slice(-5).join('\n')}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Written again, nothing is dropped any more: the notices, together, account for every line counted.
    const counted = await droppedLines(baseUrl);
    for (let waited = 0; notices().reduce((sum, notice) => sum + notice.dropped_lines, 0) !== counted; waited += 50) {
      if (waited >= 10_000) throw new Error(`the notices say ${JSON.stringify(notices())}, /metrics counted ${counted}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    for (const notice of notices()) {
      expect(notice).toEqual({
        level: 'warn',
        time: expect.any(String),
        stream: 'stdout',
        dropped_lines: notice.dropped_lines,
        write_error: 'EFBIG',
        message: `dropped ${notice.dropped_lines} log lines: stdout could not be written (EFBIG), and more than TRACELIGHT_LOG_BUFFER waited to be written`,
      });
    }
    expect(await droppedLines(baseUrl)).toBe(counted);
    expect(await stopWithin(launched, 30_000)).toBe(0);
    expect(JSON.parse(lines().at(-1)!)).toMatchObject({ level: 'info', message: 'stopped: the database is closed' });
    expect(databaseFiles(launched.dataDir)).toEqual(['tracelight.db']);
  });
});
