import * as E from 'fp-ts/Either';
import type { ProjectId, RunId } from '../shared/ids';
import { type IngestContext, type NodeInput, appendClash, flattenSpans, flattenTraces } from './ingest';

const ctx = (over: Partial<IngestContext> = {}): IngestContext => {
  let n = 0;
  return {
    projectId: 'p' as ProjectId,
    runId: 'r' as RunId,
    sessionId: null,
    isComplete: true,
    now: new Date('2026-11-23T10:00:00Z'),
    newId: () => `generated-${++n}`,
    ...over,
  };
};

describe('flattenTraces', () => {
  it('flattens depth first, parents before children, linking each span to its trace and parent', () => {
    const traces: NodeInput[] = [
      {
        id: 'T1',
        name: 'root',
        spans: [
          { type: 'workflow', id: 'a', spans: [{ type: 'llm', id: 'a1' }, { type: 'tool' }] },
          { type: 'retriever', id: 'b' },
        ],
      },
      { sessionId: 's-1' },
    ];
    const flat = flattenTraces(traces, ctx());
    expect(E.isRight(flat)).toBe(true);
    if (E.isLeft(flat)) return;
    expect(flat.right.records.map((r) => [r.id, r.type, r.traceId, r.parentId, r.sessionId, r.hasChildren])).toEqual([
      ['t1', 'trace', 't1', null, null, true],
      ['a', 'workflow', 't1', 't1', null, true],
      ['a1', 'llm', 't1', 'a', null, false],
      ['generated-1', 'tool', 't1', 'a', null, false],
      ['b', 'retriever', 't1', 't1', null, false],
      ['generated-2', 'trace', 'generated-2', null, 's-1', false],
    ]);
    expect(flat.right.traceIds).toEqual(['t1', 'generated-2']);
    expect(flat.right.spanCount).toBe(4);
  });

  it('fills what a node leaves out from the context', () => {
    const flat = flattenTraces([{ spans: [{ type: 'llm', input: 'hi' }] }], ctx({ sessionId: 'sess', isComplete: false }));
    if (E.isLeft(flat)) throw new Error('expected Right');
    const [trace, span] = flat.right.records;
    expect(trace).toMatchObject({ name: '', input: '', output: null, sessionId: 'sess', isComplete: false, tags: [], metrics: {} });
    expect(span).toMatchObject({ input: 'hi', createdAt: new Date('2026-11-23T10:00:00Z'), sessionId: 'sess', isComplete: false });
  });

  it('names the second use of an id used twice, whatever its case', () => {
    const traces: NodeInput[] = [
      { id: 'x', spans: [{ type: 'llm', id: 'y' }] },
      { id: 'z', spans: [{ type: 'tool', id: 'q' }, { type: 'agent', id: 'Y', spans: [{ type: 'llm', id: 'q' }] }] },
    ];
    expect(flattenTraces(traces, ctx())).toEqual(
      E.left({ _tag: 'Invalid', path: ['traces', 1, 'spans', 1, 'id'], message: 'id y is used twice in this request', input: 'Y' }),
    );
  });
});

describe('flattenSpans', () => {
  const place = { traceId: 'T', parentId: 'W' };
  it('links spans sent on their own to the trace and parent named, their children below them, with their times to the microsecond', () => {
    const at = new Date('2026-02-03T04:05:06.123Z');
    const flat = flattenSpans(
      [
        { type: 'workflow', id: 'a', createdAt: at, createdAtMicros: 456, spans: [{ type: 'llm', id: 'a1' }] },
        { type: 'tool' },
      ],
      place,
      ctx({ sessionId: 's', isComplete: false }),
    );
    expect(E.isRight(flat)).toBe(true);
    if (E.isLeft(flat)) return;
    expect(flat.right.map((r) => [r.id, r.type, r.traceId, r.parentId, r.sessionId, r.isComplete, r.createdAtMicros])).toEqual([
      ['a', 'workflow', 't', 'w', 's', false, 456],
      ['a1', 'llm', 't', 'a', 's', false, 0],
      ['generated-1', 'tool', 't', 'w', 's', false, 0],
    ]);
  });
  it('refuses an id used twice, naming where, and a span with the id of its trace or parent', () => {
    expect(flattenSpans([{ type: 'llm', id: 'x' }, { type: 'tool', spans: [{ type: 'llm', id: 'X' }] }], place, ctx())).toEqual(
      E.left(expect.objectContaining({ _tag: 'Invalid', path: ['spans', 1, 'spans', 0, 'id'] })),
    );
    expect(flattenSpans([{ type: 'llm', id: 'w' }], place, ctx())).toEqual(E.left(expect.objectContaining({ _tag: 'Invalid', path: ['spans'] })));
    expect(flattenSpans([{ type: 'llm', spans: [{ type: 'tool', id: 't' }] }], place, ctx())).toEqual(E.left(expect.objectContaining({ _tag: 'Invalid', path: ['spans'] })));
  });
});

describe('appendClash', () => {
  const stored = [
    { id: 't', type: 'trace', traceId: 't' },
    { id: 's', type: 'llm', traceId: 't' },
    { id: 'u', type: 'trace', traceId: 'u' },
    { id: 'v', type: 'tool', traceId: 'u' },
    { id: 'session', type: 'session', traceId: null },
  ] as const;
  const conflict = (message: string) => ({ _tag: 'Conflict', message });
  it('takes spans under a stored trace, below it or one of its spans, and under ids not stored yet', () => {
    expect([
      appendClash(stored, { traceId: 'T', parentId: 'T' }, [{ id: 'new' }]),
      appendClash(stored, { traceId: 't', parentId: 'S' }, [{ id: 'new' }, { id: 's2' }]),
      appendClash(stored, { traceId: 'later', parentId: 'later' }, [{ id: 'new' }]),
      appendClash(stored, { traceId: 't', parentId: 'later' }, [{ id: 'new' }]),
      // A span sent again (a retry) is taken, as is a session's id, which the ingest refuses itself.
      appendClash(stored, { traceId: 't', parentId: 't' }, [{ id: 's' }, { id: 'session' }]),
    ]).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });
  it('refuses a trace_id that is a stored span or session, a parent of another trace, and a span under a stored trace’s id', () => {
    expect([
      appendClash(stored, { traceId: 's', parentId: 's' }, []),
      appendClash(stored, { traceId: 'session', parentId: 'session' }, []),
      appendClash(stored, { traceId: 't', parentId: 'v' }, []),
      appendClash(stored, { traceId: 'later', parentId: 's' }, []),
      appendClash(stored, { traceId: 't', parentId: 'u' }, []),
      appendClash(stored, { traceId: 't', parentId: 'session' }, []),
      appendClash(stored, { traceId: 'later', parentId: 'later' }, [{ id: 'new' }, { id: 'u' }]),
    ]).toEqual([
      conflict('trace_id s is a span of this run, not a trace'),
      conflict('trace_id session is a session of this run, not a trace'),
      conflict('parent_id v is a span of trace u, not of trace t'),
      conflict('parent_id s is a span of trace t, not of trace later'),
      conflict('parent_id u is a trace of this run, not trace t or one of its spans'),
      conflict('parent_id session is a session of this run, not trace t or one of its spans'),
      conflict('record u is a trace of this run: a span cannot take its id'),
    ]);
  });
});
