import type { ScorerId } from '../shared/ids';
import { llmVersion, record, scorer } from './evaluation.fixtures';
import { scoringKept } from './metric-info';
import { isReadyToScore, isSampled, jobsFor, judgedContentChanged, pendingByRecord, scoreableNodeTypes, scoringOnWrite } from './scoring-job';

describe('isSampled', () => {
  const ids = Array.from({ length: 2000 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
  const s = 'scorer-a' as ScorerId;

  it('chooses the same records whenever asked', () => {
    const first = ids.filter((id) => isSampled(id, s, 0.5));
    expect(ids.filter((id) => isSampled(id, s, 0.5))).toEqual(first);
  });

  it('chooses about the share asked for, all at 1 and none at 0', () => {
    const share = ids.filter((id) => isSampled(id, s, 0.5)).length / ids.length;
    expect(share).toBeGreaterThan(0.45);
    expect(share).toBeLessThan(0.55);
    expect(ids.every((id) => isSampled(id, s, 1))).toBe(true);
    expect(ids.some((id) => isSampled(id, s, 0))).toBe(false);
  });

  it('chooses a superset at a higher rate, and other records for another scorer', () => {
    const at2 = new Set(ids.filter((id) => isSampled(id, s, 0.2)));
    const at6 = new Set(ids.filter((id) => isSampled(id, s, 0.6)));
    expect([...at2].every((id) => at6.has(id))).toBe(true);
    const other = ids.filter((id) => isSampled(id, 'scorer-b' as ScorerId, 0.5));
    expect(other).not.toEqual(ids.filter((id) => isSampled(id, s, 0.5)));
  });
});

describe('jobsFor', () => {
  const records = [
    record({ id: 't1', type: 'trace', traceId: 't1', parentId: null }),
    record({ id: 'l1', type: 'llm' }),
    record({ id: 'w1', type: 'workflow' }),
    record({ id: 'l2', type: 'llm' }),
  ];

  it('gives one job per record of a type the version scores, for the version in the plan', () => {
    const jobs = jobsFor(records, [{ scorer: scorer(), version: llmVersion({ version: 4 }), sampleRate: 1 }]);
    expect(jobs).toEqual([
      { runId: 'run1', projectId: 'p1', recordId: 'l1', traceId: 't1', scorerId: 's1', version: 4, kind: 'llm', metricName: 'toxicity', ownerId: 'u1' },
      { runId: 'run1', projectId: 'p1', recordId: 'l2', traceId: 't1', scorerId: 's1', version: 4, kind: 'llm', metricName: 'toxicity', ownerId: 'u1' },
    ]);
  });

  it('follows each version\'s node types and each entry\'s sampling', () => {
    const jobs = jobsFor(records, [
      { scorer: scorer(), version: llmVersion({ nodeTypes: ['trace', 'workflow'] }), sampleRate: 1 },
      { scorer: scorer({ id: 's2' as ScorerId, name: 'bleu' }), version: llmVersion(), sampleRate: 0 },
    ]);
    expect(jobs.map((j) => `${j.metricName}:${j.recordId}`)).toEqual(['toxicity:t1', 'toxicity:w1']);
  });

  it('gives nothing for an empty plan', () => {
    expect(jobsFor(records, [])).toEqual([]);
  });

  it('reads node types from the version, else its body, else llm', () => {
    const v = llmVersion({ nodeTypes: ['tool'] });
    expect(scoreableNodeTypes(v)).toEqual(['tool']);
    expect(scoreableNodeTypes({ ...v, scoreableNodeTypes: null })).toEqual(['tool']);
    expect(scoreableNodeTypes({ ...v, scoreableNodeTypes: null, generatedScorer: null })).toEqual(['llm']);
  });
});

describe('pendingByRecord and scoringKept', () => {
  it('marks each record with a job pending for its metric', () => {
    const jobs = jobsFor([record({ id: 'a' }), record({ id: 'b', type: 'tool' })], [{ scorer: scorer(), version: llmVersion({ version: 2 }), sampleRate: 1 }]);
    expect(pendingByRecord(jobs)).toEqual(new Map([['a', { toxicity: { status_type: 'pending', scorer_type: 'llm', version: 2 } }]]));
  });

  it('keeps a stored record\'s entries and success values over what is sent and what is queued', () => {
    const stored = { toxicity: { status_type: 'success' as const, value: 0.5, cost: null }, bleu: { status_type: 'error' as const, message: 'x' } };
    const pending = { toxicity: { status_type: 'pending' as const }, tone: { status_type: 'pending' as const } };
    expect(scoringKept({ duration_ns: 3, toxicity: 0.9 }, stored, pending)).toEqual({
      metrics: { duration_ns: 3, toxicity: 0.5 },
      metricInfo: { toxicity: stored.toxicity, bleu: stored.bleu, tone: pending.tone },
    });
    expect(scoringKept({ a: 1 }, undefined, pending)).toEqual({ metrics: { a: 1 }, metricInfo: pending });
    expect(scoringKept({ a: 1 }, undefined, undefined)).toEqual({ metrics: { a: 1 }, metricInfo: {} });
  });
});

describe('scoringKept afresh', () => {
  it('drops the earlier value and entry of each metric scored again, keeping the others', () => {
    const stored = {
      toxicity: { status_type: 'success' as const, value: 0.5, version: 1 },
      tone: { status_type: 'success' as const, value: 0.2, roll_up_method: 'average' as const, roll_up_count: 2 },
    };
    const pending = { toxicity: { status_type: 'pending' as const, scorer_type: 'llm' as const, version: 1 } };
    expect(scoringKept({ duration_ns: 3, toxicity: 0.5, tone: 0.2 }, stored, pending, true)).toEqual({
      metrics: { duration_ns: 3, tone: 0.2 },
      metricInfo: { toxicity: pending.toxicity, tone: stored.tone },
    });
    expect(scoringKept({ toxicity: 0.5 }, undefined, pending, true)).toEqual({ metrics: {}, metricInfo: pending });
  });
});

describe('scoringOnWrite', () => {
  const incomplete = record({ isComplete: false, output: null });
  const complete = record({ output: '4' });

  it('scores no trace or span before it is complete; a session whenever it is stored', () => {
    expect(isReadyToScore(incomplete)).toBe(false);
    expect(isReadyToScore(complete)).toBe(true);
    expect(isReadyToScore(record({ type: 'session', isComplete: false }))).toBe(true);
    expect(scoringOnWrite(undefined, incomplete, 'ingest')).toBe('none');
    expect(scoringOnWrite(complete, { ...complete, isComplete: false, output: 'other' }, 'ingest')).toBe('none');
    expect(scoringOnWrite(undefined, record({ type: 'session', isComplete: false }), 'ingest')).toBe('missing');
  });

  it('scores a record afresh once it is complete, whether a PATCH or an ingest completes it', () => {
    expect(scoringOnWrite(incomplete, complete, 'patch')).toBe('afresh');
    expect(scoringOnWrite(incomplete, complete, 'ingest')).toBe('afresh');
    // Completed without a change of content (the output came earlier): scored now all the same.
    expect(scoringOnWrite(record({ isComplete: false }), complete, 'patch')).toBe('afresh');
  });

  it('scores a complete record afresh when what its scorers read changes, and a PATCH that changes nothing of it queues nothing', () => {
    expect(scoringOnWrite(complete, { ...complete, output: '5' }, 'patch')).toBe('afresh');
    expect(scoringOnWrite(complete, { ...complete, input: 'What is 2+3?' }, 'ingest')).toBe('afresh');
    expect(scoringOnWrite(complete, { ...complete, tags: ['x'], statusCode: 200, metrics: { duration_ns: 9 } }, 'patch')).toBe('none');
    expect(scoringOnWrite(complete, { ...complete, tags: ['x'] }, 'ingest')).toBe('missing');
    expect(scoringOnWrite(undefined, complete, 'ingest')).toBe('missing');
  });

  it('reads what the judges and code scorers read, a map whatever its keys\' order', () => {
    const a = record({ datasetMetadata: { a: '1', b: '2' } });
    expect(judgedContentChanged(a, { ...a, datasetMetadata: { b: '2', a: '1' } })).toBe(false);
    expect(judgedContentChanged(a, { ...a, datasetMetadata: { a: '1', b: '3' } })).toBe(true);
    expect(judgedContentChanged(a, { ...a, output: { role: 'assistant', content: '4' } })).toBe(true);
    expect(judgedContentChanged(a, { ...a, name: 'other' })).toBe(true);
    expect(judgedContentChanged(a, { ...a, attributes: { tools: '[]' } })).toBe(true);
    expect(judgedContentChanged(a, { ...a, userMetadata: { k: 'v' }, updatedAt: new Date() })).toBe(false);
  });
});
