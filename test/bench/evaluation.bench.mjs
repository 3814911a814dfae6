// Benchmark: evaluation. (1) ChainPoll judgments per second through the server's scoring workers at
// their default concurrency, against the testkit's OpenAI-compatible stub answering every call in
// 200 ms (3 judges a record, one call each). (2) Ingest throughput into a run whose scorer scores every
// llm span (its jobs written with the records) beside one without scorers, in the same server, batch
// for batch in turn, while the workers judge in the background. Prints figures; asserts nothing.
//   node test/bench/evaluation.bench.mjs          (after pnpm build; pnpm bench runs it)
//   BENCH_JUDGED=1000 BENCH_INGEST_ROUNDS=30 node test/bench/evaluation.bench.mjs
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { ROOT, startBenchServer } from './bench-server.mjs';

const require = createRequire(import.meta.url);
const { OpenAiStub, judges } = require(path.join(ROOT, 'packages/testkit/dist/index.js'));

const JUDGED = Number(process.env.BENCH_JUDGED ?? 600);
const ROUNDS = Number(process.env.BENCH_INGEST_ROUNDS ?? 24);
const SPANS = 250; // spans per request
const CONCURRENCY = 4; // requests at once
const PADDING = 'lorem ipsum dolor sit amet '.repeat(20);
const fmt = (n) => n.toLocaleString('en-US', { maximumFractionDigits: 1 });

const span = (i) => ({ type: i % 5 === 0 ? 'tool' : 'llm', id: randomUUID(), name: `step-${i % 50}`, input: `question ${i}: ${PADDING}`, output: `answer ${i} ${PADDING.slice(0, 200)}` });
const body = (runId, n) => JSON.stringify({ log_stream_id: runId, traces: [{ id: randomUUID(), name: 'bench', input: 'go', output: 'done', spans: Array.from({ length: n - 1 }, (_, i) => span(i)) }] });

const stub = await OpenAiStub.start({ delayMs: 200 });
stub.answerWith(judges(true, true, false));
// The stub judging listens on 127.0.0.1, an address judges call only where it is allowed.
const server = await startBenchServer({ env: { TRACELIGHT_GATEWAY_ALLOWED_NETWORKS: '127.0.0.1/32' }, prefix: 'tracelight-bench-eval-' });
try {
  const { call } = server;
  await call('PUT', '/v2/integrations/gateway', { token: 'bench-token', endpoint: stub.url, use_case: 'BENCH' });
  const project = (await call('POST', '/v2/projects', { name: 'eval-bench' })).id;
  const scorer = await call('POST', '/v2/scorers', { name: 'rude', scorer_type: 'llm' });
  await call('POST', `/v2/scorers/${scorer.id}/version/llm`, { instructions: 'Is the output rude?', user_prompt: '{output}', num_judges: 3 });
  const run = async (name, scored) => {
    const id = (await call('POST', `/v2/projects/${project}/log_streams`, { name })).id;
    if (scored) await call('POST', `/v2/projects/${project}/runs/${id}/scorer-settings`, { scorers: [{ scorer_id: scorer.id }] });
    return id;
  };
  const status = async (runId) => (await call('GET', `/v2/projects/${project}/runs/${runId}/metrics/status`)).scorers[0].jobs;

  // (1) Judgments per second: JUDGED llm spans queued at once, timed until the last is stored.
  const judged = await run('judged', true);
  const spansPerTrace = 100;
  const began = performance.now();
  for (let sent = 0; sent < JUDGED; sent += spansPerTrace)
    await call('POST', `/v2/projects/${project}/traces`, JSON.stringify({ log_stream_id: judged, traces: [{ id: randomUUID(), name: 't', spans: Array.from({ length: Math.min(spansPerTrace, JUDGED - sent) }, (_, i) => ({ type: 'llm', id: randomUUID(), output: `answer ${i}` })) }] }));
  for (;;) {
    const jobs = await status(judged);
    if (jobs.pending + jobs.computing === 0) {
      if (jobs.succeeded !== JUDGED) throw new Error(`expected ${JUDGED} successes, got ${JSON.stringify(jobs)}`);
      break;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const seconds = (performance.now() - began) / 1000;
  console.log('\nEvaluation: ChainPoll judgments through the scoring workers (defaults: 8 workers, 8 calls per gateway), stub answering in 200 ms, 3 judges a record');
  console.log(`  ${JUDGED} records judged in ${fmt(seconds)} s: ${fmt(JUDGED / seconds)} judgments/s (${fmt((3 * JUDGED) / seconds)} judge answers/s), ${stub.completions.length} calls, at most ${stub.peakInFlight} in flight`);

  // (2) Ingest with scoring on vs off, in the same server, batch set for batch set in turn.
  const plain = await run('plain', false);
  const scored = await run('scored', true);
  const timeSet = async (runId) => {
    const bodies = Array.from({ length: CONCURRENCY }, () => body(runId, SPANS));
    const t0 = performance.now();
    await Promise.all(bodies.map((b) => call('POST', `/v2/projects/${project}/traces`, b)));
    return performance.now() - t0;
  };
  // Warm-up, both.
  for (let i = 0; i < 3; i++) {
    await timeSet(plain);
    await timeSet(scored);
  }
  const ms = { plain: 0, scored: 0 };
  for (let i = 0; i < ROUNDS; i++) {
    // Alternating which goes first, so that neither always follows the other's writes.
    const order = i % 2 === 0 ? ['plain', 'scored'] : ['scored', 'plain'];
    for (const which of order) ms[which] += await timeSet(which === 'plain' ? plain : scored);
  }
  const records = ROUNDS * CONCURRENCY * SPANS;
  const rate = (m) => records / (m / 1000);
  const queued = await status(scored);
  console.log(`\nIngest with scoring on vs off (same server, ${ROUNDS} rounds of ${CONCURRENCY} concurrent requests of ${SPANS} records; 80 % llm spans, each one job when scored; the workers judging meanwhile)`);
  console.log(`  scoring off: ${fmt(rate(ms.plain))} records/s`);
  console.log(`  scoring on:  ${fmt(rate(ms.scored))} records/s (${fmt(queued.pending + queued.computing + queued.succeeded)} jobs queued with them)`);
  console.log(`  cost of scoring to ingestion: ${fmt((1 - rate(ms.scored) / rate(ms.plain)) * 100)} %`);
} finally {
  await server.stop('SIGKILL');
  await stub.close();
}
