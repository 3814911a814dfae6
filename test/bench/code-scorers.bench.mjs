// Benchmark: code scorers. Judgments per second of a trivial uploaded scorer (the length of the output)
// through the server's scoring workers and its Pyodide sandbox, both at their default sizes (8 workers,
// 2 interpreters), once the interpreters are warm; how long the first job took; and, for comparison,
// calls per second of the sandbox alone (the adapter, no storage) at the same size. Prints figures;
// asserts nothing.
//   node test/bench/code-scorers.bench.mjs        (after pnpm build; pnpm bench runs it)
//   BENCH_CODE_JUDGED=5000 node test/bench/code-scorers.bench.mjs
import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { ROOT, startBenchServer } from './bench-server.mjs';

const require = createRequire(import.meta.url);
const { PyodideSandbox, DEFAULT_SANDBOX_SETTINGS } = require(path.join(ROOT, 'adapters/pyodide-sandbox/dist/index.js'));
const JUDGED = Number(process.env.BENCH_CODE_JUDGED ?? 3000);
const fmt = (n) => n.toLocaleString('en-US', { maximumFractionDigits: 1 });

const SCORER = `def scorer_fn(*, index, node_input, node_output, **kwargs):
    return len(node_output)

def score_type():
    return int
`;

const server = await startBenchServer({ prefix: 'tracelight-bench-code-' });
try {
  // The scoring and sandbox settings are left at their defaults.
  const { call } = server;
  const project = (await call('POST', '/v2/projects', { name: 'code-bench' })).id;
  const scorer = await call('POST', '/v2/scorers', { name: 'length', scorer_type: 'code' });
  const form = new FormData();
  form.append('file', new Blob([SCORER]), 'length.py');
  const uploadStarted = performance.now();
  await call('POST', `/v2/scorers/${scorer.id}/version/code`, form);
  const uploadMs = performance.now() - uploadStarted;
  const logStream = (await call('POST', `/v2/projects/${project}/log_streams`, JSON.stringify({ name: 'scored' }))).id;
  await call('POST', `/v2/projects/${project}/runs/${logStream}/scorer-settings`, JSON.stringify({ scorers: [{ scorer_id: scorer.id }] }));
  const jobs = async () => (await call('GET', `/v2/projects/${project}/runs/${logStream}/metrics/status`)).scorers[0].jobs;
  const ingest = (n) => call('POST', `/v2/projects/${project}/traces`, JSON.stringify({ log_stream_id: logStream, traces: [{ id: randomUUID(), name: 't', spans: Array.from({ length: n }, (_, i) => ({ type: 'llm', id: randomUUID(), output: `answer ${i}` })) }] }));
  const settled = async (expected) => {
    for (;;) {
      const j = await jobs();
      if (j.pending + j.computing === 0) {
        if (j.succeeded !== expected) throw new Error(`expected ${expected} successes, got ${JSON.stringify(j)}`);
        return;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  // Warm-up: a first record (the upload started one interpreter; a second starts as jobs wait), then a batch.
  const firstStarted = performance.now();
  await ingest(1);
  await settled(1);
  const firstMs = performance.now() - firstStarted;
  await ingest(200);
  await settled(201);

  const began = performance.now();
  for (let sent = 0; sent < JUDGED; sent += 100) await ingest(Math.min(100, JUDGED - sent));
  await settled(201 + JUDGED);
  const seconds = (performance.now() - began) / 1000;
  console.log('\nCode scorers: a trivial scorer_fn (len of the output) through the scoring workers and the Pyodide sandbox (defaults: 8 workers, 2 interpreters)');
  console.log(`  upload (compiled in a new interpreter, its start included): ${fmt(uploadMs)} ms; first record scored ${fmt(firstMs)} ms after its ingest`);
  console.log(`  ${JUDGED} records scored in ${fmt(seconds)} s, warm: ${fmt(JUDGED / seconds)} judgments/s`);
} finally {
  await server.stop('SIGKILL');
}

// The sandbox alone: as many calls at once as the server's workers make, its interpreters warmed first.
const sandbox = new PyodideSandbox(DEFAULT_SANDBOX_SETTINGS);
try {
  const file = { key: 'bench', fileName: 'length.py', code: SCORER, tenant: 'bench' };
  const args = (i) => ({ index: String(i), node_input: '', node_output: `answer ${i}`, node_name: 't', node_type: 'llm', node_id: String(i), tools: null, dataset_variables: {} });
  await Promise.all(Array.from({ length: 200 }, (_, i) => sandbox.score(file, args(i))()));
  const calls = JUDGED * 5;
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < calls) {
        const r = await sandbox.score(file, args(next++))();
        if (r._tag !== 'Right') throw new Error(JSON.stringify(r));
      }
    }),
  );
  const s = (performance.now() - t0) / 1000;
  console.log(`  the sandbox alone (${DEFAULT_SANDBOX_SETTINGS.workers} interpreters, 8 calls at once): ${calls} calls in ${fmt(s)} s, ${fmt(calls / s)} calls/s`);
} finally {
  await sandbox.close();
}
