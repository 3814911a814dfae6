// The values index (number columns, tags, metrics) and the partial index of incomplete records, on a real
// SQLite file: a search they lead finds exactly what reading the run finds, they lead only where few
// records match, the triggers keep them true through every write and removal, and migration 14 builds
// them for records stored before.
import type { LogRecord, RecordFilter, Run } from '@tracelight/domain';
import type { RecordQuery } from '@tracelight/ports';
import { aProject, aRecord, aRun, aUser, purgeRetired, right } from '@tracelight/testkit';
import * as fc from 'fast-check';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SqliteDatabase } from '../shared/sqlite-database';
import { MIGRATIONS } from '../shared/migrations';
import { sqliteRepositories } from '../sqlite.module';
import { RECORD_COLUMNS, recordToValues } from './log-record.mapper';
import { compileSearch } from './record-query.sql';
import { leadingPath } from './record-plan';

const tempFile = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-values-')), 'tracelight.db');

let database: SqliteDatabase;
let repos: ReturnType<typeof sqliteRepositories>;
beforeEach(() => {
  database = new SqliteDatabase({ path: tempFile() });
  repos = sqliteRepositories(database);
});
afterEach(() => database.close());

const aRunStored = async (): Promise<Run> => {
  const owner = await right(repos.users.insert(aUser()));
  const project = await right(repos.projects.insert(aProject(owner.id)));
  return right(repos.runs.insert(aRun(project)));
};
const query = (run: Run, filters: RecordFilter[]): RecordQuery => ({
  projectId: run.projectId,
  runId: run.id,
  scope: 'traces',
  filters,
  sort: null,
  page: { startingToken: 0, limit: 1000 },
  maxBytes: 1 << 30,
  maxMs: 60_000,
});
const ids = async (q: RecordQuery) => (await right(repos.logRecords.search(q))).items.map((r) => r.id).sort();
const walked = (db: SqliteDatabase, q: RecordQuery) => {
  const { sql, params } = compileSearch(q, null);
  return (db.db.prepare(sql).all(...params) as Array<{ id: string }>).map((r) => r.id).sort();
};
const leadsBy = (db: SqliteDatabase, q: RecordQuery) => leadingPath((sql) => db.db.prepare(sql), q)?.index ?? null;
/** The search as the repository plans it, read straight on the connection (ids only: no record decoded). */
const led = (db: SqliteDatabase, q: RecordQuery) => {
  const { sql, params } = compileSearch(q, leadingPath((s) => db.db.prepare(s), q));
  return (db.db.prepare(sql).all(...params) as Array<{ id: string }>).map((r) => r.id).sort();
};
/** Rows (column, value, record id) in one order, whatever order they came in. */
const sorted = (rows: ReadonlyArray<ReadonlyArray<unknown>>) => [...rows].map((r) => [...r]).sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
/** Every row of the values index, as (column, value, record id). */
const indexed = (db: SqliteDatabase) => sorted(db.db.prepare('SELECT v.col, v.value, l.id FROM log_record_values v JOIN log_records l ON l.rowid = v.rec').raw().all() as unknown[][]);
/** What the values index should hold for these records (numbers, tags, metrics that are numbers). */
const expected = (records: ReadonlyArray<LogRecord>) =>
  sorted(
    records.flatMap((r) => [
      ...(r.statusCode === null ? [] : [['status_code', r.statusCode, r.id]]),
      ...(r.stepNumber === null ? [] : [['step_number', r.stepNumber, r.id]]),
      ...(r.attributes.temperature === undefined ? [] : [['temperature', r.attributes.temperature, r.id]]),
      ...[...new Set(r.tags)].map((t) => ['tags', t, r.id]),
      ...Object.entries(r.metrics).flatMap(([k, v]) => (typeof v === 'number' ? [[`metrics/${k}`, v, r.id]] : [])),
    ]),
  );

const arbitraryRecord = (run: Run) =>
  fc
    .record({
      status: fc.option(fc.constantFrom(200, 201, 404, 500), { nil: null }),
      step: fc.option(fc.integer({ min: 0, max: 5 }), { nil: null }),
      temperature: fc.option(fc.constantFrom(0, 0.2, 0.7, 1.5)),
      tags: fc.array(fc.constantFrom('prod', 'web', 'Web', 'tenant-1', 'tenant-2'), { maxLength: 3 }),
      score: fc.option(fc.constantFrom(0, 0.25, 0.5, 1, 3, -2), { nil: null }),
      tokens: fc.option(fc.integer({ min: 0, max: 100 })),
    })
    .map((v) =>
      aRecord(run, {
        statusCode: v.status,
        stepNumber: v.step,
        tags: v.tags,
        metrics: { score: v.score, ...(v.tokens === null ? {} : { tokens: v.tokens }) },
        attributes: v.temperature === null ? {} : { temperature: v.temperature },
      }),
    );

const number = (columnId: string, operator: 'eq' | 'gt' | 'gte' | 'lt' | 'lte', value: number): RecordFilter => ({ type: 'number', columnId, operator, value });

describe('a search led by the values index', () => {
  it('finds exactly what reading the run finds, for number columns, metrics and tags, any operator', async () => {
    const run = await aRunStored();
    const records = fc.sample(arbitraryRecord(run), 120);
    await right(repos.logRecords.ingest(run.id, records, []));
    // A scorer's label under a metric's name (as scoring writes it into metrics): never a number. (Read
    // by ids alone below: this build's records take numbers only.)
    database.db.prepare(`UPDATE log_records SET metrics = json_set(metrics, '$.score', 'good') WHERE id = ?`).run(records[3]!.id);
    const filter = fc.oneof(
      fc.record({
        type: fc.constant('number' as const),
        columnId: fc.constantFrom('status_code', 'step_number', 'temperature', 'metrics/score', 'metrics/tokens'),
        operator: fc.constantFrom<'eq' | 'gt' | 'gte' | 'lt' | 'lte'>('eq', 'gt', 'gte', 'lt', 'lte'),
        value: fc.constantFrom(0, 0.2, 0.5, 1, 3, 50, 200, 404, 500, -1),
      }),
      fc.record({ type: fc.constant('number' as const), columnId: fc.constantFrom('status_code', 'metrics/score', 'metrics/tokens'), operator: fc.constant('between' as const), value: fc.tuple(fc.integer({ min: -2, max: 300 }), fc.integer({ min: -2, max: 600 })) }),
      fc.record({ type: fc.constant('collection' as const), columnId: fc.constant('tags'), operator: fc.constant('contains' as const), value: fc.array(fc.constantFrom('prod', 'web', 'Web', 'tenant-2', 'none'), { maxLength: 2 }) }),
      fc.record({ type: fc.constant('boolean' as const), columnId: fc.constant('is_complete'), operator: fc.constantFrom<'eq' | 'ne'>('eq', 'ne'), value: fc.boolean() }),
    ) as fc.Arbitrary<RecordFilter>;
    await fc.assert(
      fc.asyncProperty(filter, async (f) => {
        const q = query(run, [f]);
        expect(led(database, q)).toEqual(walked(database, q));
      }),
      { numRuns: 300 },
    );
    // A label is no number: `> -100` finds the record no more.
    expect(led(database, query(run, [number('metrics/score', 'gt', -100)]))).not.toContain(records[3]!.id);
    expect(walked(database, query(run, [number('metrics/score', 'gt', -100)]))).not.toContain(records[3]!.id);
  });

  it('leads a search for a rare value, and walks the run for a common one', async () => {
    const run = await aRunStored();
    const records = Array.from({ length: 6000 }, (_, i) =>
      aRecord(run, { statusCode: i === 4321 ? 503 : 200, tags: ['prod', i % 1000 === 7 ? 'tenant-7' : 'tenant-0'], metrics: { tokens: i === 77 ? 50_000 : i % 500 } }),
    );
    for (let i = 0; i < records.length; i += 1000) await right(repos.logRecords.ingest(run.id, records.slice(i, i + 1000), []));
    const rare = [number('status_code', 'eq', 503), { type: 'collection', columnId: 'tags', operator: 'contains', value: ['tenant-7'] }, number('metrics/tokens', 'gte', 10_000)] as RecordFilter[];
    for (const f of rare) expect(leadsBy(database, query(run, [f]))).toBe('log_record_values');
    expect(await ids(query(run, [rare[0]!]))).toEqual([records[4321]!.id]);
    expect(await ids(query(run, [rare[2]!]))).toEqual([records[77]!.id]);
    expect((await ids(query(run, [rare[1]!]))).length).toBe(6);
    for (const f of [number('status_code', 'eq', 200), { type: 'collection', columnId: 'tags', operator: 'contains', value: ['prod'] }, number('metrics/tokens', 'lt', 400)] as RecordFilter[])
      expect(leadsBy(database, query(run, [f]))).toBeNull();
    // A narrow created_at range holds fewer records than a path: the walk reads the range.
    const range: RecordFilter = { type: 'date', columnId: 'created_at', operator: 'between', value: [new Date(0), new Date(1)] };
    expect(leadsBy(database, query(run, [rare[1]!, range]))).toBeNull();
  });

  it('leads a search for incomplete records by their partial index', async () => {
    const run = await aRunStored();
    const records = Array.from({ length: 5000 }, (_, i) => aRecord(run, { isComplete: i % 1000 !== 3 }));
    await right(repos.logRecords.ingest(run.id, records, []));
    for (const f of [{ type: 'boolean', columnId: 'is_complete', operator: 'eq', value: false }, { type: 'boolean', columnId: 'is_complete', operator: 'ne', value: true }] as RecordFilter[]) {
      expect(leadsBy(database, query(run, [f]))).toBe('log_records_incomplete');
      expect(await ids(query(run, [f]))).toEqual(records.filter((r) => !r.isComplete).map((r) => r.id).sort());
    }
    expect(leadsBy(database, query(run, [{ type: 'boolean', columnId: 'is_complete', operator: 'eq', value: true }]))).toBeNull();
  });
});

describe('the values index', () => {
  it('follows every write and removal: ingest, a record sent again, metrics written by scoring, retention, a purge', async () => {
    const run = await aRunStored();
    const other = await aRunStored();
    const records = fc.sample(arbitraryRecord(run), 40);
    await right(repos.logRecords.ingest(run.id, records, []));
    const elsewhere = aRecord(other, { tags: ['elsewhere'] });
    await right(repos.logRecords.ingest(other.id, [elsewhere], []));
    const mine = () => indexed(database).filter((row) => row[2] !== elsewhere.id);
    expect(mine()).toEqual(expected(records));
    // Sent again with other values: the old ones go.
    const resent = records.slice(0, 10).map((r, i) => ({ ...r, tags: [`again-${i}`], statusCode: 299, metrics: { tokens: i } }));
    await right(repos.logRecords.ingest(run.id, resent, []));
    const now = [...resent, ...records.slice(10)];
    expect(mine()).toEqual(expected(now));
    // A scorer's outcome written into metrics.
    database.db.prepare(`UPDATE log_records SET metrics = json_set(metrics, '$.judged', 0.75) WHERE id = ?`).run(now[20]!.id);
    now[20] = { ...now[20]!, metrics: { ...now[20]!.metrics, judged: 0.75 } };
    expect(mine()).toEqual(expected(now));
    // Retention, of the first 25.
    database.db.prepare('UPDATE log_records SET created_at = 0 WHERE id IN (SELECT value FROM json_each(?))').run(JSON.stringify(now.slice(0, 25).map((r) => r.id)));
    expect(await right(repos.logRecords.removeCreatedBefore(new Date(1), 1000))).toBe(25);
    expect(mine()).toEqual(expected(now.slice(25)));
    const project = await right(repos.projects.findById(run.projectId));
    if (project._tag !== 'Some') throw new Error('the project is gone');
    await right(repos.projects.retire(project.value.createdBy, project.value.id, new Date()));
    await purgeRetired(repos.projects, project.value.id, 4);
    expect(indexed(database)).toEqual(expected([elsewhere]));
  });

  it('is built by migration 14 for the records stored before it', async () => {
    const file = tempFile();
    const before = new SqliteDatabase({ path: file }, MIGRATIONS.filter((m) => m.version < 14));
    const old = sqliteRepositories(before);
    const owner = await right(old.users.insert(aUser()));
    const project = await right(old.projects.insert(aProject(owner.id)));
    const run = await right(old.runs.insert(aRun(project)));
    const records = fc.sample(arbitraryRecord(run), 30);
    const insert = before.db.prepare(`INSERT INTO log_records (${RECORD_COLUMNS.join(', ')}) VALUES (${RECORD_COLUMNS.map(() => '?').join(', ')})`);
    for (const r of records) insert.run(recordToValues(r));
    before.close();
    const after = new SqliteDatabase({ path: file });
    try {
      expect(indexed(after)).toEqual(expected(records));
      const q = query(run, [number('status_code', 'eq', 500)]);
      expect(leadsBy(after, q)).toBe('log_record_values');
      expect((await right(sqliteRepositories(after).logRecords.search(q))).items.map((r) => r.id).sort()).toEqual(walked(after, q));
    } finally {
      after.close();
    }
  });
});
