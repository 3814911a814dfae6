// The purge of deleted projects over a real SQLite file (writer thread): a project retired by a
// DELETE (or by another process) is purged step by step in the background, found again on the next
// start when a stop cut it short, and counted; nothing of another project is touched.
import { SqliteDatabase, SqliteStorage } from '@tracelight/sqlite';
import { ProjectUseCases } from '@tracelight/use-cases';
import { aProject, aRecord, aRun, aUser, right, recordingLogger } from '@tracelight/testkit';
import { TimeOrderedUuid4IdGenerator } from '@tracelight/credentials';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ProjectPurge } from './project-purge';

describe('ProjectPurge', () => {
  const logger = recordingLogger();
  const lines = logger.lines;
  let storage: SqliteStorage;
  let file: string;
  let projects: ProjectUseCases;
  beforeEach(async () => {
    lines.length = 0;
    file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-purge-')), 'tl.db');
    storage = new SqliteStorage({ path: file });
    await storage.open();
    const r = storage.repositories;
    projects = new ProjectUseCases({ projects: r.projects, runs: r.runs, clock: { now: () => new Date(), elapsedMs: () => performance.now() }, ids: new TimeOrderedUuid4IdGenerator() });
  });
  afterEach(() => storage.close());

  /** A stored user, and the principal it acts as. */
  const anOwner = async () => {
    const owner = await right(storage.repositories.users.insert(aUser()));
    return { owner, principal: { userId: owner.id, email: owner.email, role: owner.role, scheme: 'bearer', apiKeyId: null } as const };
  };
  /** A project of the owner with one run of `records` records. */
  const aProjectWith = async (owner: ReturnType<typeof aUser>, records: number) => {
    const r = storage.repositories;
    const project = await right(r.projects.insert(aProject(owner.id)));
    const run = await right(r.runs.insert(aRun(project)));
    for (let i = 0; i < records; i += 5_000) await right(r.logRecords.ingest(run.id, Array.from({ length: Math.min(5_000, records - i) }, () => aRecord(run)), []));
    return { project, run };
  };
  const until = async (done: () => Promise<boolean>) => {
    for (let waited = 0; !(await done()); waited += 2) {
      if (waited > 30_000) throw new Error('the purge did not get there');
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  };

  it('purges a retired project in the background, goes on after a stop on the next start, and touches no other project', async () => {
    const r = storage.repositories;
    const { owner, principal } = await anOwner();
    const doomed = await aProjectWith(owner, 30_000);
    const kept = await aProjectWith(owner, 10);
    expect(await right(projects.delete(principal, doomed.project.id))).toEqual(doomed.project);
    expect(await right(r.projects.findById(doomed.project.id))).toEqual({ _tag: 'None' });

    // Stopped once it is under way: the step in hand finishes, none after it, and the project stays retired.
    const reader = new SqliteDatabase({ path: file, readonly: true });
    const stored = () => reader.db.prepare('SELECT COUNT(*) FROM log_records WHERE run_id = ?').pluck().get(doomed.run.id) as number;
    const counted: number[] = [];
    const first = new ProjectPurge(projects, logger, (n) => counted.push(n), { everyMs: 10 });
    first.start();
    await until(async () => stored() < 30_000);
    await first.stop();
    const firstRemoved = 30_000 - stored();
    expect(firstRemoved % 1_000).toBe(0);
    expect(firstRemoved).toBeLessThan(30_000);
    expect(lines.splice(0)).toEqual([
      { level: 'info', fields: expect.objectContaining({ project_id: doomed.project.id, runs: 0, records: firstRemoved, finished: false }), message: 'purge of a deleted project paused: the next start goes on' },
    ]);
    expect(await right(r.projects.retired(10))).toEqual([doomed.project.id]);

    // The next start goes on, and finishes it.
    const second = new ProjectPurge(projects, logger, (n) => counted.push(n), { everyMs: 10 });
    second.start();
    await until(async () => (await right(r.projects.retired(10))).length === 0);
    await second.stop();
    reader.close();
    // Counted step by step: 30 steps of 1,000 records, the first purge's among them.
    expect(counted).toEqual(Array.from({ length: 30 }, () => 1_000));
    expect(lines).toEqual([{ level: 'info', fields: expect.objectContaining({ project_id: doomed.project.id, runs: 1, records: 30_000 - firstRemoved, finished: true }), message: 'deleted project purged' }]);
    const left = async (run: ReturnType<typeof aRun>) =>
      (await right(r.logRecords.search({ projectId: run.projectId, runId: run.id, scope: 'traces', filters: [], sort: null, page: { startingToken: 0, limit: 100 }, maxBytes: 1 << 30, maxMs: 60_000 }))).items.length;
    expect([await left(doomed.run), await left(kept.run)]).toEqual([0, 10]);
    expect(await right(r.projects.findById(kept.project.id))).toEqual({ _tag: 'Some', value: kept.project });
  });

  it('tries a failing purge again after growing waits, counts the steps it took before the failure, purges the other deleted projects meanwhile, and goes on once storage works again', async () => {
    const r = storage.repositories;
    const { owner, principal } = await anOwner();
    const doomed = await aProjectWith(owner, 3_000);
    const other = await aProjectWith(owner, 500);
    await right(projects.delete(principal, doomed.project.id));
    // Retired later: purged after the first (longest waiting first), once the first has failed.
    await new Promise((resolve) => setTimeout(resolve, 5));
    await right(projects.delete(principal, other.project.id));
    // Storage that refuses the purge of the first project once it is under way: past its first 1,000
    // records, removing one of its records fails, as a broken page of the file would make it fail.
    const admin = new SqliteDatabase({ path: file });
    admin.db.exec(`CREATE TABLE refused AS SELECT run_id FROM log_records GROUP BY run_id HAVING COUNT(*) = 3000;
      CREATE TRIGGER refuse_purge BEFORE DELETE ON log_records
      WHEN OLD.run_id IN (SELECT run_id FROM refused) AND (SELECT COUNT(*) FROM log_records WHERE run_id = OLD.run_id) <= 2000
      BEGIN SELECT RAISE(ABORT, 'refused'); END`);

    const counted: number[] = [];
    const purge = new ProjectPurge(projects, logger, (n) => counted.push(n), { everyMs: 10, maxWaitMs: 80 });
    purge.start();
    const failures = () => lines.filter((l) => l.level === 'error');
    await until(async () => failures().length >= 5);
    // Each failure names the wait before the next try: doubling from 20 ms, then held at the cap.
    expect(failures().slice(0, 5)).toEqual(
      [20, 40, 80, 80, 80].map((retry) => ({
        level: 'error',
        fields: expect.objectContaining({ project_id: doomed.project.id, retry_in_ms: retry }),
        message: 'purge of a deleted project stopped early; the next look goes on',
      })),
    );
    // The other deleted project did not wait for it; the step done before the failure is counted, once.
    expect(lines.filter((l) => l.level === 'info')).toEqual([
      { level: 'info', fields: expect.objectContaining({ project_id: other.project.id, records: 500, finished: true }), message: 'deleted project purged' },
    ]);
    expect(await right(r.projects.retired(10))).toEqual([doomed.project.id]);
    expect(counted).toEqual([1_000, 500]);

    lines.length = 0;
    admin.db.exec('DROP TRIGGER refuse_purge');
    admin.close();
    await until(async () => (await right(r.projects.retired(10))).length === 0);
    await purge.stop();
    expect(counted).toEqual([1_000, 500, 1_000, 1_000]);
    expect(lines.filter((l) => l.level === 'info')).toEqual([
      { level: 'info', fields: expect.objectContaining({ project_id: doomed.project.id, records: 2_000, finished: true }), message: 'deleted project purged' },
    ]);
  });
});
