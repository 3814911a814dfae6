// Benchmark of a cold start: `node --max-semi-space-size=64 apps/server/dist/main.js` (as `pnpm start`; BENCH_NODE_ARGS as bench-server.mjs says) on a built tree, from the spawn to the first
// answer to GET /healthcheck, five times each way (a first start on a new data dir, creating the database,
// the secret key and the admin as the README's first command does; then a restart on that data dir), with
// the median. Also when the threads that start behind the listening socket were all up ('worker threads
// started'). Prints figures; asserts nothing.
//   pnpm bench                                (all benchmarks)
//   node test/bench/startup.bench.mjs         (this one, after pnpm build)
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { NODE_ARGS, ROOT, SERVER_MAIN as MAIN, cpuMicrosOf } from './bench-server.mjs';
const RUNS = 5;
const fmt = (n) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const healthcheck = (port) =>
  new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/healthcheck', agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', () => resolve(0));
  });

/** One start: ms from spawn to the first 200 of /healthcheck, and to the 'worker threads started' line; then a clean stop. */
const start = async (dataDir, env) => {
  const began = performance.now();
  const child = spawn(process.execPath, [...NODE_ARGS, MAIN], {
    env: { PATH: process.env.PATH ?? '', TRACELIGHT_DATA_DIR: dataDir, TRACELIGHT_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  let out = '';
  let warmMs;
  let port;
  child.stdout.on('data', (d) => {
    out += d;
    port ??= Number(/"port":(\d+)/.exec(out)?.[1]) || undefined;
    if (warmMs === undefined && out.includes('worker threads started')) warmMs = performance.now() - began;
  });
  try {
    // The port is known once the server says it listens: until then, nothing to ask.
    while (port === undefined) {
      if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}:\n${out}`);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    while ((await healthcheck(port)) !== 200) await new Promise((resolve) => setTimeout(resolve, 1));
    const answeredMs = performance.now() - began;
    const cpuMs = cpuOf(child.pid);
    while (warmMs === undefined && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 5));
    return { answeredMs, warmMs, cpuMs };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
};

/** CPU time the process has used, all its threads together, in ms (bench-server.mjs): what a start costs whatever else the machine runs, where the wall-clock figure moves with the load of a shared machine. */
const cpuOf = (pid) => cpuMicrosOf(pid) / 1000;

const rows = [];
const measure = async (name, runs) => {
  const results = [];
  for (const run of runs) results.push(await run());
  rows.push({ name, answered: results.map((r) => r.answeredMs), warm: results.map((r) => r.warmMs), cpu: results.map((r) => r.cpuMs) });
};

const dirs = Array.from({ length: RUNS }, () => fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-bench-start-')));
try {
  const admin = { TRACELIGHT_ADMIN_EMAIL: 'admin@example.com', TRACELIGHT_ADMIN_PASSWORD: 'change-me-please' };
  await measure('first start on a new data dir (database, secret key and admin made)', dirs.map((dir) => () => start(dir, admin)));
  await measure('restart on that data dir', dirs.map((dir) => () => start(dir, admin)));
} finally {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
}

const load = os.loadavg()[0];
console.log(`\nCold start: node ${path.relative(ROOT, MAIN)} to its first /healthcheck answer (${RUNS} starts each; ${os.cpus().length} CPUs, load average ${load.toFixed(1)})`);
console.log('| start | first /healthcheck answer, median | each, ms | CPU used by then, median ms | worker threads up, median ms |\n| --- | --- | --- | --- | --- |');
for (const r of rows) console.log(`| ${r.name} | ${fmt(median(r.answered))} ms | ${r.answered.map(fmt).join(' / ')} | ${fmt(median(r.cpu))} | ${fmt(median(r.warm))} |`);
