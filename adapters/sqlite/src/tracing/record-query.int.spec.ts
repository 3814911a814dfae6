// The plans SQLite makes for record searches, on the real schema: a search that picks records by an id
// column with its own index (a trace's spans, a span's children, a session's traces, records by id) reads
// them through that index, not by walking the whole run in time order, whatever order it asks for. A
// plan that regresses fails here.
import Database from 'better-sqlite3';
import { asId, type ProjectId, type RecordFilter, type RecordScope, type RecordSort, type RunId } from '@tracelight/domain';
import type { RecordQuery } from '@tracelight/ports';
import { migrate } from '../shared/sqlite-database';
import { MIGRATIONS } from '../shared/migrations';
import { FOLD_CASE, SEARCH_BUDGET, compileSearch } from './record-query.sql';
import { leadingPath } from './record-plan';
import { INFLATE, inflate } from './compressed-text';

const db = new Database(':memory:');
migrate(db, MIGRATIONS);
db.function(FOLD_CASE, { deterministic: true }, (v: unknown) => v);
db.function(SEARCH_BUDGET, { deterministic: false }, () => 1);
db.function(INFLATE, { deterministic: true }, inflate);
afterAll(() => db.close());

const query = (filters: RecordFilter[], sort: RecordSort | null, scope: RecordScope = 'spans', extra: Partial<RecordQuery> = {}): RecordQuery => ({
  projectId: asId<ProjectId>('p'),
  runId: asId<RunId>('r'),
  scope,
  filters,
  sort,
  page: { startingToken: 0, limit: 100 },
  maxBytes: 1e9,
  maxMs: 60_000,
  ...extra,
});

/** The plan of a search as the repository compiles it (its leading path chosen as it chooses it). */
const planOf = (q: RecordQuery): string => {
  const { sql, params } = compileSearch(q, leadingPath((s) => db.prepare(s), q));
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>).map((r) => r.detail).join('\n');
};

const ID = '0190b7a8-0000-7000-8000-000000000001';
const trace: RecordFilter = { type: 'id', columnId: 'trace_id', operator: 'eq', value: ID };
const parents: RecordFilter = { type: 'id', columnId: 'parent_id', operator: 'one_of', value: [ID, '0190b7a8-0000-7000-8000-000000000002'] };
const session: RecordFilter = { type: 'id', columnId: 'session_id', operator: 'eq', value: ID };
const byId: RecordFilter = { type: 'id', columnId: 'id', operator: 'eq', value: ID };
const model: RecordFilter = { type: 'text', columnId: 'model', operator: 'eq', value: 'gpt', caseSensitive: true };
/** No index narrows it (a model other than one): the search walks the run. */
const notModel: RecordFilter = { type: 'text', columnId: 'model', operator: 'ne', value: 'gpt', caseSensitive: true };

describe('record search plans', () => {
  it.each([
    ['a trace’s spans, newest first', query([trace], null), 'log_records_by_trace'],
    ['a trace’s spans, oldest first', query([trace], { columnId: 'created_at', ascending: true }), 'log_records_by_trace'],
    ['a trace’s spans by name', query([trace], { columnId: 'name', ascending: true }), 'log_records_by_trace'],
    ['a trace’s spans by model (a column that may be null)', query([trace], { columnId: 'model', ascending: false }), 'log_records_by_trace'],
    ['a trace’s spans with another filter', query([model, trace], null), 'log_records_by_trace'],
    ['a span’s children', query([parents], null), 'log_records_by_parent'],
    ['a session’s traces', query([session], null, 'traces'), 'log_records_by_session'],
    ['a session’s spans, oldest first', query([session], { columnId: 'created_at', ascending: true }), 'log_records_by_session'],
    ['a record by id', query([byId], null), 'sqlite_autoindex_log_records_1'],
    ['a trace’s spans, a keyset page', query([trace], null, 'spans', { after: { createdAt: new Date(0), createdAtMicros: 0, id: ID } }), 'log_records_by_trace'],
  ])('reads %s by its own index, never walking the run', (_, q, index) => {
    const plan = planOf(q);
    expect(plan).toMatch(new RegExp(`USING (COVERING )?INDEX ${index} `));
    expect(plan).not.toContain('log_records_by_run_time');
  });

  it.each([
    ['text contains', { type: 'text', columnId: 'input', operator: 'contains', value: 'zanzibar', caseSensitive: false }],
    ['a status code', { type: 'number', columnId: 'status_code', operator: 'eq', value: 503 }],
    ['a metric range', { type: 'number', columnId: 'metrics/tokens', operator: 'gte', value: 40_000 }],
    ['a tag', { type: 'collection', columnId: 'tags', operator: 'contains', value: ['tenant-7'] }],
    ['a metric’s label', { type: 'text', columnId: 'metrics/toxicity', operator: 'one_of', value: ['Toxic', 'severe'], caseSensitive: false }],
    ['a label in a metric’s list', { type: 'collection', columnId: 'metrics/topics', operator: 'contains', value: ['billing'] }],
    ['a metric’s boolean', { type: 'boolean', columnId: 'metrics/hallucinated', operator: 'eq', value: true }],
  ] as Array<[string, RecordFilter]>)('reads the records of %s that few records match through the record index, never walking the run', (_, f) => {
    // The database is empty: every probe counts nothing, so the index leads.
    const plan = planOf(query([f], null));
    expect(plan).toContain('VIRTUAL TABLE');
    expect(plan).toContain('USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)');
    expect(plan).not.toContain('log_records_by_run_time');
  });

  it('reads incomplete records through their partial index', () => {
    const plan = planOf(query([{ type: 'boolean', columnId: 'is_complete', operator: 'eq', value: false }], null));
    expect(plan).toMatch(/USING (COVERING )?INDEX log_records_incomplete /);
    expect(plan).not.toContain('log_records_by_run_time');
  });

  it.each([
    ['newest first', query([notModel], null)],
    ['oldest first', query([notModel], { columnId: 'created_at', ascending: true })],
    ['newest first, a keyset page', query([notModel], null, 'spans', { after: { createdAt: new Date(0), createdAtMicros: 7, id: ID } })],
    ['oldest first, a keyset page', query([notModel], { columnId: 'created_at', ascending: true }, 'spans', { after: { createdAt: new Date(0), createdAtMicros: 7, id: ID } })],
  ])('still walks the run in time order (to the microsecond), without sorting, for a search that does not narrow: %s', (_, q) => {
    const plan = planOf(q);
    expect(plan).toContain('log_records_by_run_time');
    expect(plan).not.toContain('TEMP B-TREE');
  });

  it('has an index for every id column it names (INDEXED BY fails on a missing one)', () => {
    for (const f of [trace, parents, session, byId]) expect(() => planOf(query([f], null))).not.toThrow();
    const indexes = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'log_records'").pluck().all();
    expect(indexes).toEqual(expect.arrayContaining(['log_records_by_trace', 'log_records_by_parent', 'log_records_by_session', 'sqlite_autoindex_log_records_1']));
  });
});
