import type { ProjectId, RunId } from '../shared/ids';
import type { LogRecord } from './log-record';
import { applyRecordPatch, isPatchTarget } from './record-update';

const record = (over: Partial<LogRecord> = {}): LogRecord => ({
  id: 'r1', type: 'trace', projectId: 'p' as ProjectId, runId: 'r' as RunId, traceId: 'r1', parentId: null, sessionId: null,
  name: 'n', input: 'q', output: null, createdAt: new Date(0), createdAtMicros: 7, updatedAt: null, tags: ['a'], userMetadata: {}, statusCode: null,
  externalId: null, datasetInput: null, datasetOutput: null, datasetMetadata: {}, metrics: { num_input_tokens: 3 }, isComplete: false,
  hasChildren: true, stepNumber: null, progressMessage: null, errorMessage: null, attributes: { model: 'm' },
  ...over,
});
const now = new Date('2026-06-01T00:00:00Z');

describe('applyRecordPatch', () => {
  it('overwrites what is sent, adds tags once each, sets duration_ns among the metrics, and keeps the rest', () => {
    expect(applyRecordPatch(record(), { output: { role: 'assistant', content: 'x' }, statusCode: 200, tags: ['b', 'a', 'b'], isComplete: true, durationNs: 9, metrics: { cost: 0.5 } }, now)).toEqual(
      record({ output: { role: 'assistant', content: 'x' }, statusCode: 200, tags: ['a', 'b'], isComplete: true, metrics: { num_input_tokens: 3, cost: 0.5, duration_ns: 9 }, updatedAt: now }),
    );
  });
  it('changes nothing but the update time for an empty patch', () => {
    expect(applyRecordPatch(record(), {}, now)).toEqual(record({ updatedAt: now }));
  });
});

describe('isPatchTarget', () => {
  it('a trace patch addresses a trace; a span patch any span type; neither a session', () => {
    expect(['trace', 'llm', 'tool', 'session'].map((type) => [isPatchTarget({ type: type as LogRecord['type'] }, 'trace'), isPatchTarget({ type: type as LogRecord['type'] }, 'span')])).toEqual([
      [true, false],
      [false, true],
      [false, true],
      [false, false],
    ]);
  });
});
