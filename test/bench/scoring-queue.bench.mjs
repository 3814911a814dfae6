// Benchmark: what a claim of the scoring queue costs with a backlog of a million due jobs (SQLite, the
// queue itself, no server), and whom it serves. One owner's recompute has queued the backlog (backfill);
// other owners have a few live jobs, or a backfill of their own. Prints figures; asserts nothing.
//   node test/bench/scoring-queue.bench.mjs          (after pnpm build; pnpm bench runs it)
//   BENCH_QUEUE_JOBS=200000 BENCH_QUEUE_CLAIMS=500 node test/bench/scoring-queue.bench.mjs
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { SqliteDatabase, sqliteRepositories } = require(path.join(ROOT, 'adapters/sqlite/dist/index.js'));
const { aProject, aRun, aUser } = require(path.join(ROOT, 'packages/testkit/dist/index.js'));

const JOBS = Number(process.env.BENCH_QUEUE_JOBS ?? 1_000_000);
const CLAIMS = Number(process.env.BENCH_QUEUE_CLAIMS ?? 300);
const LIMIT = 8; // a server's default workers
const fmt = (n) => n.toLocaleString('en-US', { maximumFractionDigits: 2 });

const right = async (task) => {
  const r = await task();
  if (r._tag !== 'Right') throw new Error(JSON.stringify(r.left));
  return r.right;
};

/** `n` due jobs of `owner` on `run` in `lane`, written in one statement (what a recompute's requeue leaves). */
const insertJobs = (db, run, owner, n, lane, dueAt) =>
  db
    .prepare(
      `WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < @n)
       INSERT INTO scoring_jobs (run_id, project_id, record_id, trace_key, scorer_id, version, kind, metric_name, owner_id, state, due_at, created_at, updated_at, lane)
       SELECT @run, @project, @owner || '-' || n, 'trace', 'scorer', 1, 'llm', 'judge', @owner, 'pending', @dueAt, @dueAt, @dueAt, @lane FROM i`,
    )
    .run({ n, run: run.id, project: run.projectId, owner, lane, dueAt });

const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

/** Times CLAIMS claims of LIMIT jobs at `now` (each leaves its jobs computing); their cost and whom they served. */
const measure = async (queue, now) => {
  const ms = [];
  const served = new Map();
  const lastClaim = new Map();
  for (let i = 0; i < CLAIMS; i++) {
    const t = process.hrtime.bigint();
    const got = await right(queue.claim('bench', LIMIT, now, new Date(now.getTime() + 3_600_000)));
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
    for (const j of got) {
      served.set(j.ownerId, (served.get(j.ownerId) ?? 0) + 1);
      lastClaim.set(j.ownerId, i + 1);
    }
  }
  return { median: percentile(ms, 0.5), p99: percentile(ms, 0.99), served, lastClaim };
};

const scenario = async (name, setUp) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-bench-queue-'));
  const database = new SqliteDatabase({ path: path.join(dir, 'db.sqlite'), synchronous: 'NORMAL' });
  try {
    const r = sqliteRepositories(database);
    const user = await right(r.users.insert(aUser()));
    const run = await right(r.runs.insert(aRun(await right(r.projects.insert(aProject(user.id))))));
    const started = Date.now();
    const describe = setUp((owner, n, lane, dueAt) => insertJobs(database.db, run, owner, n, lane, dueAt));
    database.db.exec('ANALYZE');
    const written = Date.now() - started;
    const { median, p99, served, lastClaim } = await measure(r.scoringQueue, new Date());
    console.log(`${name}`);
    console.log(`  ${describe} (written in ${fmt(written / 1000)} s)`);
    console.log(`  claim of ${LIMIT}: median ${fmt(median)} ms, p99 ${fmt(p99)} ms over ${CLAIMS} claims`);
    const top = [...served.entries()].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([o, n]) => `${o} ${n}`);
    console.log(`  jobs handed out by owner (most first): ${top.join(', ')}${served.size > 4 ? `, … (${served.size} owners)` : ''}`);
    if (lastClaim.has('bob')) console.log(`  bob's last job handed out by claim ${lastClaim.get('bob')} of ${CLAIMS}`);
  } finally {
    database.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
};

const old = Date.now() - 86_400_000;
await scenario(`carol's recompute of ${fmt(JOBS)} spans, bob's live spans arriving after it`, (add) => {
  add('carol', JOBS, 1, old);
  add('bob', 1_000, 0, Date.now() - 1_000);
  return `${fmt(JOBS)} backfill jobs of carol, due a day ago; 1,000 live jobs of bob, due a second ago`;
});
await scenario(`carol's recompute of ${fmt(JOBS)} spans, then bob's of 100`, (add) => {
  add('carol', JOBS, 1, old);
  add('bob', 100, 1, Date.now() - 1_000);
  return `${fmt(JOBS)} backfill jobs of carol, due a day ago; 100 backfill jobs of bob, due a second ago`;
});
await scenario(`${fmt(JOBS)} backfill jobs, half of carol's, half spread over 1,000 owners`, (add) => {
  const each = Math.floor(JOBS / 2 / 1_000);
  for (let i = 0; i < 1_000; i++) add(`owner-${String(i).padStart(4, '0')}`, each, 1, old + i);
  add('carol', JOBS - each * 1_000, 1, old - 1);
  return `${fmt(each * 1_000)} backfill jobs of 1,000 owners, ${fmt(JOBS - each * 1_000)} of carol (the oldest)`;
});
