// Load benchmark: each of the five spec operations driven by autocannon on 127.0.0.1, beside a bare
// Koa JSON endpoint measured in the same run. Prints req/s and p50/p99 at 32 connections, the ratio to
// the bare endpoint, the server's CPU time per request (all its threads, from /proc: the client shares
// the machine, so this is the figure that says what a request costs), and p50/p99 at half that rate
// from an evenly paced open-loop generator (paced-load.mjs: autocannon's own rate limit sends each
// second's share in a burst), run in a process of its own: this one, after many autocannon rounds,
// collects its old generation about once a second, and each pause delayed the answers it read. Each target is warmed up for 2 s first. The machine is shared and its speed drifts, so the bare endpoint is
// measured again right before each row (half as long) and each ratio is to that run beside it.
// Calibration rows first: the bare endpoint made to spend a fixed few µs of CPU on each request, which
// shows what the 70 % aim leaves for a request's own work on the machine at hand. Then memory over a
// soak of mixed traffic (5 minutes by default): RSS, and V8's heap within it. Asserts nothing.
//   BENCH_SECONDS=10 BENCH_SOAK_SECONDS=300 node test/bench/load.bench.mjs
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import autocannon from 'autocannon';
import { ROOT, cpuMicrosOf, listeningPort, startBenchServer } from './bench-server.mjs';
import { pacedLoadInOwnProcess } from './paced-load.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const SOAK = Number(process.env.BENCH_SOAK_SECONDS ?? 300);
const CONNECTIONS = 32;

/** A bare Koa endpoint (bare-koa.cjs) with `env`, once it listens. */
const startBare = async (env) => {
  const child = spawn(process.execPath, [path.join(ROOT, 'test/bench/bare-koa.cjs')], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return { child, port: await listeningPort(child) };
};

const server = await startBenchServer({ prefix: 'tracelight-load-' });
const { base, token, dataDir } = server;
const bare = await startBare({});
/** µs of CPU a calibration endpoint spends on each request before answering as the bare one does. */
const WORK_US = [5, 10, 20];
const busy = await Promise.all(WORK_US.map((us) => startBare({ BARE_WORK_US: String(us) })));
const call = server.call;
const auth = { authorization: `Bearer ${token}` };
const { api_key: key } = await call('POST', '/v2/users/api_keys', { description: 'load' });
const project = await call('POST', '/v2/projects', { name: 'load' });
const run = await call('POST', `/v2/projects/${project.id}/log_streams`, { name: 'load' });
const scorer = await call('POST', '/v2/scorers', { name: 'load-scorer', scorer_type: 'llm' });
for (let i = 0; i < 5; i++) await call('POST', `/v2/scorers/${scorer.id}/version/llm`, { instructions: 'judge' });
await call('POST', `/v2/projects/${project.id}/runs/${run.id}/scorer-settings`, { scorers: [{ scorer_id: scorer.id }] });

const apiKey = { 'Service-API-Key': key, 'content-type': 'application/json' };
const bareTarget = { url: `http://127.0.0.1:${bare.port}/`, method: 'GET' };
/** The five spec operations: also the soak's mix. */
const OPERATIONS = [
  ['PATCH insights-settings', { url: `${base}/v2/projects/${project.id}/runs/${run.id}/insights-settings`, method: 'PATCH', headers: apiKey, body: JSON.stringify({ insights: { logstream: { enabled: true, start_time: '2026-01-01T00:00:00Z' } } }) }],
  ['POST refresh_token', { url: `${base}/v2/refresh_token`, method: 'POST', headers: auth }],
  ['PUT integrations/gateway', { url: `${base}/v2/integrations/gateway`, method: 'PUT', headers: apiKey, body: JSON.stringify({ token: 'secret-token', endpoint: 'https://gw.example.com/relay', use_case: 'LOAD' }) }],
  ['POST spans/available_columns', { url: `${base}/v2/projects/${project.id}/spans/available_columns`, method: 'POST', headers: apiKey, body: JSON.stringify({ log_stream_id: run.id }) }],
  ['GET scorers/{id}/versions', { url: `${base}/v2/scorers/${scorer.id}/versions?limit=2`, method: 'GET', headers: apiKey }],
];
const TARGETS = [
  ...WORK_US.map((us, i) => [`bare + ${us} µs of work a request`, { url: `http://127.0.0.1:${busy[i].port}/`, method: 'GET' }, busy[i].child.pid]),
  // What every request of the server pays before any work of its own: no credentials, no storage.
  ['GET /healthcheck (pipeline only)', { url: `${base}/healthcheck`, method: 'GET' }],
  ...OPERATIONS,
];

const measure = (opts, extra = {}) =>
  new Promise((resolve, reject) => autocannon({ ...opts, connections: CONNECTIONS, duration: SECONDS, ...extra }, (e, r) => (e ? reject(e) : resolve(r))));
const fmt = (n) => n.toLocaleString('en-US', { maximumFractionDigits: 1 });
const ms = (x) => x.toFixed(2);

/** A full-rate run, with the server's CPU time per request over it, after a short warm-up (JIT, caches). */
const measureWithCpu = async (pid, opts) => {
  await measure(opts, { duration: 2 });
  const cpuBefore = cpuMicrosOf(pid);
  const full = await measure(opts);
  const cpuAfter = cpuMicrosOf(pid);
  const cpuPerRequest = Number.isNaN(cpuBefore) || Number.isNaN(cpuAfter) ? '—' : fmt((cpuAfter - cpuBefore) / full.requests.total);
  return { full, cpuPerRequest };
};

/** p50/p99 at half the rate a target reached, paced evenly. */
const halfRate = async (name, opts, rps) => {
  const half = await pacedLoadInOwnProcess(opts, { rate: Math.max(1, Math.floor(rps / 2)), connections: CONNECTIONS, seconds: SECONDS });
  if (half.non2xx > 0) console.log(`  (${name} at half rate: ${half.non2xx} non-2xx)`);
  return `${ms(half.p50)} / ${ms(half.p99)}`;
};

/**
 * What the disk under the data directory takes to make an append durable: fdatasync (what SQLite calls
 * to commit its log under synchronous=FULL on Linux) after each of 2,000 appends of 4 KiB, in ms. A
 * write's answer waits for its commit's fsync, and for the one before it when it came in during one:
 * the floor under the write rows' tails.
 */
const diskSync = () => {
  const file = path.join(dataDir, 'fsync-probe');
  const fd = fs.openSync(file, 'w');
  const page = Buffer.alloc(4096, 1);
  const took = new Float64Array(2000);
  try {
    for (let i = 0; i < took.length; i++) {
      fs.writeSync(fd, page);
      const t0 = performance.now();
      fs.fdatasyncSync(fd);
      took[i] = performance.now() - t0;
    }
  } finally {
    fs.closeSync(fd);
    fs.rmSync(file);
  }
  took.sort();
  return { p50: took[took.length >> 1], p99: took[Math.floor(took.length * 0.99)], max: took[took.length - 1] };
};

console.log(`Tracelight load benchmark — node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, SQLite synchronous=FULL, ${CONNECTIONS} connections, ${SECONDS} s each`);
{
  const d = diskSync();
  console.log(`disk under the data directory: fdatasync after a 4 KiB append, p50 ${ms(d.p50)} / p99 ${ms(d.p99)} / max ${ms(d.max)} ms (2,000 in a row)`);
}
console.log('operation'.padEnd(34), 'req/s'.padStart(10), 'p50 ms'.padStart(8), 'p99 ms'.padStart(8), 'CPU µs/req'.padStart(11), 'bare beside'.padStart(12), 'vs bare'.padStart(9), '  at half rate, paced: p50 / p99 ms');
{
  const { full, cpuPerRequest } = await measureWithCpu(bare.child.pid, bareTarget);
  const rps = full.requests.average;
  console.log('bare Koa JSON endpoint'.padEnd(34), fmt(rps).padStart(10), fmt(full.latency.p50).padStart(8), fmt(full.latency.p99).padStart(8), cpuPerRequest.padStart(11), '—'.padStart(12), '100 %'.padStart(9), `  ${await halfRate('bare', bareTarget, rps)}`);
}
for (const [name, opts, pid] of TARGETS) {
  const beside = (await measure(bareTarget, { duration: Math.max(1, Math.round(SECONDS / 2)) })).requests.average;
  const { full, cpuPerRequest } = await measureWithCpu(pid ?? server.child.pid, opts);
  if (full.non2xx > 0 || full.errors > 0) console.log(`  (${name}: ${full.non2xx} non-2xx, ${full.errors} errors)`);
  const rps = full.requests.average;
  // The calibration rows are about throughput only.
  const paced = pid === undefined ? await halfRate(name, opts, rps) : '—';
  console.log(name.padEnd(34), fmt(rps).padStart(10), fmt(full.latency.p50).padStart(8), fmt(full.latency.p99).padStart(8), cpuPerRequest.padStart(11), fmt(beside).padStart(12), `${fmt((100 * rps) / beside)} %`.padStart(9), `  ${paced}`);
}

if (SOAK > 0) {
  /** Resident memory, and of it V8's heap (committed, and in use: what a leak would grow), in MiB. */
  const memory = async () => {
    const text = await (await fetch(`${base}/metrics`)).text();
    const read = (metric) => Number(new RegExp(`^${metric} (\\d+)`, 'm').exec(text)?.[1] ?? 0) / 2 ** 20;
    return { rss: read('process_resident_memory_bytes'), heap: read('nodejs_heap_size_total_bytes'), used: read('nodejs_heap_size_used_bytes') };
  };
  const mix = OPERATIONS;
  // Rounds of every operation in turn, memory sampled after each round: flat means no leak.
  const round = 10;
  const samples = [await memory()];
  for (let elapsed = 0; elapsed < SOAK; elapsed += round * mix.length) {
    for (const [, opts] of mix) await measure(opts, { duration: round, connections: 8 });
    samples.push(await memory());
  }
  console.log(`\nsoak: ${SOAK} s of mixed traffic (8 connections), server memory in MiB after each ${round * mix.length} s round:`);
  console.log(`  RSS            ${samples.map((x) => fmt(x.rss)).join(' → ')}`);
  console.log(`  V8 heap        ${samples.map((x) => fmt(x.heap)).join(' → ')}`);
  console.log(`  V8 heap in use ${samples.map((x) => fmt(x.used)).join(' → ')}`);
}

for (const b of [bare, ...busy]) b.child.kill('SIGTERM');
await server.stop();
