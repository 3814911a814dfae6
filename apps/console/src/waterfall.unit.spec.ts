import type { StoredRecord } from '@tracelight/client';
import { waterfallOf } from './waterfall';

const T0 = Date.parse('2026-05-01T10:00:00.000Z');
const rec = (id: string, parent: string | null, startMs: number, durationMs: number | null, over: Partial<StoredRecord> = {}): StoredRecord =>
  ({
    type: parent === null ? 'trace' : 'llm',
    id,
    trace_id: parent === null ? null : 't',
    parent_id: parent,
    name: id,
    created_at: new Date(T0 + startMs).toISOString(),
    metrics: durationMs === null ? {} : { duration_ns: durationMs * 1e6 },
    status_code: null,
    error_message: null,
    step_number: null,
    ...over,
  }) as unknown as StoredRecord;

describe('the waterfall of a trace', () => {
  it('orders the tree depth-first, children by start, with offsets and durations on one scale', () => {
    const trace = rec('t', null, 0, 1000);
    const w = waterfallOf(trace, [rec('b', 't', 400, 100), rec('a', 't', 100, 500), rec('a1', 'a', 150, 200), rec('a2', 'a', 120, 50)]);
    expect(w.rows.map((r) => [r.record.id, r.depth, r.offsetMs, r.durationMs])).toEqual([
      ['t', 0, 0, 1000],
      ['a', 1, 100, 500],
      ['a2', 2, 120, 50],
      ['a1', 2, 150, 200],
      ['b', 1, 400, 100],
    ]);
    expect(w.totalMs).toBe(1000);
  });

  it('hangs a span whose parent is missing from the trace, and marks failures', () => {
    const trace = rec('t', null, 0, null);
    const w = waterfallOf(trace, [rec('x', 'missing', 10, 20, { status_code: 500 }), rec('y', 't', 5, 5, { error_message: 'boom' }), rec('z', 't', 40, 1)]);
    expect(w.rows.map((r) => [r.record.id, r.depth, r.failed])).toEqual([
      ['t', 0, false],
      ['y', 1, true],
      ['x', 1, true],
      ['z', 1, false],
    ]);
    expect(w.totalMs).toBe(41);
  });

  it('shows spans caught in a cycle of parents once each, not never', () => {
    const w = waterfallOf(rec('t', null, 0, 1), [rec('p', 'q', 1, 1), rec('q', 'p', 2, 1)]);
    expect(w.rows.map((r) => r.record.id).sort()).toEqual(['p', 'q', 't']);
  });
});
