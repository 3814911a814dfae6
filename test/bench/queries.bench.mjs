// Queries at a million spans: loads realistic LLM traces (llm-corpus.mjs: ~10 spans a trace, ~1 KB
// prompts, OpenInference attributes on the OTLP side) into one log stream over HTTP, then prints p50/p99
// of the queries people (and the console) make most, each filter type matching under 0.1 % of the run,
// ingest spans/s for the same spans as JSON and as OTLP protobuf, and the bytes a span takes on disk,
// table by table (SQLite's dbstat). Prints figures; asserts nothing.
//   node test/bench/queries.bench.mjs                       (1M spans: the default)
//   BENCH_SPANS=100000 node test/bench/queries.bench.mjs    (a smaller run, for iterations)
//   BENCH_SPANS=0 …                                         (ingest alone: JSON against OTLP)
//   BENCH_SERVER=/path/to/apps/server/dist/main.js …        (another build of the server: before/after)
import { Agent as httpAgent, request as httpRequest } from 'node:http';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { ROOT, SERVER_MAIN as MAIN, startBenchServer } from './bench-server.mjs';
import { inputText, jsonTrace, llmCorpus, otlpSpans } from './llm-corpus.mjs';

const require = createRequire(import.meta.url);
const Database = require(require.resolve('better-sqlite3', { paths: [path.join(ROOT, 'adapters/sqlite')] }));
const { ExportTraceServiceRequest } = require(path.join(ROOT, 'adapters/http-koa/dist/otlp/otlp-trace.proto.js'));

const SPANS = Number(process.env.BENCH_SPANS ?? 1_000_000);
const INGEST_SPANS = Number(process.env.BENCH_INGEST_SPANS ?? 50_000);
const REPEATS = Number(process.env.BENCH_QUERY_REPEATS ?? 100);
const SPANS_PER_TRACE = 10;
const TRACES_PER_BATCH = 50; // 500 spans (550 records) a request, JSON and OTLP alike
const CONCURRENCY = 4;
const TRACES = Math.ceil(SPANS / SPANS_PER_TRACE);
const corpus = llmCorpus();
/** One batch in this many is sent with is_complete false: the rare boolean. */
const INCOMPLETE_EVERY = 2000;

const fmt = (n) => n.toLocaleString('en-US', { maximumFractionDigits: 1 });
const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

// --- the server -------------------------------------------------------------------------------
const server = await startBenchServer({
  env: {
    TRACELIGHT_BODY_LIMIT: '64mb',
    // Every query is timed to its end, however long it reads.
    TRACELIGHT_SEARCH_TIMEOUT_MS: '3600000',
    // Nothing is scored here: the metric column's scorer only names the column.
    TRACELIGHT_SCORING_WORKERS: '0',
  },
  prefix: 'tracelight-queries-',
});
const { base, call, token, dataDir } = server;
const stopServer = () => server.stop();
const project = await call('POST', '/v2/projects', { name: 'queries' });
const newRun = async (name) => (await call('POST', `/v2/projects/${project.id}/log_streams`, { name })).id;

// Requests over kept-alive node:http connections, bodies as Buffers: the client shares the two cores.
const agent = new httpAgent({ keepAlive: true, maxSockets: CONCURRENCY });
const post = (url, body, headers) =>
  new Promise((resolve, reject) => {
    const req = httpRequest(new URL(url), { method: 'POST', agent, headers: { 'content-length': body.length, authorization: `Bearer ${token}`, ...headers } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${url}: ${res.statusCode} ${Buffer.concat(chunks).toString().slice(0, 300)}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
/** Sends `count` bodies made by `bodyOf(i)` on CONCURRENCY connections; returns the seconds it took. */
const send = async (count, bodyOf, sendOne) => {
  let next = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) await sendOne(await bodyOf(next++));
    }),
  );
  return Number(process.hrtime.bigint() - t0) / 1e9;
};
/** CPU time the server has used (every thread), in µs: beside spans/s, what a span costs it, which a shared machine's neighbours do not move as they move throughput. */
const serverCpuMicros = server.cpuMicros;
const tracesOf = (batch, first) => Array.from({ length: TRACES_PER_BATCH }, (_, k) => corpus.trace(first + batch * TRACES_PER_BATCH + k));
const jsonBody = (run, traces, isComplete = true) => Buffer.from(JSON.stringify({ log_stream_id: run, is_complete: isComplete, traces: traces.map(jsonTrace) }));
const otlpBody = (traces) =>
  Buffer.from(ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject({
    resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'support-agent' } }] }, scopeSpans: [{ scope: { name: 'openinference.instrumentation.openai', version: '0.1.0' }, spans: traces.flatMap(otlpSpans) }] }],
  })).finish());
const sendJson = (body) => post(`${base}/v2/projects/${project.id}/traces`, body, { 'content-type': 'application/json' });
const sendOtlp = (logstream) => (body) => post(`${base}/v1/traces`, body, { 'content-type': 'application/x-protobuf', project: 'queries', logstream });

console.log(`Tracelight queries benchmark — node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}; server ${path.relative(process.cwd(), MAIN)}`);

// --- 1. ingest: the same spans as JSON and as OTLP protobuf ------------------------------------
{
  // Traces past those of the loaded run, so that the two share nothing.
  const first = TRACES + 1000;
  const batches = Math.max(1, Math.floor(INGEST_SPANS / (SPANS_PER_TRACE * TRACES_PER_BATCH)));
  const warmUp = 10;
  const jsonWarm = await newRun('json-warm-up');
  await send(warmUp, (i) => jsonBody(jsonWarm, tracesOf(i, first)), sendJson);
  await send(warmUp, (i) => otlpBody(tracesOf(i, first)), sendOtlp('otlp-warm-up'));
  // Made before the clock starts: the client shares this machine's cores with the server.
  const jsonRun = await newRun('json-ingest');
  const jsonBodies = Array.from({ length: batches }, (_, i) => jsonBody(jsonRun, tracesOf(warmUp + i, first)));
  const otlpBodies = Array.from({ length: batches }, (_, i) => otlpBody(tracesOf(warmUp + i, first)));
  const spans = batches * TRACES_PER_BATCH * SPANS_PER_TRACE;
  const size = (bodies) => fmt(bodies.reduce((n, b) => n + b.length, 0) / spans);
  // Alternately, twice each: the machine's speed drifts, and each figure is the better of its two.
  const rates = { json: [], otlp: [] };
  const cpu = { json: [], otlp: [] };
  /** Each round's CPU a span by thread: the request thread (the process's first), the busiest other (the writer, or for OTLP the offload worker) and the rest. */
  const split = { json: [], otlp: [] };
  const timed = async (kind, f) => {
    const before = serverCpuMicros();
    const threadsBefore = server.threadCpu();
    rates[kind].push(spans / (await f()));
    cpu[kind].push((serverCpuMicros() - before) / spans);
    const used = Object.entries(server.threadCpu()).map(([tid, ms]) => [Number(tid), ((ms - (threadsBefore[tid] ?? 0)) * 1000) / spans]);
    const request = used.find(([tid]) => tid === server.pid)?.[1] ?? Number.NaN;
    const busiest = Math.max(...used.filter(([tid]) => tid !== server.pid).map(([, us]) => us));
    split[kind].push(`${fmt(request)} / ${fmt(busiest)} / ${fmt(cpu[kind].at(-1) - request - busiest)}`);
  };
  for (let round = 0; round < 2; round++) {
    const run = round === 0 ? jsonRun : await newRun(`json-ingest-${round}`);
    const bodies = round === 0 ? jsonBodies : jsonBodies.map((b) => Buffer.from(b.toString().replaceAll(jsonRun, run)));
    await timed('json', () => send(batches, (i) => bodies[i], sendJson));
    await timed('otlp', () => send(batches, (i) => otlpBodies[i], sendOtlp(`otlp-ingest-${round}`)));
  }
  const json = Math.max(...rates.json);
  const otlp = Math.max(...rates.otlp);
  const jsonCpu = Math.min(...cpu.json);
  const otlpCpu = Math.min(...cpu.otlp);
  const splitOf = (kind) => split[kind][cpu[kind].indexOf(Math.min(...cpu[kind]))];
  console.log(`\nIngest of ${fmt(spans)} spans (${TRACES_PER_BATCH} traces, ${TRACES_PER_BATCH * SPANS_PER_TRACE} spans a request, ${CONCURRENCY} clients), best of two rounds each; the server's CPU a span, every thread`);
  console.log(`  JSON  (POST …/traces, ${size(jsonBodies)} B a span)       ${fmt(json)} spans/s   (rounds: ${rates.json.map(fmt).join(', ')}); ${fmt(jsonCpu)} µs CPU a span`);
  console.log(`  OTLP  (POST /v1/traces protobuf, ${size(otlpBodies)} B a span) ${fmt(otlp)} spans/s   (rounds: ${rates.otlp.map(fmt).join(', ')}) = ${fmt((100 * otlp) / json)} % of JSON; ${fmt(otlpCpu)} µs CPU a span = ${fmt((100 * otlpCpu) / jsonCpu)} % of JSON's`);
  console.log(`  CPU a span by thread, request thread / busiest other (the writer; OTLP's offload worker) / the rest: JSON ${splitOf('json')} µs, OTLP ${splitOf('otlp')} µs`);
}

if (SPANS === 0) {
  agent.destroy();
  await stopServer();
  process.exit(0);
}

// --- 2. the run of SPANS spans -------------------------------------------------------------------
const run = await newRun('million');
// The metric column: a scorer named after the metric the spans carry. Sampled at 0 where sample rates
// are known, so that no job is queued; ignored where they are not.
const scorer = await call('POST', '/v2/scorers', { name: 'num_input_tokens', scorer_type: 'llm' });
await call('POST', `/v2/scorers/${scorer.id}/version/llm`, { instructions: 'count' });
await call('POST', `/v2/projects/${project.id}/runs/${run}/scorer-settings`, { scorers: [{ scorer_id: scorer.id, sample_rate: 0 }] }).catch(() =>
  call('POST', `/v2/projects/${project.id}/runs/${run}/scorer-settings`, { scorers: [{ scorer_id: scorer.id }] }),
);
{
  const batches = Math.ceil(TRACES / TRACES_PER_BATCH);
  const seconds = await send(batches, (i) => jsonBody(run, tracesOf(i, 0), i % INCOMPLETE_EVERY !== 7), sendJson);
  console.log(`\nLoaded ${fmt(TRACES * SPANS_PER_TRACE)} spans (${fmt(TRACES)} traces) into one log stream over HTTP in ${fmt(seconds)} s: ${fmt((TRACES * SPANS_PER_TRACE) / seconds)} spans/s, the text made as it went`);
}
agent.destroy();

// --- 3. bytes per span ----------------------------------------------------------------------------
{
  // A read-only look at the file the server writes (WAL: it sees every commit).
  const db = new Database(path.join(dataDir, 'tracelight.db'), { readonly: true, fileMustExist: true });
  const records = db.prepare('SELECT count(*) FROM log_records').pluck().get();
  const traces = db.prepare("SELECT count(*) FROM log_records WHERE type = 'trace'").pluck().get();
  const spans = records - traces;
  const tables = db.prepare('SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC').all();
  const total = tables.reduce((n, t) => n + t.bytes, 0);
  db.close();
  const files = ['tracelight.db', 'tracelight.db-wal'].map((f) => { try { return fs.statSync(path.join(dataDir, f)).size; } catch { return 0; } });
  console.log(`\nStorage: ${fmt(records)} records (${fmt(spans)} spans, ${fmt(traces)} traces); pages in use ${fmt(total / 2 ** 20)} MiB = ${fmt(total / spans)} B a span (file ${fmt(files[0] / 2 ** 20)} MiB, WAL ${fmt(files[1] / 2 ** 20)} MiB)`);
  for (const t of tables.filter((x) => x.bytes / total >= 0.001)) console.log(`  ${t.name.padEnd(36)} ${fmt(t.bytes / 2 ** 20).padStart(9)} MiB  ${fmt(t.bytes / spans).padStart(7)} B a span`);
}

// --- 4. the queries -----------------------------------------------------------------------------
const pickTrace = (k) => corpus.trace(Math.floor(((k * 7919) % 9973) / 9973 * TRACES));
const lastMs = corpus.trace(TRACES - 1).startMs;
/** How many of the loaded spans a predicate matches: the figure beside each rare filter. */
const countSpans = (predicate) => {
  let n = 0;
  for (let i = 0; i < TRACES; i++) {
    const t = corpus.trace(i);
    for (const s of t.spans) if (predicate(t, s, i)) n++;
  }
  return n;
};
// The needles: a common word, a customer's name (a few traces), a tenant's tag, one tool call's id.
const rareTrace = corpus.trace(Math.floor(TRACES / 3));
const rareCustomer = rareTrace.customer;
const rareTenant = rareTrace.tenant;
const rareToolCall = corpus.trace(Math.floor(TRACES / 5)).spans[4].toolCallId;
const spansOf = (filters, extra = {}) => ({ log_stream_id: run, limit: 50, filters, ...extra });
const Q = (name, route, body, matches) => ({ name, route, body, matches });
const queries = [
  Q('a trace by id (its spans)', 'spans', (k) => ({ log_stream_id: run, limit: 100, filters: [{ column_id: 'trace_id', type: 'id', operator: 'eq', value: pickTrace(k).traceId }] }), 'its 10 spans'),
  Q('children of a span', 'spans', (k) => spansOf([{ column_id: 'parent_id', type: 'id', operator: 'eq', value: pickTrace(k).spans[0].id }]), '9 spans'),
  Q("a session's traces", 'traces', (k) => spansOf([{ column_id: 'session_id', type: 'id', operator: 'eq', value: pickTrace(k).sessionId }]), '5 traces'),
  Q('latest 50 traces', 'traces', () => ({ log_stream_id: run, limit: 50 }), 'all traces'),
  Q('span kind = llm', 'spans', () => spansOf([{ column_id: 'type', type: 'text', operator: 'eq', value: 'llm' }]), '30 %'),
  Q('input contains a common word', 'spans', () => spansOf([{ column_id: 'input', type: 'text', operator: 'contains', value: 'refund' }]), () => countSpans((t, s) => inputText(s).toLowerCase().includes('refund'))),
  Q('input contains a rare word (a name)', 'spans', () => spansOf([{ column_id: 'input', type: 'text', operator: 'contains', value: rareCustomer.split(' ')[0] }]), () => countSpans((t, s) => inputText(s).toLowerCase().includes(rareCustomer.split(' ')[0].toLowerCase()))),
  Q('metric range (num_input_tokens 450-470)', 'spans', () => spansOf([{ column_id: 'metrics/num_input_tokens', type: 'number', operator: 'between', value: [450, 470] }]), () => countSpans((t, s) => s.tokens !== undefined && s.tokens.prompt >= 450 && s.tokens.prompt <= 470)),
  Q('a tag (web)', 'spans', () => spansOf([{ column_id: 'tags', type: 'collection', operator: 'contains', value: ['web'] }]), '~50 %'),
  Q('created_at range (last 10 minutes)', 'spans', () => spansOf([{ column_id: 'created_at', type: 'date', operator: 'between', value: [new Date(lastMs - 600_000).toISOString(), new Date(lastMs + 10_000).toISOString()] }]), '~6,000'),
  Q('rare text: tool_call_id = one call', 'spans', () => spansOf([{ column_id: 'tool_call_id', type: 'text', operator: 'eq', value: rareToolCall }]), '1'),
  Q('rare number: status_code = 500', 'spans', () => spansOf([{ column_id: 'status_code', type: 'number', operator: 'eq', value: 500 }]), () => countSpans((t, s) => s.failed === true)),
  Q('rare date: created_at within 2 s', 'spans', () => spansOf([{ column_id: 'created_at', type: 'date', operator: 'between', value: [new Date(corpus.trace(Math.floor(TRACES / 2)).startMs).toISOString(), new Date(corpus.trace(Math.floor(TRACES / 2)).startMs + 2000).toISOString()] }]), '~20'),
  Q('rare id: session_id (its spans)', 'spans', (k) => spansOf([{ column_id: 'session_id', type: 'id', operator: 'eq', value: pickTrace(k + 1).sessionId }]), '~50'),
  Q('rare collection: tags contains a tenant', 'spans', () => spansOf([{ column_id: 'tags', type: 'collection', operator: 'contains', value: [rareTenant] }]), () => countSpans((t) => t.tenant === rareTenant)),
  Q('rare boolean: is_complete = false', 'spans', () => spansOf([{ column_id: 'is_complete', type: 'boolean', operator: 'eq', value: false }]), () => countSpans((t, s, i) => Math.floor(i / TRACES_PER_BATCH) % INCOMPLETE_EVERY === 7)),
  Q('rare metric: num_input_tokens >= 40,000', 'spans', () => spansOf([{ column_id: 'metrics/num_input_tokens', type: 'number', operator: 'gte', value: 40_000 }]), () => countSpans((t, s) => s.tokens !== undefined && s.tokens.prompt >= 40_000)),
];
console.log(`\nQueries on the run of ${fmt(TRACES * SPANS_PER_TRACE)} spans, one after another over HTTP, ${REPEATS} times each (after 3 unmeasured)`);
console.log(`  ${'query'.padEnd(44)} ${'spans it matches'.padStart(18)}  ${'p50 ms'.padStart(9)} ${'p99 ms'.padStart(9)}  first page`);
for (const q of queries) {
  const url = `/v2/projects/${project.id}/${q.route}/search`;
  const times = [];
  let found = 0;
  for (let k = -3; k < REPEATS; k++) {
    const t0 = performance.now();
    const page = await call('POST', url, q.body(Math.max(0, k)));
    if (k >= 0) times.push(performance.now() - t0);
    found = page.records.length;
  }
  const matches = typeof q.matches === 'function' ? fmt(q.matches()) : q.matches;
  console.log(`  ${q.name.padEnd(44)} ${matches.padStart(18)}  ${fmt(percentile(times, 50)).padStart(9)} ${fmt(percentile(times, 99)).padStart(9)}  ${found} records`);
}

await stopServer();
