// The benchmarks' server: a built Tracelight (apps/server/dist/main.js, or another build) started on a new
// data dir at port 0, signed in as its first admin; calls to its API; the CPU it has used; and its stop,
// which removes the data dir. One way for every bench, where each had its own dozen lines.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The server a bench starts: BENCH_SERVER names another build's main.js (a before/after comparison). */
export const SERVER_MAIN = process.env.BENCH_SERVER ?? path.join(ROOT, 'apps/server/dist/main.js');
/** How `pnpm start` and the Dockerfile start the server: Node's young generation sized for ingest (docs/operations.md). */
export const SERVER_NODE_ARGS = ['--max-semi-space-size=64'];
/**
 * Node options for the server, split on spaces, in place of SERVER_NODE_ARGS: BENCH_NODE_ARGS='--max-semi-space-size=64
 * --cpu-prof --cpu-prof-dir=/tmp/prof' profiles every thread of it; BENCH_NODE_ARGS= (empty) starts it as plain `node`.
 */
export const NODE_ARGS = process.env.BENCH_NODE_ARGS === undefined ? SERVER_NODE_ARGS : process.env.BENCH_NODE_ARGS.split(' ').filter(Boolean);
export const BENCH_ADMIN = { email: 'bench@example.com', password: 'bench-password' };

/**
 * The port `child` says it listens on: the server's `"port":N` log line, or a bare number on a line of its
 * own (test/bench/bare-koa.cjs). From then on its stdout is drained and dropped, so that a bench's server
 * never blocks on a full pipe.
 */
export const listeningPort = (child) =>
  new Promise((resolve, reject) => {
    let said = '';
    const onData = (c) => {
      said += c;
      const m = /"port":(\d+)/.exec(said) ?? /^(\d+)\n/.exec(said);
      if (!m) return;
      child.stdout.off('data', onData);
      child.stdout.resume();
      resolve(Number(m[1]));
    };
    child.stdout.on('data', onData);
    child.once('exit', (code, signal) => reject(new Error(`the server exited (${signal ?? code}) before listening:\n${said.slice(-2000)}`)));
  });

/**
 * CPU time (user and system) `pid` has used so far, every thread together, in µs (Linux: /proc, in clock
 * ticks of 10 ms; NaN elsewhere): what a bench's work costs the server, which the load of a shared
 * machine moves far less than it moves throughput.
 */
export const cpuMicrosOf = (pid) => {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
  } catch {
    return NaN;
  }
};

/** CPU time so far of each of `pid`'s threads, in ms, by thread id (Linux /proc; empty elsewhere). */
export const threadCpuOf = (pid) => {
  try {
    return Object.fromEntries(
      fs.readdirSync(`/proc/${pid}/task`).map((tid) => {
        const fields = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
        return [tid, ((Number(fields[11]) + Number(fields[12])) * 1000) / 100];
      }),
    );
  } catch {
    return {};
  }
};

/**
 * The servers started and not yet exited, with their data dirs: killed and removed when the bench ends, however it ends. An error that ends
 * a bench midway is printed and ends it with status 1 (Node emits no 'exit' for a fatal error), so that no
 * server outlives it, holding the bench's output pipe open.
 */
const running = new Map();
process.once('exit', () => {
  for (const [child, dataDir] of running) {
    child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
const fatal = (e) => {
  console.error(e);
  process.exit(1);
};
process.once('uncaughtException', fatal);
// Stopped by Ctrl-C or a kill: through process.exit, so that the servers go too.
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(1));
process.once('unhandledRejection', fatal);

/**
 * Starts the server with `env` beside the bench defaults (port 0, a new data dir, `admin` as its first
 * admin, no rate limit) and signs in as that admin. `call(method, path, body, headers)` sends a body as it is when it is a string, a
 * Buffer or a FormData, else as JSON, with the admin's token; an answer of 300 or more throws, naming it.
 */
export const startBenchServer = async ({ env = {}, main = SERVER_MAIN, prefix = 'tracelight-bench-', admin = BENCH_ADMIN } = {}) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const child = spawn(process.execPath, [...NODE_ARGS, main], {
    env: {
      PATH: process.env.PATH,
      TRACELIGHT_PORT: '0',
      TRACELIGHT_DATA_DIR: dataDir,
      TRACELIGHT_ADMIN_EMAIL: admin.email,
      TRACELIGHT_ADMIN_PASSWORD: admin.password,
      TRACELIGHT_RATE_LIMIT_PER_MINUTE: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  running.set(child, dataDir);
  void exited.then(() => running.delete(child));
  /** Stops it (SIGTERM: a clean stop; SIGKILL: at once) and removes its data dir. */
  const stop = async (signal = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  let port;
  try {
    port = await listeningPort(child);
  } catch (e) {
    await stop('SIGKILL');
    throw e;
  }
  const base = `http://127.0.0.1:${port}`;
  let token;
  const call = async (method, p, body, headers = {}) => {
    const raw = body === undefined || typeof body === 'string' || Buffer.isBuffer(body) || body instanceof FormData;
    const res = await fetch(base + p, {
      method,
      headers: { ...(body instanceof FormData ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
      body: raw ? body : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${text.slice(0, 300)}`);
    return text ? JSON.parse(text) : undefined;
  };
  try {
    token = (await call('POST', '/login', { username: admin.email, password: admin.password })).access_token;
  } catch (e) {
    await stop('SIGKILL');
    throw e;
  }
  return {
    child,
    pid: child.pid,
    port,
    base,
    dataDir,
    token,
    call,
    stop,
    cpuMicros: () => cpuMicrosOf(child.pid),
    threadCpu: () => threadCpuOf(child.pid),
  };
};
