// Benchmark of the console: the size of what it ships (each built file raw, gzip and brotli, as the
// server sends it), and the time to its first table on a large run in real headless Chromium: from the
// start of a page load (cached assets, a signed-in browser: a person opening a link) to the records
// table rendered with its first page. Prints figures; asserts nothing.
//   pnpm bench                                  (all benchmarks; this one at 1,000,000 spans)
//   BENCH_CONSOLE_SPANS=200000 node test/bench/console.bench.mjs
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { ADMIN, launchBrowser, ROOT, signIn, startServer } from '../console/launch.mjs';

const SPANS = Number(process.env.BENCH_CONSOLE_SPANS ?? 1_000_000);
const SPANS_PER_TRACE = 10; // a trace and its 10 spans
const TRACES_PER_REQUEST = 90; // 990 records, ~0.9 MB a request
const CONCURRENCY = 4;
const LOADS = 5;
const fmt = (n, digits = 1) => n.toLocaleString('en-US', { maximumFractionDigits: digits });
const kb = (bytes) => `${fmt(bytes / 1024)} KB`;

// --- what the console ships --------------------------------------------------------------------
const dist = path.join(ROOT, 'apps/console/dist');
const files = [];
const walk = (dir) => {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (!/\.(br|gz)$/.test(e.name)) {
      const raw = fs.readFileSync(p);
      const companion = (suffix, make) => (fs.existsSync(p + suffix) ? fs.statSync(p + suffix).size : make(raw).length);
      files.push({
        name: path.relative(dist, p),
        raw: raw.length,
        gzip: companion('.gz', (b) => zlib.gzipSync(b, { level: 9 })),
        br: companion('.br', (b) => zlib.brotliCompressSync(b)),
      });
    }
  }
};
walk(dist);
console.log('\nConsole assets (apps/console/dist, as served: brotli to browsers that take it)');
console.log('| file | raw | gzip | brotli |\n| --- | --- | --- | --- |');
for (const f of files.sort((a, b) => b.raw - a.raw)) console.log(`| ${f.name} | ${kb(f.raw)} | ${kb(f.gzip)} | ${kb(f.br)} |`);
const sum = (k) => files.reduce((s, f) => s + f[k], 0);
console.log(`| total | ${kb(sum('raw'))} | ${kb(sum('gzip'))} | ${kb(sum('br'))} |`);

// --- a large run -----------------------------------------------------------------------------
const server = await startServer({ TRACELIGHT_RATE_LIMIT_PER_MINUTE: '0', TRACELIGHT_PASSWORD_COST: '14' });
try {
  const login = await fetch(`${server.baseUrl}/login`, { method: 'POST', body: new URLSearchParams({ username: ADMIN.email, password: ADMIN.password }) });
  const auth = { authorization: `Bearer ${(await login.json()).access_token}` };
  const post = async (p, body) => {
    const res = await fetch(`${server.baseUrl}${p}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
    if (!res.ok) throw new Error(`${p} answered ${res.status}: ${await res.text()}`);
    return res.json();
  };
  const project = await post('/v2/projects', { name: 'large' });
  const run = await post(`/v2/projects/${project.id}/log_streams`, { name: `${fmt(SPANS, 0)} spans` });
  const scorer = await post('/v2/scorers', { name: 'toxicity', scorer_type: 'llm', label: 'Toxicity', threshold: { buckets: [0.3, 0.7], display_value_levels: ['Low', 'Medium', 'High'], inverted: true } });
  await post(`/v2/scorers/${scorer.id}/version/llm`, { instructions: 'Rate toxicity', output_type: 'percentage' });
  await post(`/v2/projects/${project.id}/runs/${run.id}/scorer-settings`, { scorers: [{ scorer_id: scorer.id }] });

  const start = Date.now() - SPANS * 10; // 10 ms apart, the newest now
  const span = (t, k, at) => ({
    type: k % 3 === 0 ? 'llm' : k % 3 === 1 ? 'tool' : 'retriever',
    name: `step ${k}`,
    input: k % 3 === 0 ? [{ role: 'user', content: `question ${t}.${k}: where is my order?` }] : `input ${t}.${k}`,
    output: k % 3 === 0 ? { role: 'assistant', content: `answer ${t}.${k}: it ships tomorrow.` } : `output ${t}.${k}`,
    created_at: new Date(at + k).toISOString(),
    tags: ['bench'],
    ...(k % 3 === 0 ? { model: t % 2 ? 'gpt-4o-mini' : 'claude-3-5-haiku', metrics: { duration_ns: 2e8, toxicity: ((t * 7 + k) % 100) / 100 } } : { metrics: { duration_ns: 5e7 } }),
    ...(t % 50 === 7 && k === 1 ? { status_code: 500, error_message: 'tool failed' } : {}),
  });
  const traces = Math.ceil(SPANS / SPANS_PER_TRACE);
  const bodyOf = (first) => {
    const list = [];
    for (let t = first; t < Math.min(traces, first + TRACES_PER_REQUEST); t++) {
      const at = start + t * SPANS_PER_TRACE * 10;
      list.push({ name: `conversation ${t}`, input: `question ${t}`, output: `answer ${t}`, created_at: new Date(at).toISOString(), spans: Array.from({ length: SPANS_PER_TRACE }, (_, k) => span(t, k, at)) });
    }
    return JSON.stringify({ log_stream_id: run.id, traces: list });
  };
  const began = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let first = (next += TRACES_PER_REQUEST) - TRACES_PER_REQUEST; first < traces; first = (next += TRACES_PER_REQUEST) - TRACES_PER_REQUEST) await post(`/v2/projects/${project.id}/traces`, bodyOf(first));
    }),
  );
  const seconds = (performance.now() - began) / 1000;
  console.log(`\nSeeded ${fmt(traces * SPANS_PER_TRACE, 0)} spans in ${fmt(traces, 0)} traces through the API in ${fmt(seconds)} s (${fmt((traces * (SPANS_PER_TRACE + 1)) / seconds, 0)} records/s)`);

  // --- time to the first table ---------------------------------------------------------------
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    await signIn(page, server.baseUrl);
    const runPage = `${server.baseUrl}/console/projects/${project.id}/log_streams/${run.id}`;
    const views = [
      ['traces, newest first', runPage],
      ['spans, newest first', `${runPage}?tab=spans`],
      ['spans, model = claude… (text filter)', `${runPage}?tab=spans&filters=${encodeURIComponent(JSON.stringify([{ type: 'text', column_id: 'model', operator: 'eq', value: 'claude-3-5-haiku' }]))}`],
      ['spans, toxicity ≥ 0.7 (metric filter)', `${runPage}?tab=spans&filters=${encodeURIComponent(JSON.stringify([{ type: 'number', column_id: 'metrics/toxicity', operator: 'gte', value: 0.7 }]))}`],
      ['spans, last hour', `${runPage}?tab=spans&range=1h`],
      ['a trace (waterfall, 10 spans)', null],
    ];
    console.log(`\nTime to the first table in Chromium (${fmt(traces * SPANS_PER_TRACE, 0)}-span run; page load to the table's first page rendered; ${LOADS} loads each, assets cached)`);
    console.log('| view | median | each load |\n| --- | --- | --- |');
    for (const [label, url] of views) {
      const times = [];
      for (let i = 0; i < LOADS; i++) {
        if (url === null) {
          // The newest trace, opened by its link: the waterfall's rows rendered.
          await page.goto(runPage);
          const link = page.locator('table.records-table tbody tr a.open-link').first();
          await link.waitFor({ timeout: 120_000 });
          const href = await link.getAttribute('href');
          const t0 = Date.now();
          await page.goto(`${server.baseUrl}${href}`);
          await page.locator('.waterfall-row').nth(SPANS_PER_TRACE).waitFor({ timeout: 120_000 });
          times.push(Date.now() - t0);
          continue;
        }
        await page.goto(url);
        await page.waitForFunction(() => performance.getEntriesByName('tracelight:first-table-render').length > 0, undefined, { timeout: 120_000 });
        times.push(await page.evaluate(() => performance.getEntriesByName('tracelight:first-table-render')[0].startTime));
      }
      const sorted = [...times].sort((a, b) => a - b);
      console.log(`| ${label} | ${fmt(sorted[Math.floor(sorted.length / 2)], 0)} ms | ${times.map((t) => fmt(t, 0)).join(' / ')} ms |`);
    }
  } finally {
    await browser.close();
  }
} finally {
  await server.stop();
}
