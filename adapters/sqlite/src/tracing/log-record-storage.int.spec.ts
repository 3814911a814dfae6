// What a record takes in SQLite, on a real file: each input and output stored once, and rows of the
// earlier form (each value beside its text) still read as they did.
import type { Json, LogRecord } from '@tracelight/domain';
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
  const prompt = [{ role: 'system', content: 'You are helpful. '.repeat(60) }, { role: 'user', content: 'Where is my order?' }];
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

  it('takes the bytes of a 1 KB message list once, not twice', async () => {
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
});
