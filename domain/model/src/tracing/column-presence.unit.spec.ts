import type { ProjectId, RunId } from '../shared/ids';
import { presentColumns, presentColumnsOfAll } from './column-presence';
import type { LogRecord } from './log-record';

const record = (over: Partial<LogRecord>): LogRecord => ({
  id: 'r1', type: 'llm', projectId: 'p' as ProjectId, runId: 'r' as RunId, traceId: 't', parentId: null, sessionId: null,
  name: '', input: '', output: null, createdAt: new Date(0), createdAtMicros: 0, updatedAt: null, tags: [], userMetadata: {}, statusCode: null,
  externalId: null, datasetInput: null, datasetOutput: null, datasetMetadata: {}, metrics: {}, isComplete: true,
  hasChildren: false, stepNumber: null, progressMessage: null, errorMessage: null, attributes: {},
  ...over,
});

describe('presentColumnsOfAll', () => {
  it('is the union of what each record fills, plus has_children when any record names a parent', () => {
    const records = [
      record({ input: 'hi', metrics: { toxicity: 0.2, bleu: null } }),
      record({ id: 'r2', name: 'step', tags: ['a'], attributes: { model: 'gpt-4o-mini' }, parentId: 'r1' }),
      record({ id: 'r3', type: 'tool', statusCode: 500, attributes: { tool_call_id: 'call_1' }, metrics: { bleu: 0.4 } }),
      record({ id: 'r4', type: 'agent', input: 'again', errorMessage: 'boom', attributes: { agent_type: 'planner' } }),
    ];
    const union = new Set(records.flatMap((r) => presentColumns(r)));
    union.add('has_children');
    expect(new Set(presentColumnsOfAll(records))).toEqual(union);
    expect(presentColumnsOfAll(records)).toEqual(expect.arrayContaining(['input', 'name', 'tags', 'model', 'status_code', 'tool_call_id', 'agent_type', 'error_message', 'metrics/toxicity', 'metrics/bleu']));
    expect(presentColumnsOfAll(records)).not.toContain('temperature');
  });

  it('counts a column only from a record of a type it applies to', () => {
    // A session's own id, its flags and type; a trace's own id as trace_id: none of these columns applies to them.
    const session = record({ id: 's1', type: 'session', sessionId: 's1', traceId: null });
    expect(presentColumnsOfAll([session])).not.toEqual(expect.arrayContaining(['session_id']));
    expect(presentColumns(session)).toEqual(expect.not.arrayContaining(['session_id', 'has_children', 'is_complete', 'type', 'trace_id']));
    expect(presentColumns(record({ id: 't1', type: 'trace', traceId: 't1' }))).not.toContain('trace_id');
    expect(presentColumns(record({ type: 'llm', traceId: 't1', sessionId: 's1' }))).toEqual(expect.arrayContaining(['trace_id', 'session_id', 'type']));
    // model applies to llm spans alone.
    expect(presentColumns(record({ type: 'tool', attributes: { model: 'x' } }))).not.toContain('model');
  });

  it('gives nothing but the always-filled columns for an empty record, and nothing for no records', () => {
    expect(presentColumnsOfAll([])).toEqual([]);
    expect(new Set(presentColumnsOfAll([record({})]))).toEqual(new Set(presentColumns(record({}))));
  });
});
