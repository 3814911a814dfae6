// What a record takes in SQLite, on a real file: each input and output stored once, a large one
// deflated, and rows of the earlier form (each value beside its text) still read as they did.
import type { Json, LogRecord, RecordFilter } from '@tracelight/domain';
import type { RecordQuery } from '@tracelight/ports';
import { aProject, aRecord, aRun, aUser, right } from '@tracelight/testkit';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SqliteDatabase } from '../shared/sqlite-database';
import { sqliteRepositories } from '../sqlite.module';

let database: SqliteDatabase;
let repos: ReturnType<typeof sqliteRepositories>;
beforeEach(() => {
  database = new SqliteDatabase({ path: path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-storage-')), 'tracelight.db') });
  repos = sqliteRepositories(database);
});
afterEach(() => database.close());

const aRunStored = async () => {
  const owner = await right(repos.users.insert(aUser()));
  const project = await right(repos.projects.insert(aProject(owner.id)));
  return right(repos.runs.insert(aRun(project)));
};
const everything = (r: LogRecord) => ({ projectId: r.projectId, runId: r.runId, scope: 'traces' as const, filters: [], sort: null, page: { startingToken: 0, limit: 100 }, maxBytes: 1 << 30, maxMs: 60_000 });
const storedColumns = (id: string) =>
  database.db.prepare('SELECT input, input_text, output, output_text FROM log_records WHERE id = ?').get(id) as Record<string, string | null>;

describe('an input or output in SQLite', () => {
  // Under 8 KiB: stored as text (larger texts are deflated, below).
  const prompt = [{ role: 'system', content: 'You are helpful. '.repeat(50) }, { role: 'user', content: 'Where is my order?' }];
  it.each<[string, Json, { input: string | null; input_text: unknown }]>([
    ['a string: its text alone, marked', 'a prompt', { input: '', input_text: 'a prompt' }],
    ['an empty string', '', { input: '', input_text: '' }],
    ['a message list: its JSON text alone, marked', prompt, { input: '#', input_text: JSON.stringify(prompt) }],
    ['a number', 42, { input: '#', input_text: '42' }],
    ['null: as before, its JSON, no text', null, { input: 'null', input_text: null }],
    ['a string with half of a surrogate pair: its JSON beside its text, which UTF-8 cannot hold exactly', 'cut \ud83d here', { input: '"cut \\ud83d here"', input_text: expect.not.stringMatching(/^cut \ud83d here$/) }],
  ])('is stored once where it can be: %s', async (_, input, expected) => {
    const run = await aRunStored();
    const record = aRecord(run, { input, output: input });
    await right(repos.logRecords.ingest(run.id, [record], []));
    expect(storedColumns(record.id)).toEqual({ ...expected, output: expected.input, output_text: expected.input_text });
    expect((await right(repos.logRecords.search(everything(record)))).items).toEqual([record]);
  });

  it('takes the bytes of a message list once, not twice', async () => {
    const run = await aRunStored();
    const record = aRecord(run, { input: prompt });
    await right(repos.logRecords.ingest(run.id, [record], []));
    const bytes = database.db.prepare('SELECT octet_length(input) + octet_length(input_text) FROM log_records WHERE id = ?').pluck().get(record.id) as number;
    expect(bytes).toBe(JSON.stringify(prompt).length + 1);
  });

  it('reads a row of the earlier form, each value as its JSON beside its text, as it was sent', async () => {
    const run = await aRunStored();
    const records = [aRecord(run, { input: prompt, output: 'an answer' }), aRecord(run, { input: 'a question', output: { role: 'assistant', content: 'an answer' } })];
    await right(repos.logRecords.ingest(run.id, records, []));
    // As an earlier build wrote them: the value's JSON in input/output, its text beside it.
    const earlier = database.db.prepare("UPDATE log_records SET input = CASE WHEN input = '' THEN json_quote(input_text) ELSE input_text END, output = CASE WHEN output = '' THEN json_quote(output_text) ELSE output_text END");
    expect(earlier.run().changes).toBe(2);
    expect(database.db.prepare("SELECT count(*) FROM log_records WHERE input IN ('', '#') OR output IN ('', '#')").pluck().get()).toBe(0);
    expect(new Set((await right(repos.logRecords.search(everything(records[0]!)))).items)).toEqual(new Set(records));
  });

  it('answers a row whose marked value has no text as a corrupt row, not a crash', async () => {
    const run = await aRunStored();
    const record = aRecord(run, { input: 'x' });
    await right(repos.logRecords.ingest(run.id, [record], []));
    database.db.prepare('UPDATE log_records SET input_text = NULL WHERE id = ?').run(record.id);
    const found = await repos.logRecords.search(everything(record))();
    expect(found).toMatchObject({ _tag: 'Left', left: { _tag: 'Unavailable' } });
  });

  describe('of 8 KiB or more', () => {
    const words = (n: number) => Array.from({ length: n }, (_, i) => ['order', 'Refund', 'délai', 'ship', 'ΣΊΣΥΦΟΣ'][i % 5]! + (i % 7)).join(' ');
    const large = [{ role: 'system', content: words(1500) }, { role: 'user', content: 'Where is my parcel Zanzibar?' }];
    const text = words(1300);

    it('is stored deflated, its copy NULL, and read back as sent', async () => {
      const run = await aRunStored();
      const record = aRecord(run, { input: large, output: text });
      await right(repos.logRecords.ingest(run.id, [record], []));
      const row = database.db.prepare('SELECT input, input_text, input_z, output, output_text, output_z FROM log_records WHERE id = ?').get(record.id) as Record<string, unknown>;
      expect(row).toMatchObject({ input: `~#${Buffer.byteLength(JSON.stringify(large))}`, input_text: null, output: `~${Buffer.byteLength(text)}`, output_text: null });
      expect((row['input_z'] as Buffer).length).toBeLessThan(JSON.stringify(large).length / 2);
      expect((await right(repos.logRecords.search(everything(record)))).items).toEqual([record]);
    });

    it('is found by every text filter as its text would be, through the index or read in place', async () => {
      const run = await aRunStored();
      const records = [aRecord(run, { name: 'large', input: large, output: text }), aRecord(run, { name: 'small', input: 'Where is my parcel?', output: 'ship ΣΊΣΥΦΟΣ1' })];
      await right(repos.logRecords.ingest(run.id, records, []));
      // Sorted by name unless the search sorts.
      const names = async (filters: RecordFilter[], sort: RecordQuery['sort'] = null) => {
        const found = (await right(repos.logRecords.search({ ...everything(records[0]!), filters, sort }))).items.map((r) => r.name);
        return sort === null ? found.sort() : found;
      };
      const text_ = (columnId: string, operator: 'contains' | 'eq' | 'ne', value: string, caseSensitive = false): RecordFilter => ({ type: 'text', columnId, operator, value, caseSensitive });
      expect(await names([text_('input', 'contains', 'zanzibar')])).toEqual(['large']); // the index
      expect(await names([text_('input', 'contains', 'zanzibar', true)])).toEqual([]);
      expect(await names([text_('input', 'contains', 'Zanzibar', true)])).toEqual(['large']);
      expect(await names([text_('input', 'contains', 'Y ')])).toEqual(['large', 'small']); // two characters: read in place
      expect(await names([text_('output', 'contains', 'σίσυφοσ')])).toEqual(['large', 'small']);
      expect(await names([text_('output', 'eq', text.toUpperCase())])).toEqual(['large']);
      expect(await names([text_('output', 'ne', text)])).toEqual(['small']);
      // Sorted by its text: 'order0 …' before 'ship …'.
      expect(await names([], { columnId: 'output', ascending: true })).toEqual(['large', 'small']);
      expect(await names([], { columnId: 'output', ascending: false })).toEqual(['small', 'large']);
    });

    it('counts at its full length against a page’s size budget', async () => {
      const run = await aRunStored();
      const records = [1, 2, 3].map((i) => aRecord(run, { name: `r${i}`, input: 'q', output: 'x'.repeat(10_000) }));
      await right(repos.logRecords.ingest(run.id, records, []));
      expect(database.db.prepare('SELECT count(*) FROM log_records WHERE output_z IS NOT NULL').pluck().get()).toBe(3);
      const page = await right(repos.logRecords.search({ ...everything(records[0]!), sort: { columnId: 'name', ascending: true }, maxBytes: 15_000 }));
      expect(page.items.map((r) => r.name)).toEqual(['r1', 'r2']);
    });
  });
});
