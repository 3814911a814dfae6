// Number, tag and metric filters through the record index, and incomplete records through their partial
// index, on a real SQLite file: a search they lead finds exactly what reading the run finds, they lead
// only where few records match, the index stays true through every write and removal (a scorer's UPDATE
// of metrics too), and migration 15 builds it for records stored before.
import type { LogRecord, MetricValue, RecordFilter, Run } from '@tracelight/domain';
import type { RecordQuery } from '@tracelight/ports';
import { aRecord, purgeRetired, right, runsOfANewProject } from '@tracelight/testkit';
import * as fc from 'fast-check';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SqliteDatabase } from '../shared/sqlite-database';
import { MIGRATIONS } from '../shared/migrations';
import { SQLITE_REPOSITORIES, sqliteRepositories } from '../sqlite.module';
import { RECORD_COLUMNS, recordToValues } from './log-record.mapper';
import { compileSearch } from './record-query.sql';
import { leadingDocuments, leadingPath } from './record-plan';
import { CHUNK_RECORDS } from './record-terms';

const tempFile = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-values-')), 'tracelight.db');

let database: SqliteDatabase;
let repos: ReturnType<typeof sqliteRepositories>;
beforeEach(() => {
  database = new SqliteDatabase({ path: tempFile() });
  repos = sqliteRepositories(database);
});
afterEach(() => database.close());

const aRunStored = async (): Promise<Run> => (await runsOfANewProject(repos))[0]!;
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
/**
 * Every value filter over what these records hold, each checked: the search planned as the repository
 * plans it finds exactly what walking the run finds, and it is led by the index.
 */
const checkEveryValue = (db: SqliteDatabase, run: Run, records: ReadonlyArray<LogRecord>): void => {
  const filters: RecordFilter[] = [];
  for (const r of records) {
    if (r.statusCode !== null) filters.push(number('status_code', 'eq', r.statusCode));
    if (r.stepNumber !== null) filters.push(number('step_number', 'gte', r.stepNumber));
    if (typeof r.attributes.temperature === 'number') filters.push(number('temperature', 'lte', r.attributes.temperature));
    for (const t of r.tags) filters.push({ type: 'collection', columnId: 'tags', operator: 'contains', value: [t] });
    for (const [k, v] of Object.entries(r.metrics)) {
      if (typeof v === 'number') filters.push(number(`metrics/${k}`, 'eq', v), { type: 'text', columnId: `metrics/${k}`, operator: 'eq', value: String(v), caseSensitive: true });
      if (typeof v === 'string') filters.push({ type: 'text', columnId: `metrics/${k}`, operator: 'eq', value: v.toUpperCase(), caseSensitive: false });
      if (typeof v === 'boolean') filters.push({ type: 'boolean', columnId: `metrics/${k}`, operator: 'ne', value: !v });
      if (Array.isArray(v)) for (const l of v) filters.push({ type: 'collection', columnId: `metrics/${k}`, operator: 'contains', value: [l] });
    }
  }
  for (const f of filters) {
    const q = query(run, [f]);
    expect([f, leadsBy(db, q)]).toEqual([f, 'log_record_terms']);
    expect([f, led(db, q)]).toEqual([f, walked(db, q)]);
    expect(walked(db, q).length).toBeGreaterThan(0);
  }
};

const arbitraryRecord = (run: Run) =>
  fc
    .record({
      status: fc.option(fc.constantFrom(200, 201, 404, 500), { nil: null }),
      step: fc.option(fc.integer({ min: 0, max: 5 }), { nil: null }),
      temperature: fc.option(fc.constantFrom(0, 0.2, 0.7, 1.5)),
      tags: fc.array(fc.constantFrom('prod', 'web', 'Web', 'tenant-1', 'tenant-2'), { maxLength: 3 }),
      score: fc.option(fc.constantFrom(0, 0.25, 0.5, 1, 3, -2), { nil: null }),
      tokens: fc.option(fc.integer({ min: 0, max: 100 })),
      // A scorer's value of any kind: a label, a list of labels, a boolean, a number (whose text a text filter compares).
      verdict: fc.option(fc.constantFrom<MetricValue>('good', 'Bad', 'ok', '1', 'Σίσυφος', ['a', 'b'], ['B'], [], true, false, 1, 0.5)),
    })
    .map((v) =>
      aRecord(run, {
        statusCode: v.status,
        stepNumber: v.step,
        tags: v.tags,
        metrics: { score: v.score, ...(v.tokens === null ? {} : { tokens: v.tokens }), ...(v.verdict === null ? {} : { verdict: v.verdict }) },
        attributes: v.temperature === null ? {} : { temperature: v.temperature },
      }),
    );

const number = (columnId: string, operator: 'eq' | 'gt' | 'gte' | 'lt' | 'lte' | 'between', value: number, high?: number): RecordFilter =>
  operator === 'between' ? { type: 'number', columnId, operator, value: [value, high ?? value] } : { type: 'number', columnId, operator, value };

describe('a search led by the record index (numbers, tags, metrics)', () => {
  it('finds exactly what reading the run finds, for number columns, metrics and tags, any operator', async () => {
    const run = await aRunStored();
    const records = fc.sample(arbitraryRecord(run), 120);
    await right(repos.logRecords.ingest(run.id, records, []));
    // A scorer's label under a metric's name (as scoring writes it into metrics): never a number.
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
      fc.record({ type: fc.constant('boolean' as const), columnId: fc.constantFrom('is_complete', 'metrics/verdict'), operator: fc.constantFrom<'eq' | 'ne'>('eq', 'ne'), value: fc.boolean() }),
      fc.record({
        type: fc.constant('text' as const),
        columnId: fc.constant('metrics/verdict'),
        operator: fc.constantFrom<'eq' | 'one_of'>('eq', 'one_of'),
        value: fc.array(fc.constantFrom('good', 'GOOD', 'bad', 'Bad', '1', '1.0', '0.5', 'σίσυφοσ', 'ΣΊΣΥΦΟΣ', 'true', 'a', ''), { minLength: 1, maxLength: 3 }),
        caseSensitive: fc.boolean(),
      }).map((f) => (f.operator === 'eq' ? { ...f, value: f.value[0]! } : f)),
      fc.record({ type: fc.constant('collection' as const), columnId: fc.constant('metrics/verdict'), operator: fc.constant('contains' as const), value: fc.array(fc.constantFrom('a', 'b', 'B', 'good', 'true', '1'), { maxLength: 2 }) }),
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
    // More groups than the planner's bound: a value in every record walks the run.
    const records = Array.from({ length: (leadingDocuments(CHUNK_RECORDS) + 2) * CHUNK_RECORDS }, (_, i) =>
      aRecord(run, {
        statusCode: i === 4321 ? 503 : 200,
        tags: ['prod', i % 1000 === 7 ? 'tenant-7' : 'tenant-0'],
        metrics: { tokens: i === 77 ? 50_000 : i % 500, toxicity: i === 1234 ? 'Toxic' : 'clean', hallucinated: i === 99 },
      }),
    );
    for (let i = 0; i < records.length; i += 1000) await right(repos.logRecords.ingest(run.id, records.slice(i, i + 1000), []));
    const rare = [number('status_code', 'eq', 503), { type: 'collection', columnId: 'tags', operator: 'contains', value: ['tenant-7'] }, number('metrics/tokens', 'gte', 10_000)] as RecordFilter[];
    for (const f of rare) expect(leadsBy(database, query(run, [f]))).toBe('log_record_terms');
    expect(await ids(query(run, [rare[0]!]))).toEqual([records[4321]!.id]);
    expect(await ids(query(run, [rare[2]!]))).toEqual([records[77]!.id]);
    expect((await ids(query(run, [rare[1]!]))).length).toBe(records.filter((_, i) => i % 1000 === 7).length);
    // A scorer's rare label, or boolean, among common ones.
    const toxic: RecordFilter = { type: 'text', columnId: 'metrics/toxicity', operator: 'eq', value: 'toxic', caseSensitive: false };
    const hallucinated: RecordFilter = { type: 'boolean', columnId: 'metrics/hallucinated', operator: 'ne', value: false };
    for (const f of [toxic, hallucinated]) expect(leadsBy(database, query(run, [f]))).toBe('log_record_terms');
    expect(await ids(query(run, [toxic]))).toEqual([records[1234]!.id]);
    expect(await ids(query(run, [hallucinated]))).toEqual([records[99]!.id]);
    for (const f of [{ ...toxic, value: 'clean' }, { ...hallucinated, value: true }] as RecordFilter[]) expect(leadsBy(database, query(run, [f]))).toBeNull();
    for (const f of [number('status_code', 'eq', 200), { type: 'collection', columnId: 'tags', operator: 'contains', value: ['prod'] }, number('metrics/tokens', 'lt', 490)] as RecordFilter[])
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

describe('the record index’s values', () => {
  it('follow every write and removal: ingest, a record sent again, metrics written by scoring, retention, a purge', async () => {
    const run = await aRunStored();
    const other = await aRunStored();
    const records = fc.sample(arbitraryRecord(run), 40);
    await right(repos.logRecords.ingest(run.id, records, []));
    await right(repos.logRecords.ingest(other.id, [aRecord(other, { tags: ['elsewhere'], statusCode: 418 })], []));
    checkEveryValue(database, run, records);
    // Another run's values are not this run's.
    expect(led(database, query(run, [{ type: 'collection', columnId: 'tags', operator: 'contains', value: ['elsewhere'] }]))).toEqual([]);
    // Sent again with other values: the new ones are found, the old ones no more.
    const resent = records.slice(0, 10).map((r, i) => ({ ...r, tags: [`again-${i}`], statusCode: 299, metrics: { tokens: 1000 + i } }));
    await right(repos.logRecords.ingest(run.id, resent, []));
    const now = [...resent, ...records.slice(10)];
    checkEveryValue(database, run, now);
    expect(led(database, query(run, [number('metrics/tokens', 'gte', 1000)]))).toEqual(resent.map((r) => r.id).sort());
    // A scorer's outcome written into metrics by an UPDATE of its own.
    database.db.prepare(`UPDATE log_records SET metrics = json_set(metrics, '$.judged', 0.75) WHERE id = ?`).run(now[20]!.id);
    now[20] = { ...now[20]!, metrics: { ...now[20]!.metrics, judged: 0.75 } };
    checkEveryValue(database, run, now);
    expect(led(database, query(run, [number('metrics/judged', 'between', 0.7, 0.8)]))).toEqual([now[20]!.id]);
    // Retention, of the first 25.
    database.db.prepare('UPDATE log_records SET created_at = 0 WHERE id IN (SELECT value FROM json_each(?))').run(JSON.stringify(now.slice(0, 25).map((r) => r.id)));
    expect(await right(repos.logRecords.removeCreatedBefore(new Date(1), 1000))).toBe(25);
    checkEveryValue(database, run, now.slice(25));
    const project = await right(repos.projects.findById(run.projectId));
    if (project._tag !== 'Some') throw new Error('the project is gone');
    await right(repos.projects.retire(project.value.createdBy, project.value.id, new Date()));
    await purgeRetired(repos.projects, project.value.id, 4);
    // The other run's project stays, and with it its documents alone.
    const left = database.db.prepare('SELECT count(*) FROM log_record_terms_chunks').pluck().get();
    expect(left).toBe(1);
  });

  it('are built by migration 15 for the records stored before it', async () => {
    const file = tempFile();
    const before = new SqliteDatabase({ path: file }, MIGRATIONS.filter((m) => m.version < 15));
    // The repositories of what the records hang off alone: the others are built for today's schema
    // (the scoring queue's lanes, migration 18).
    const old = { users: new SQLITE_REPOSITORIES.users(before), projects: new SQLITE_REPOSITORIES.projects(before), runs: new SQLITE_REPOSITORIES.runs(before) };
    const [run] = (await runsOfANewProject(old)) as [Run];
    const records = fc.sample(arbitraryRecord(run), 30);
    // Schema 14's columns: today's but those migration 17 adds.
    const columns = RECORD_COLUMNS.filter((c) => c !== 'input_z' && c !== 'output_z');
    const insert = before.db.prepare(`INSERT INTO log_records (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
    const valuesIn = (r: LogRecord) => {
      const values = recordToValues(r);
      return columns.map((c) => values[RECORD_COLUMNS.indexOf(c)]);
    };
    for (const r of records) insert.run(valuesIn(r));
    before.close();
    const after = new SqliteDatabase({ path: file });
    try {
      sqliteRepositories(after); // registers the search's SQL functions on the connection
      checkEveryValue(after, run, records);
    } finally {
      after.close();
    }
  });
});
