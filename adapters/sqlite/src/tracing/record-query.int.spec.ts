// The plans SQLite makes for record searches, on the real schema: a search that picks records by an id
// column with its own index (a trace's spans, a span's children) reads them through that index, not by
// walking the whole run in time order, whatever order it asks for.
import Database from 'better-sqlite3';
import { asId, type ProjectId, type RecordFilter, type RunId } from '@tracelight/domain';
import { migrate } from '../shared/sqlite-database';
import { MIGRATIONS } from '../shared/migrations';
import { FOLD_CASE, SEARCH_BUDGET, compileSearch } from './record-query.sql';

const db = new Database(':memory:');
migrate(db, MIGRATIONS);
db.function(FOLD_CASE, { deterministic: true }, (v: unknown) => v);
db.function(SEARCH_BUDGET, { deterministic: false }, () => 1);
afterAll(() => db.close());

const planOf = (filters: RecordFilter[], sort: { columnId: string; ascending: boolean } | null): string => {
  const { sql, params } = compileSearch({
    projectId: asId<ProjectId>('p'),
    runId: asId<RunId>('r'),
    scope: 'spans',
    filters,
    sort,
    page: { startingToken: 0, limit: 100 },
    maxBytes: 1e9,
    maxMs: 60_000,
  });
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>).map((r) => r.detail).join('\n');
};

describe('record search plans', () => {
  const trace: RecordFilter = { type: 'id', columnId: 'trace_id', operator: 'eq', value: '0190b7a8-0000-7000-8000-000000000001' };
  const parents: RecordFilter = { type: 'id', columnId: 'parent_id', operator: 'one_of', value: ['0190b7a8-0000-7000-8000-000000000001', '0190b7a8-0000-7000-8000-000000000002'] };

  it.each([
    ['newest first', null],
    ['oldest first', { columnId: 'created_at', ascending: true }],
  ])('reads a trace’s spans by log_records_by_trace, %s', (_, sort) => {
    expect(planOf([trace], sort)).toContain('log_records_by_trace');
  });

  it('reads a span’s children by log_records_by_parent', () => {
    expect(planOf([parents], null)).toContain('log_records_by_parent');
  });

  it('still walks the run in time order, without sorting, for a search that does not narrow', () => {
    const plan = planOf([{ type: 'text', columnId: 'model', operator: 'eq', value: 'gpt', caseSensitive: true }], null);
    expect(plan).toContain('log_records_by_run_time');
    expect(plan).not.toContain('TEMP B-TREE');
  });
});
