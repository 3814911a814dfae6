// Starts the built server (apps/server/dist/main.js) as a child process on a free 127.0.0.1 port
// with a fresh temporary data dir, and stops it again. Nothing in the server is replaced or mocked.
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { eachLine } from './lines';
import { track } from './started';

export const ADMIN = { email: 'admin@example.com', password: 'correct horse battery staple' };

export interface RunningServer {
  readonly baseUrl: string;
  readonly dataDir: string;
  /** The server's process id: SIGSTOP freezes it (connections are still accepted, nothing answers), SIGCONT resumes it. */
  readonly pid: number;
  /** The variables that chose this server's storage: `startServer(first.storageEnv)` shares it. */
  readonly storageEnv: Readonly<Record<string, string>>;
  /** Every line the server wrote, stdout and stderr, for assertions about logs. */
  readonly output: string[];
  /**
   * The first output line that matches, once it has arrived. The server writes its logs asynchronously,
   * so a line can land a little after the response it belongs to: this polls `output` for up to
   * `withinMs` (30 s by default: a bound for a loaded machine, not a timing) and fails (naming what it
   * waited for) if the line never comes.
   */
  waitForOutput(match: string | RegExp, withinMs?: number): Promise<string>;
  /**
   * Stops reading the server's stdout, as a log shipper that hangs would: what the server writes fills the
   * pipe, then waits in the server. `resumeOutput` reads it again.
   */
  pauseOutput(): void;
  resumeOutput(): void;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * TRACELIGHT_E2E_DATABASE_URL points the black-box suites at another engine (e.g. mongodb://…). Each
 * data dir then has a database of its own, named after it, as it has its own tracelight.db on SQLite:
 * a server started again on the same data dir (a restart, a second replica) finds the same data.
 */
const e2eDatabase = (dataDir: string): Record<string, string> => {
  const url = process.env['TRACELIGHT_E2E_DATABASE_URL'];
  if (!url) return {};
  if (!url.startsWith('mongodb')) return { TRACELIGHT_DATABASE_URL: url };
  const name = `tracelight_e2e_${createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 24)}`;
  const m = /^(mongodb(?:\+srv)?:\/\/[^/?]+)\/?[^?]*(\?.*)?$/.exec(url);
  return { TRACELIGHT_DATABASE_URL: m ? `${m[1]}/${name}${m[2] ?? ''}` : url };
};

const MAIN = path.resolve(__dirname, '../../apps/server/dist/main.js');
/** The longest a start is waited for (until the server says it listens): a start takes about a second. */
const START_MS = 120_000;

export interface StartOptions {
  /** Another build of the server to start (a production bundle); this checkout's by default. */
  readonly main?: string;
  /** Flags for Node and V8, before the script (`--trace-…`). */
  readonly nodeFlags?: readonly string[];
}

export const startServer = async (
  env: Record<string, string> = {},
  dataDir?: string,
  { main = MAIN, nodeFlags = [] }: StartOptions = {},
): Promise<RunningServer> => {
  if (!fs.existsSync(main)) throw new Error(`${main} is missing: run \`pnpm build\` first (the test scripts do)`);
  const dir = dataDir ?? env['TRACELIGHT_DATA_DIR'] ?? fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-e2e-'));
  const storageEnv: Record<string, string> = { TRACELIGHT_DATA_DIR: dir, ...e2eDatabase(dir), ...env };
  const child: ChildProcess = spawn(process.execPath, [...nodeFlags, main], {
    env: {
      PATH: process.env['PATH'] ?? '',
      TRACELIGHT_HOST: '127.0.0.1',
      TRACELIGHT_PORT: '0',
      TRACELIGHT_ADMIN_EMAIL: ADMIN.email,
      TRACELIGHT_ADMIN_PASSWORD: ADMIN.password,
      // No scoring unless a suite asks for it (with a stub gateway of its own): suites that set a
      // gateway integration to an address of the world (or the fuzzer, to any) must never have it called.
      TRACELIGHT_SCORING_WORKERS: '0',
      // Nor a Python interpreter for code scorers (seconds to start): uploads are stored unread unless a suite asks.
      TRACELIGHT_SANDBOX_WORKERS: '0',
      // Suites that score point gateways at the testkit's stub, on 127.0.0.1, which judges call only where
      // the operator allows it; a suite that shows the default refusal sets this to ''.
      TRACELIGHT_GATEWAY_ALLOWED_NETWORKS: '127.0.0.1/32',
      ...storageEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // Stopped once the test file is done if its tests did not stop it (a failing hook, a test cut short).
  const untrack = track({
    name: `a server (pid ${child.pid})`,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      return exited;
    },
  });
  void exited.then(untrack);
  const port = await new Promise<number>((resolve, reject) => {
    // A bound against a server that never starts, generous for a loaded machine; it fails with what the server said.
    const timer = setTimeout(() => reject(new Error(`server did not start within ${START_MS / 1000} s:\n${output.join('\n')}`)), START_MS);
    const onLine = (line: string) => {
      output.push(line);
      try {
        const entry = JSON.parse(line) as { port?: number; message?: string };
        if (entry.message?.startsWith('Tracelight listening') && entry.port) {
          clearTimeout(timer);
          resolve(entry.port);
        }
      } catch {
        /* not a JSON line */
      }
    };
    eachLine([child.stdout, child.stderr], onLine);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${output.join('\n')}`));
    });
  });
  const waitForOutput = async (match: string | RegExp, withinMs = 30_000): Promise<string> => {
    const matches = (line: string) => (typeof match === 'string' ? line.includes(match) : match.test(line));
    for (let waited = 0; ; waited += 10) {
      const line = output.find(matches);
      if (line !== undefined) return line;
      if (waited >= withinMs) throw new Error(`no output line matched ${String(match)} within ${withinMs} ms:\n${output.slice(-20).join('\n')}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    dataDir: dir,
    pid: child.pid!,
    storageEnv: {
      TRACELIGHT_DATA_DIR: dir,
      ...(storageEnv['TRACELIGHT_DATABASE_URL'] === undefined ? {} : { TRACELIGHT_DATABASE_URL: storageEnv['TRACELIGHT_DATABASE_URL'] }),
    },
    output,
    waitForOutput,
    pauseOutput: () => child.stdout?.pause(),
    resumeOutput: () => child.stdout?.resume(),
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
};
