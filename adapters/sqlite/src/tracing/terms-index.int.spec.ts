// The record index on a real SQLite file (text filters): a search it leads finds exactly what reading the run finds, it
// leads only where few records can match, it is written with the records and removed with them, it is
// built for records stored before it, and a backup copy keeps it true.
import { type LogRecord, type RecordFilter, type Run, foldCase } from '@tracelight/domain';
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
import { FOLD_CASE, SEARCH_BUDGET, compileSearch } from './record-query.sql';
import { leadingDocuments, leadingPath } from './record-plan';
import { CHUNK_RECORDS } from './record-terms';
import { INDEXED_COLUMNS, recordTerms } from './terms-index';

const tempFile = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-text-')), 'tracelight.db');

let database: SqliteDatabase;
let repos: ReturnType<typeof sqliteRepositories>;
beforeEach(() => {
  database = new SqliteDatabase({ path: tempFile() });
  repos = sqliteRepositories(database);
});
afterEach(() => database.close());

const aRunStored = async (): Promise<Run> => (await runsOfANewProject(repos))[0]!;
const query = (run: Run, filters: RecordFilter[], scope: RecordQuery['scope'] = 'traces'): RecordQuery => ({
  projectId: run.projectId,
  runId: run.id,
  scope,
  filters,
  sort: null,
  page: { startingToken: 0, limit: 1000 },
  maxBytes: 1 << 30,
  maxMs: 60_000,
});
const ids = async (q: RecordQuery) => (await right(repos.logRecords.search(q))).items.map((r) => r.id).sort();
/** The same search read the long way, walking the run (no access path), straight on the connection. */
const walked = (db: SqliteDatabase, q: RecordQuery) => {
  const { sql, params } = compileSearch(q, null);
  return (db.db.prepare(sql).all(...params) as Array<{ id: string }>).map((r) => r.id).sort();
};
const leadsBy = (db: SqliteDatabase, q: RecordQuery) => leadingPath((sql) => db.db.prepare(sql), q)?.index ?? null;
const contains = (columnId: string, value: string, caseSensitive = false): RecordFilter => ({ type: 'text', columnId, operator: 'contains', value, caseSensitive });
const docs = (db: SqliteDatabase) => db.db.prepare('SELECT count(*) FROM log_record_terms_chunks').pluck().get() as number;

describe('a search led by the record index (text)', () => {
  it('finds exactly the records that reading the run finds, for any text and needle, any case, any text column', async () => {
    const run = await aRunStored();
    const letters = 'abcAB Éé-_ΣσςK😀';
    const text = fc.string({ unit: fc.constantFrom(...Array.from(letters)), minLength: 0, maxLength: 24 });
    const records = fc.sample(fc.record({ input: text, output: text, name: text, model: text }), 80).map((t) =>
      aRecord(run, { input: t.input, output: [{ role: 'assistant', content: t.output }], name: t.name, attributes: { model: t.model } }),
    );
    await right(repos.logRecords.ingest(run.id, records, []));
    // Sent again with other text: the new text is found, the old is not.
    const resent = records.slice(0, 10).map((r, i) => ({ ...r, input: `again ${i} ${String(r.input).split('').reverse().join('')}` }));
    await right(repos.logRecords.ingest(run.id, resent, []));
    const texts = [...records.slice(10), ...resent].flatMap((r) => [String(r.input), JSON.stringify(r.output), r.name, String(r.attributes.model ?? '')]);
    // A part of a stored text, its letters' case changed at random (or not), or any text.
    const recased = (t: string) => fc.array(fc.constantFrom((c: string) => c, (c: string) => c.toUpperCase(), (c: string) => c.toLowerCase()), { minLength: t.length, maxLength: t.length }).map((fs) => Array.from(t).map((c, i) => fs[i]!(c)).join(''));
    const needle = fc.oneof(
      fc.constantFrom(...texts).chain((t) => fc.tuple(fc.nat(t.length), fc.nat(t.length)).map(([i, j]) => t.slice(Math.min(i, j), Math.max(i, j)))).chain(recased),
      text,
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('input', 'output', 'name', 'model'),
        fc.constantFrom<'contains' | 'eq' | 'one_of'>('contains', 'eq', 'one_of'),
        needle,
        needle,
        fc.boolean(),
        async (columnId, operator, a, b, caseSensitive) => {
          const filter: RecordFilter = { type: 'text', columnId, operator, value: operator === 'one_of' ? [a, b] : a, caseSensitive };
          const q = query(run, [filter]);
          expect(await ids(q)).toEqual(walked(database, q));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('leads a search for a rare needle, and walks the run for one in most records', async () => {
    const run = await aRunStored();
    // More groups than the planner's bound: a needle in every record walks the run.
    const records = Array.from({ length: (leadingDocuments(CHUNK_RECORDS) + 2) * CHUNK_RECORDS }, (_, i) => aRecord(run, { input: `common words here, and the number ${i} ${i === 4321 ? 'Zanzibar' : ''}` }));
    for (let i = 0; i < records.length; i += 1000) await right(repos.logRecords.ingest(run.id, records.slice(i, i + 1000), []));
    const rare = query(run, [contains('input', 'zanzibar')]);
    expect(leadsBy(database, rare)).toBe('log_record_terms');
    expect(await ids(rare)).toEqual([records[4321]!.id]);
    const common = query(run, [contains('input', 'common words')]);
    expect(leadsBy(database, common)).toBeNull();
    // Too short for a trigram: no path.
    expect(leadsBy(database, query(run, [contains('input', 'ze')]))).toBeNull();
  });

  it('finds nothing of another run, though its records hold the needle', async () => {
    const run = await aRunStored();
    const other = await aRunStored();
    await right(repos.logRecords.ingest(other.id, [aRecord(other, { input: 'Zanzibar' })], []));
    await right(repos.logRecords.ingest(run.id, [aRecord(run, { input: 'Madagascar' })], []));
    const q = query(run, [contains('input', 'zanzibar')]);
    expect(leadsBy(database, q)).toBe('log_record_terms');
    expect(await ids(q)).toEqual([]);
  });
});

describe('the record index’s documents', () => {
  it('go with their records: retention, a group at a time as its last record goes, and a project’s purge', async () => {
    const run = await aRunStored();
    const old = new Date('2020-01-01T00:00:00Z');
    // Two groups and a half; the first group and a half older than the retention's cutoff.
    const [total, oldOnes, again] = [CHUNK_RECORDS * 2 + CHUNK_RECORDS / 2, CHUNK_RECORDS + CHUNK_RECORDS / 2, CHUNK_RECORDS * 2];
    const records = Array.from({ length: total }, (_, i) => aRecord(run, { input: `record ${i} Zanzibar`, createdAt: i < oldOnes ? old : new Date('2030-01-01T00:00:00Z') }));
    await right(repos.logRecords.ingest(run.id, records, []));
    await right(repos.logRecords.ingest(run.id, [{ ...records[again]!, input: 'sent again, Zanzibar' }], []));
    // 3 documents of groups, and one for the record sent again.
    expect(docs(database)).toBe(4);
    // The old ones go: the first group whole (gone), the second in part (kept while half of it stays).
    expect(await right(repos.logRecords.removeCreatedBefore(new Date('2021-01-01T00:00:00Z'), 1000))).toBe(oldOnes);
    expect(docs(database)).toBe(3);
    expect(await ids(query(run, [contains('input', 'zanzibar')]))).toEqual(records.slice(oldOnes).map((r) => r.id).sort());
    const owner = (await right(repos.projects.findById(run.projectId)))._tag === 'Some';
    expect(owner).toBe(true);
    const project = await right(repos.projects.findById(run.projectId));
    if (project._tag !== 'Some') throw new Error('the project is gone');
    await right(repos.projects.retire(project.value.createdBy, project.value.id, new Date()));
    await purgeRetired(repos.projects, project.value.id, 3);
    expect(docs(database)).toBe(0);
    expect(database.db.prepare('SELECT count(*) FROM log_record_terms').pluck().get()).toBe(0);
    expect(database.db.prepare('SELECT count(*) FROM log_record_terms_own').pluck().get()).toBe(0);
  });

  it('are built by migration 15 for the records stored before it', async () => {
    const file = tempFile();
    const before = new SqliteDatabase({ path: file }, MIGRATIONS.filter((m) => m.version < 15));
    // The repositories of what the records hang off alone: the others are built for today's schema
    // (the scoring queue's lanes, migration 18).
    const old = { users: new SQLITE_REPOSITORIES.users(before), projects: new SQLITE_REPOSITORIES.projects(before), runs: new SQLITE_REPOSITORIES.runs(before) };
    const [run, other] = (await runsOfANewProject(old, 2)) as [Run, Run];
    // As an earlier build wrote them: rows alone, two runs taking turns.
    // Schema 14's columns: today's but those migration 17 adds.
    const columns = RECORD_COLUMNS.filter((c) => c !== 'input_z' && c !== 'output_z');
    const insert = before.db.prepare(`INSERT INTO log_records (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
    const valuesIn = (r: LogRecord) => {
      const values = recordToValues(r);
      return columns.map((c) => values[RECORD_COLUMNS.indexOf(c)]);
    };
    const records: LogRecord[] = [];
    for (let i = 0; i < 30; i++) {
      const r = aRecord(i % 3 === 0 ? other : run, { input: [{ role: 'user', content: `question ${i} ${i === 17 ? 'Zanzibar' : ''}` }], name: `Step ${i}` });
      records.push(r);
      insert.run(valuesIn(r));
    }
    before.close();
    const after = new SqliteDatabase({ path: file });
    try {
      const repos2 = sqliteRepositories(after);
      const rare = query(run, [contains('input', 'ZANZIBAR')]);
      expect(leadsBy(after, rare)).toBe('log_record_terms');
      expect((await right(repos2.logRecords.search(rare))).items.map((r) => r.id)).toEqual([records[17]!.id]);
      for (const r of [run, other]) {
        const q = query(r, [contains('name', 'step 2')]);
        expect((await right(repos2.logRecords.search(q))).items.map((x) => x.id).sort()).toEqual(walked(after, q));
      }
    } finally {
      after.close();
    }
  });

  it('are made again by migration 19 in groups of 32, from groups of 8, and still go with their records', async () => {
    const file = tempFile();
    const before = new SqliteDatabase({ path: file }, MIGRATIONS.filter((m) => m.version < 19));
    const old = { users: new SQLITE_REPOSITORIES.users(before), projects: new SQLITE_REPOSITORIES.projects(before), runs: new SQLITE_REPOSITORIES.runs(before) };
    const [run] = (await runsOfANewProject(old)) as [Run];
    // As schema 18's build wrote them: the rows, and a document per 8 of them under the first rowid times 8.
    const insert = before.db.prepare(`INSERT INTO log_records (${RECORD_COLUMNS.join(', ')}) VALUES (${RECORD_COLUMNS.map(() => '?').join(', ')})`);
    const records = Array.from({ length: 70 }, (_, i) => aRecord(run, { input: `question ${i} ${i === 41 ? 'Zanzibar' : 'Madagascar'}`, name: `Step ${i}` }));
    const rowids = records.map((r) => Number(insert.run(recordToValues(r)).lastInsertRowid));
    const atOf = (c: string) => RECORD_COLUMNS.indexOf(c as (typeof RECORD_COLUMNS)[number]);
    for (let k = 0; k < records.length; k += 8) {
      const group = records.slice(k, k + 8);
      const terms = group.map((r) => recordTerms(run.id, ...INDEXED_COLUMNS.map((c) => recordToValues(r)[atOf(c)]))).join(' ');
      before.db.prepare('INSERT INTO log_record_terms (rowid, terms) VALUES (?, ?)').run(rowids[k]! * 8 + group.length - 1, terms);
      before.db.prepare('INSERT INTO log_record_terms_chunks (key, size) VALUES (?, ?)').run(rowids[k]! * 2, group.length);
    }
    expect(docs(before)).toBe(9);
    before.close();
    const rare = query(run, [contains('input', 'ZANZIBAR')]);
    const after = new SqliteDatabase({ path: file });
    try {
      const repos2 = sqliteRepositories(after);
      expect(CHUNK_RECORDS).toBe(32);
      // 70 records: groups of 32, 32 and 6, each under its first rowid times 32.
      const documents = after.db.prepare('SELECT rowid FROM log_record_terms ORDER BY rowid').pluck().all() as number[];
      expect(documents).toEqual([rowids[0]! * 32 + 31, rowids[32]! * 32 + 31, rowids[64]! * 32 + 5]);
      expect(leadsBy(after, rare)).toBe('log_record_terms');
      expect((await right(repos2.logRecords.search(rare))).items.map((r) => r.id)).toEqual([records[41]!.id]);
      const q = query(run, [contains('name', 'step 4')]);
      expect(await right(repos2.logRecords.search(q)).then((p) => p.items.map((r) => r.id).sort())).toEqual(walked(after, q));
      // The new trigger removes a group's document with its last record.
      after.db.prepare('DELETE FROM log_records WHERE rowid >= ?').run(rowids[32]!);
      expect(after.db.prepare('SELECT rowid FROM log_record_terms').pluck().all()).toEqual([rowids[0]! * 32 + 31]);
      expect(docs(after)).toBe(1);
    } finally {
      after.close();
    }
  });

  it('stay true in a backup copy (VACUUM INTO keeps every rowid)', async () => {
    const run = await aRunStored();
    const records = Array.from({ length: 50 }, (_, i) => aRecord(run, { input: `record ${i} ${i % 7 === 0 ? 'Zanzibar' : 'Madagascar'}` }));
    await right(repos.logRecords.ingest(run.id, records, []));
    // Holes in the rowids, which a renumbering copy would close.
    database.db.prepare('DELETE FROM log_records WHERE rowid % 5 = 0').run();
    const copy = tempFile();
    fs.rmSync(copy, { force: true });
    database.db.prepare('VACUUM INTO ?').run(copy);
    const restored = new SqliteDatabase({ path: copy });
    try {
      restored.db.function(FOLD_CASE, { deterministic: true }, (v: unknown) => (typeof v === 'string' ? foldCase(v) : v));
      restored.db.function(SEARCH_BUDGET, { deterministic: false }, () => 1);
      const q = query(run, [contains('input', 'zanzibar')]);
      expect(leadsBy(restored, q)).toBe('log_record_terms');
      const { sql, params } = compileSearch(q, leadingPath((s) => restored.db.prepare(s), q));
      const found = (restored.db.prepare(sql).all(...params) as Array<{ id: string }>).map((r) => r.id).sort();
      expect(found).toEqual(walked(restored, q));
      expect(found.length).toBeGreaterThan(0);
    } finally {
      restored.close();
    }
  });
});
