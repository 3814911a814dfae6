// The retention sweep over a real SQLite file: batch after batch until nothing old is left, one log
// line for the sweep, every batch counted; a sweep that meets failing storage stops and says so.
import { SqliteStorage } from '@tracelight/sqlite';
import { RetentionUseCases } from '@tracelight/use-cases';
import { aProject, aRecord, aRun, aUser, right, recordingLogger } from '@tracelight/testkit';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RetentionSweep } from './retention';

const DAY_MS = 86_400_000;

describe('RetentionSweep', () => {
  const logger = recordingLogger();
  const lines = logger.lines;
  let storage: SqliteStorage;
  beforeEach(async () => {
    lines.length = 0;
    storage = new SqliteStorage({ path: path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-retention-')), 'tl.db') });
    await storage.open();
  });
  afterEach(() => storage.close());

  const sweeper = (counted: number[]) =>
    new RetentionSweep(new RetentionUseCases({ records: storage.repositories.logRecords, clock: { now: () => new Date(), elapsedMs: () => performance.now() } }), logger, (n) => counted.push(n), {
      keepDays: 7,
      batch: 2,
    });

  it('removes old records batch by batch until none is left, logs the sweep once, and keeps the recent ones', async () => {
    const r = storage.repositories;
    const run = await right(r.runs.insert(aRun(await right(r.projects.insert(aProject((await right(r.users.insert(aUser()))).id))))));
    const old = Array.from({ length: 5 }, (_, i) => aRecord(run, { createdAt: new Date(Date.now() - (8 + i) * DAY_MS) }));
    const recent = aRecord(run, { createdAt: new Date(Date.now() - 6 * DAY_MS) });
    await right(r.logRecords.ingest(run.id, [...old, recent], []));

    // stop() right after start(): the batch under way finishes, no other starts, and the line says so.
    const stopped: number[] = [];
    const first = sweeper(stopped);
    first.start();
    await first.stop();
    expect(stopped).toEqual([2]);
    expect(lines.splice(0)).toEqual([{ level: 'info', fields: expect.objectContaining({ removed: 2, complete: false }), message: 'retention sweep removed old records' }]);

    const counted: number[] = [];
    const sweep = sweeper(counted);
    sweep.start();
    for (let waited = 0; lines.length === 0 && waited < 60_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    await sweep.stop();
    expect(counted).toEqual([2, 1]);
    expect(lines).toEqual([{ level: 'info', fields: expect.objectContaining({ removed: 3, complete: true }), message: 'retention sweep removed old records' }]);
    const left = await right(r.logRecords.search({ projectId: run.projectId, runId: run.id, scope: 'traces', filters: [], sort: null, page: { startingToken: 0, limit: 10 }, maxBytes: 1 << 30, maxMs: 60_000 }));
    expect(left.items.map((x) => x.id)).toEqual([recent.id]);
  });

  it('stops a sweep that meets failing storage, saying so, and does not count what it did not remove', async () => {
    const counted: number[] = [];
    const sweep = sweeper(counted);
    await storage.close();
    sweep.start();
    await sweep.stop();
    expect(counted).toEqual([]);
    expect(lines).toEqual([{ level: 'error', fields: expect.objectContaining({ removed: 0 }), message: 'retention sweep stopped early; the next one goes on' }]);
  });
});
