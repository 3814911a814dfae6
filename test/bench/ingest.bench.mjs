// Benchmark: trace ingestion through the HTTP API into SQLite, beside raw better-sqlite3 batched
// inserts of the same rows in the same run; then available_columns and a filtered spans/search at
// 0, 100k and 1M spans in one run; a maximal ingest against a probe; and the deletion (and purge) of the project
// of all those records while another project is written. Prints figures; asserts nothing.
//   pnpm bench                       (all)
//   BENCH_MAX_SPANS=100000 pnpm bench  (stop the latency table at 100k)
import { execFileSync } from 'node:child_process';
import { Agent as httpAgent, request as httpRequest } from 'node:http';
import { randomUUID } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { ROOT, startBenchServer } from './bench-server.mjs';

const require = createRequire(import.meta.url);
const sqlite = require(path.join(ROOT, 'adapters/sqlite/dist/index.js'));
const { recordToValues, RECORD_COLUMNS } = require(path.join(ROOT, 'adapters/sqlite/dist/tracing/log-record.mapper.js'));
const { presentColumns } = require(path.join(ROOT, 'domain/model/dist/index.js'));
const { TimeOrderedUuid4IdGenerator } = require(path.join(ROOT, 'adapters/credentials/dist/index.js'));

const MAX = Number(process.env.BENCH_MAX_SPANS ?? 1_000_000);
const BATCH = 500; // spans per request (one trace + 499 spans)
const HTTP_SPANS = 100_000;
const WARM_UP_BATCHES = 20;
const CONCURRENCY = 4;
// The server's own ids (time-ordered), or BENCH_RANDOM_IDS=1 for fully random version-4 ids, to see what
// time-ordered keys are worth to the indexes.
const ids = process.env.BENCH_RANDOM_IDS === '1' ? { next: randomUUID } : new TimeOrderedUuid4IdGenerator();
const PADDING = 'lorem ipsum dolor sit amet '.repeat(20); // ~540 bytes: with the rest, ~1 KB a span

const wireSpan = (i) => ({
  type: i % 5 === 0 ? 'tool' : 'llm',
  id: ids.next(),
  name: `step-${i % 50}`,
  input: [{ role: 'user', content: `question ${i}: ${PADDING}` }],
  output: { role: 'assistant', content: `answer ${i} ${PADDING.slice(0, 200)}` },
  model: i % 3 === 0 ? 'gpt-4o-mini' : 'claude-sonnet',
  temperature: 0.2,
  status_code: i % 97 === 0 ? 500 : 200,
  tags: ['bench', i % 2 ? 'odd' : 'even'],
  metrics: { duration_ns: 1000 + i, num_input_tokens: 30, num_output_tokens: 12 },
});
const wireBatch = (n) => ({ id: ids.next(), name: 'bench-trace', input: 'go', output: 'done', spans: Array.from({ length: n - 1 }, (_, i) => wireSpan(i)) });

const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const fmt = (n) => n.toLocaleString('en-US', { maximumFractionDigits: 1 });

// --- the server -----------------------------------------------------------------------------
// The search that matches nothing is timed to its end, however long it reads: no search time budget.
const startServer = async (env = {}) => {
  const server = await startBenchServer({ env: { TRACELIGHT_BODY_LIMIT: '16mb', TRACELIGHT_SEARCH_TIMEOUT_MS: '3600000', ...env } });
  const project = await server.call('POST', '/v2/projects', { name: 'bench' });
  const newRun = async (name) => (await server.call('POST', `/v2/projects/${project.id}/log_streams`, { name })).id;
  return { ...server, project, newRun };
};
const { base, call, token, project, newRun, dataDir, stop, threadCpu, pid } = await startServer();

console.log(`Tracelight benchmark — node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, SQLite synchronous=FULL, WAL`);

// --- 1. ingestion: the HTTP API, then raw better-sqlite3 inserts of the same rows -----------------
// Each on a quiet disk (`sync` first: what one run leaves for the kernel to write back would slow the
// other's fsyncs), the server after a warm-up that lets the JIT compile the ingest path.
const quietDisk = () => {
  try {
    execFileSync('sync');
  } catch {
    /* no sync(1) here: measure anyway */
  }
};
{
  // The load generator shares the two cores with the server: node:http over kept-alive connections,
  // bodies as Buffers, costs it about a third of what fetch does per request (~0.9 vs ~2.8 ms of CPU).
  const agent = new httpAgent({ keepAlive: true, maxSockets: CONCURRENCY });
  const target = new URL(`${base}/v2/projects/${project.id}/traces`);
  const post = (body) =>
    new Promise((resolve, reject) => {
      const req = httpRequest(target, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': body.length, authorization: `Bearer ${token}` } }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`ingest: ${res.statusCode} ${Buffer.concat(chunks).toString().slice(0, 300)}`))));
      });
      req.on('error', reject);
      req.end(body);
    });
  const ingest = async (run, bodies) => {
    let next = 0;
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < bodies.length) await post(bodies[next++]);
    }));
  };
  const warmUp = await newRun('warm-up');
  await ingest(warmUp, Array.from({ length: WARM_UP_BATCHES }, () => Buffer.from(JSON.stringify({ log_stream_id: warmUp, traces: [wireBatch(BATCH)] }))));
  const run = await newRun('ingest');
  // Serialised before the clock starts: the client shares this machine's two cores with the server.
  const batches = Array.from({ length: HTTP_SPANS / BATCH }, () => Buffer.from(JSON.stringify({ log_stream_id: run, traces: [wireBatch(BATCH)] })));
  quietDisk();
  const threadsBefore = threadCpu();
  const clientBefore = process.cpuUsage();
  const t1 = process.hrtime.bigint();
  await ingest(run, batches);
  const httpSeconds = Number(process.hrtime.bigint() - t1) / 1e9;
  const client = process.cpuUsage(clientBefore);
  const threadsAfter = threadCpu();
  agent.destroy();
  // Where a batch's CPU goes: the request thread (pid = its tid), every other server thread together
  // (the SQLite writer, V8's garbage collection and compiler threads, the idle offload worker), the client.
  const perBatch = (ms) => fmt(ms / batches.length);
  const spent = (tid) => (threadsAfter[tid] ?? 0) - (threadsBefore[tid] ?? 0);
  const others = Object.keys(threadsAfter).filter((tid) => tid !== String(pid)).map(spent).sort((a, b) => b - a);
  const cpuLine = Object.keys(threadsAfter).length === 0 ? '' :
    `  CPU per ${BATCH}-span batch: request thread ${perBatch(spent(String(pid)))} ms, busiest other thread (the SQLite writer) ${perBatch(others[0] ?? 0)} ms, ` +
    `the rest ${perBatch(others.slice(1).reduce((a, b) => a + b, 0))} ms, load generator ${perBatch((client.user + client.system) / 1000)} ms`;
  const http = HTTP_SPANS / httpSeconds;

  const db = new sqlite.SqliteDatabase({ path: path.join(dataDir, 'raw.db') });
  db.db.prepare('INSERT INTO users (id, email, role, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)').run('u', 'u@x', 'user', 'h', 0, 0);
  db.db.prepare('INSERT INTO projects (id, name, type, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)').run('p', 'p', 'gen_ai', 'u', 0, 0);
  db.db.prepare('INSERT INTO runs (id, project_id, name, kind, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run('r', 'p', 'r', 'log_stream', 'u', 0, 0);
  const insert = db.db.prepare(`INSERT INTO log_records (${RECORD_COLUMNS.join(', ')}) VALUES (${RECORD_COLUMNS.map(() => '?').join(', ')})`);
  const rows = [];
  for (let b = 0; b < HTTP_SPANS / BATCH; b++) {
    const t = wireBatch(BATCH);
    const traceRow = { id: t.id, traceId: t.id };
    for (const s of t.spans)
      rows.push(recordToValues({ id: s.id, type: s.type, projectId: 'p', runId: 'r', traceId: traceRow.id, parentId: traceRow.id, sessionId: null, name: s.name, input: s.input, output: s.output, createdAt: new Date(), createdAtMicros: 0, updatedAt: new Date(), tags: s.tags, userMetadata: {}, statusCode: s.status_code, externalId: null, datasetInput: null, datasetOutput: null, datasetMetadata: {}, metrics: s.metrics, isComplete: true, hasChildren: false, stepNumber: null, progressMessage: null, errorMessage: null, attributes: { model: s.model, temperature: s.temperature } }));
  }
  const at = (c) => RECORD_COLUMNS.indexOf(c);
  const bytes = rows.reduce((n, r) => n + r[at('input_text')].length + r[at('output_text')].length, 0) / rows.length;
  const writeBatch = db.db.transaction((batch) => batch.forEach((r) => insert.run(r)));
  quietDisk();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < rows.length; i += BATCH) writeBatch(rows.slice(i, i + BATCH));
  const rawSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const raw = rows.length / rawSeconds;
  db.close();

  console.log(`\nIngestion of ${fmt(HTTP_SPANS)} spans (~${fmt(bytes + 450)} B of JSON each), batches of ${BATCH}`);
  console.log(`  raw better-sqlite3 batched inserts : ${fmt(raw)} rows/s`);
  console.log(`  HTTP API, ${CONCURRENCY} concurrent clients  : ${fmt(http)} spans/s  (${fmt((100 * http) / raw)} % of raw)`);
  if (cpuLine) console.log(cpuLine);
}

// --- 2. catalogue and search latency as a run grows ------------------------------------------
{
  const run = await newRun('latency');
  const direct = new sqlite.SqliteDatabase({ path: path.join(dataDir, 'tracelight.db'), synchronous: 'NORMAL' });
  const repo = new sqlite.SqliteLogRecordRepository(direct);
  let loaded = 0;
  const loadTo = async (target) => {
    while (loaded < target) {
      const t = wireBatch(Math.min(1000, target - loaded + 1));
      const recs = t.spans.map((s) => ({ id: s.id, type: s.type, projectId: project.id, runId: run, traceId: t.id, parentId: t.id, sessionId: null, name: s.name, input: s.input, output: s.output, createdAt: new Date(), createdAtMicros: 0, updatedAt: new Date(), tags: s.tags, userMetadata: {}, statusCode: s.status_code, externalId: null, datasetInput: null, datasetOutput: null, datasetMetadata: {}, metrics: s.metrics, isComplete: true, hasChildren: false, stepNumber: null, progressMessage: null, errorMessage: null, attributes: { model: s.model, temperature: s.temperature } }));
      const present = [...new Set(recs.flatMap(presentColumns))];
      const r = await repo.ingest(run, recs, present)();
      if (r._tag !== 'Right') throw new Error(JSON.stringify(r.left));
      loaded += recs.length;
    }
  };
  const time = async (n, f) => {
    const xs = [];
    for (let i = 0; i < n; i++) {
      const t = process.hrtime.bigint();
      await f();
      xs.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    return `p50 ${fmt(percentile(xs, 50))} ms, p99 ${fmt(percentile(xs, 99))} ms`;
  };
  console.log('\nLatency in one run (sequential requests over HTTP)');
  console.log('  spans       available_columns                 spans/search (model = gpt-4o-mini AND status_code >= 500, 50 per page)');
  for (const size of [0, 100_000, 1_000_000].filter((s) => s <= MAX)) {
    await loadTo(size);
    const columns = await time(200, () => call('POST', `/v2/projects/${project.id}/spans/available_columns`, { log_stream_id: run }));
    const search = await time(50, () => call('POST', `/v2/projects/${project.id}/spans/search`, { log_stream_id: run, limit: 50, filters: [{ column_id: 'model', type: 'text', operator: 'eq', value: 'gpt-4o-mini' }, { column_id: 'status_code', type: 'number', operator: 'gte', value: 500 }] }));
    console.log(`  ${fmt(size).padEnd(10)}  ${columns.padEnd(32)}  ${search}`);
  }
  // A search whose filter matches nothing, and that no index narrows, reads the whole run; a probe calls /healthcheck every 2 ms meanwhile.
  const worstWaits = [];
  const tooks = [];
  for (let i = 0; i < 3; i++) {
    let done = false;
    const waits = [];
    const probe = (async () => {
      while (!done) {
        const t = performance.now();
        await (await fetch(`${base}/healthcheck`)).text();
        waits.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    const t0 = performance.now();
    // Two characters: no trigram for the record index to look up, so the search reads the run.
    await call('POST', `/v2/projects/${project.id}/spans/search`, { log_stream_id: run, limit: 50, filters: [{ column_id: 'model', type: 'text', operator: 'contains', value: 'zq' }] });
    tooks.push(performance.now() - t0);
    done = true;
    await probe;
    worstWaits.push(Math.max(...waits));
  }
  console.log(`  a spans/search matching none of the ${fmt(loaded)} spans, three times: ${tooks.map((x) => fmt(x)).join(' / ')} ms; /healthcheck worst wait meanwhile ${worstWaits.map((x) => fmt(x)).join(' / ')} ms`);
  direct.close();
}

// --- 3. the event loop during a maximal ingest ----------------------------------------------
// One request at TRACELIGHT_MAX_RECORDS_PER_REQUEST (10,000 records, ~10 MB; then an OTLP protobuf
// export of 10,000 spans) while a probe calls /healthcheck every 2 ms: the probe's worst wait is how
// long the server could not answer anyone.
{
  const { ExportTraceServiceRequest } = require(path.join(ROOT, 'adapters/http-koa/dist/otlp/otlp-trace.proto.js'));
  const hex = (bytes) => Buffer.from(Array.from({ length: bytes }, () => Math.floor(Math.random() * 256))).toString('hex');
  const otlpExport = (n) => {
    const traceId = Buffer.from(hex(16), 'hex');
    const start = BigInt(Date.now()) * 1_000_000n;
    const spans = Array.from({ length: n }, (_, i) => ({
      traceId,
      spanId: Buffer.from((i + 1).toString(16).padStart(16, '0'), 'hex'),
      parentSpanId: i === 0 ? undefined : Buffer.from('1'.padStart(16, '0'), 'hex'),
      name: `step-${i % 50}`,
      startTimeUnixNano: String(start + BigInt(i)),
      endTimeUnixNano: String(start + BigInt(i) + 1000n),
      attributes: [
        { key: 'openinference.span.kind', value: { stringValue: i === 0 ? 'AGENT' : 'LLM' } },
        { key: 'input.value', value: { stringValue: `question ${i}: ${PADDING}` } },
        { key: 'output.value', value: { stringValue: `answer ${i} ${PADDING.slice(0, 200)}` } },
        { key: 'llm.model_name', value: { stringValue: 'gpt-4o-mini' } },
        { key: 'llm.token_count.prompt', value: { intValue: 30 } },
        { key: 'llm.token_count.completion', value: { intValue: 12 } },
      ],
    }));
    return Buffer.from(ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject({ resourceSpans: [{ scopeSpans: [{ scope: { name: 'bench' }, spans }] }] })).finish());
  };
  const maximal = async (server, label, kind) => {
    const run = await server.newRun(`maximal-${kind}-${label}`);
    const bodies = kind === 'ingest' ? [0, 1, 2].map(() => JSON.stringify({ log_stream_id: run, traces: [wireBatch(10_000)] })) : [0, 1, 2].map(() => otlpExport(10_000));
    const send = async (body) => {
      if (kind === 'ingest') return server.call('POST', `/v2/projects/${server.project.id}/traces`, body);
      const res = await fetch(`${server.base}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf', authorization: `Bearer ${server.token}`, project: 'bench', logstream: `otlp-${label}` }, body });
      if (res.status !== 200) throw new Error(`OTLP export: ${res.status} ${await res.text()}`);
      return res.arrayBuffer();
    };
    const worst = [];
    let took = 0;
    for (const body of bodies) {
      let done = false;
      const waits = [];
      const probe = (async () => {
        while (!done) {
          const t = performance.now();
          await (await fetch(`${server.base}/healthcheck`)).text();
          waits.push(performance.now() - t);
          await new Promise((r) => setTimeout(r, 2));
        }
      })();
      const t0 = performance.now();
      await send(body);
      took += performance.now() - t0;
      done = true;
      await probe;
      worst.push(Math.max(...waits));
    }
    const size = kind === 'ingest' ? Buffer.byteLength(bodies[0]) : bodies[0].length;
    console.log(`  ${`${kind === 'ingest' ? 'ingest' : 'OTLP export'}, ${label}`.padEnd(58)} ${fmt(size / 1e6)} MB, ${fmt(took / 3)} ms; /healthcheck worst wait ${worst.map((x) => fmt(x)).join(' / ')} ms`);
  };
  console.log('\nA maximal ingest (10,000 records) and OTLP protobuf export (10,000 spans) against a /healthcheck probe every 2 ms, three times each');
  const inline = await startServer({ TRACELIGHT_OFFLOAD_WORKERS: '0' });
  for (const kind of ['ingest', 'otlp']) {
    await maximal({ base, call, token, project, newRun }, 'offload workers (default)', kind);
    await maximal(inline, 'no offload worker (TRACELIGHT_OFFLOAD_WORKERS=0)', kind);
  }
  await inline.stop();
}

// --- 4. deleting a project of many records while another project is written ----------------
// The bench project holds every record loaded above. The DELETE retires it (one short write) and is
// answered; the server's purge then removes its records in the background, a thousand a transaction,
// so that writes to another project, one after another, wait at worst for a step, which the worst
// wait below shows (a deletion in one transaction held them for all of it).
{
  const bystander = await call('POST', '/v2/projects', { name: 'bystander' });
  const stream = (await call('POST', `/v2/projects/${bystander.id}/log_streams`, { name: 'b' })).id;
  const direct = new sqlite.SqliteDatabase({ path: path.join(dataDir, 'tracelight.db'), readonly: true });
  const records = direct.db.prepare('SELECT COUNT(*) FROM log_records WHERE project_id = ?').pluck().get(project.id);
  const stored = direct.db.prepare('SELECT COUNT(*) FROM projects WHERE id = ?').pluck();
  let done = false;
  const waits = [];
  const writes = (async () => {
    while (!done) {
      const t = performance.now();
      await call('PATCH', `/v2/projects/${bystander.id}/runs/${stream}/insights-settings`, { insights: { logstream: { enabled: true } } });
      waits.push(performance.now() - t);
    }
  })();
  await new Promise((r) => setTimeout(r, 200));
  const t0 = performance.now();
  await call('DELETE', `/v2/projects/${project.id}`, undefined);
  const answered = performance.now() - t0;
  // Purged once its row is gone: the last step removes it with the runs.
  while (stored.get(project.id) > 0) await new Promise((r) => setTimeout(r, 50));
  const purged = performance.now() - t0;
  done = true;
  await writes;
  direct.close();
  console.log(`\nDeleting a project of ${fmt(records)} records over HTTP while another project is written (PATCH insights, one after another)`);
  console.log(`  DELETE answered in ${fmt(answered)} ms; purged in the background in ${fmt(purged / 1000)} s; the writes meanwhile: ${fmt(waits.length)}, p50 ${fmt(percentile(waits, 50))} ms, p99 ${fmt(percentile(waits, 99))} ms, worst ${fmt(Math.max(...waits))} ms`);
}

await stop();
