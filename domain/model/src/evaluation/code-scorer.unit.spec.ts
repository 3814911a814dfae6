import * as E from 'fp-ts/Either';
import { metricColumn } from '../columns/metric-columns';
import {
  type CodeInspection,
  TRACEBACK_CHARS,
  TRACEBACK_LINES,
  codeLogReason,
  codeScoredInfo,
  lastLinesOf,
  profileOf,
  scoreTypeDataType,
  scoredValue,
  scorerArguments,
} from './code-scorer';
import { codeVersion, llmVersion, record, scorer } from './evaluation.fixtures';
import { rollUpSpecOf } from './roll-up';

const found = (over: Partial<CodeInspection> = {}): CodeInspection => ({
  scorerFn: { kind: 'function', line: 1, takesKwargs: true },
  scoreType: null,
  scoreableNodeTypes: null,
  chainAggregation: null,
  ...over,
});

describe('code scorers', () => {
  it('takes a file\'s hooks as the contract says, with float, every default node type and the average when it has none', () => {
    expect(profileOf(found())).toEqual(E.right({ scoreType: 'float', scoreableNodeTypes: null, chainAggregation: null }));
    expect(profileOf(found({ scoreType: 'bool', scoreableNodeTypes: ['llm', 'tool', 'llm'], chainAggregation: 'last' }))).toEqual(
      E.right({ scoreType: 'bool', scoreableNodeTypes: ['llm', 'tool'], chainAggregation: 'last' }),
    );
  });

  it('refuses a file without scorer_fn, a scorer_fn without **kwargs (naming its line), and hooks that break the contract', () => {
    expect(profileOf(found({ scorerFn: { kind: 'missing' } }))).toEqual(E.left({ message: expect.stringContaining('defines no scorer_fn'), line: null }));
    expect(profileOf(found({ scorerFn: { kind: 'not_callable' } }))).toEqual(E.left({ message: 'scorer_fn is not a function', line: null }));
    expect(profileOf(found({ scorerFn: { kind: 'function', line: 7, takesKwargs: false } }))).toEqual(E.left({ message: expect.stringContaining('**kwargs'), line: 7 }));
    expect(profileOf(found({ scoreType: 'list' }))).toEqual(E.left({ message: expect.stringContaining('score_type() returned list'), line: null }));
    expect(profileOf(found({ scoreableNodeTypes: 'invalid' }))).toEqual(E.left({ message: expect.stringContaining('a list of node types'), line: null }));
    expect(profileOf(found({ scoreableNodeTypes: [] }))).toEqual(E.left({ message: expect.stringContaining('empty'), line: null }));
    expect(profileOf(found({ scoreableNodeTypes: ['llm', 'chain'] }))).toEqual(E.left({ message: expect.stringContaining('"chain"'), line: null }));
    expect(profileOf(found({ chainAggregation: 'median' }))).toEqual(E.left({ message: expect.stringContaining('average, sum, first, last'), line: null }));
  });

  it('hands scorer_fn the record: input and output as text, its tools as a list of objects, its dataset fields as dataset_variables', () => {
    const r = record({
      id: 'rec-9',
      type: 'llm',
      name: 'chat',
      input: [{ role: 'user', content: 'hi' }],
      output: 'hello',
      attributes: { tools: '[{"name":"search"}]' },
      datasetInput: 'q',
      datasetOutput: 'a',
      datasetMetadata: { lang: 'en', target: 'not this one' },
    });
    expect(scorerArguments(r)).toEqual({
      index: 'rec-9',
      node_input: '[{"role":"user","content":"hi"}]',
      node_output: 'hello',
      node_name: 'chat',
      node_type: 'llm',
      node_id: 'rec-9',
      tools: [{ name: 'search' }],
      dataset_variables: { lang: 'en', input: 'q', target: 'a' },
    });
    const bare = scorerArguments(record({ output: null, attributes: { tools: 'not json' } }));
    expect([bare.node_output, bare.tools, bare.dataset_variables]).toEqual(['', null, {}]);
    expect(scorerArguments(record({ attributes: { tools: '{"name":"x"}' } })).tools).toBeNull();
  });

  it('stores what scorer_fn returned when its type fits the score type, and says why not otherwise', () => {
    expect(scoredValue('float', { type: 'float', value: 0.5 })).toEqual(E.right(0.5));
    expect(scoredValue('float', { type: 'int', value: 3 })).toEqual(E.right(3));
    expect(scoredValue('int', { type: 'float', value: 3 })).toEqual(E.right(3));
    expect(scoredValue('int', { type: 'float', value: 2.5 })).toEqual(E.left('scorer_fn returned a float (2.5), but score_type is int'));
    expect(scoredValue('bool', { type: 'bool', value: false })).toEqual(E.right(false));
    expect(scoredValue('float', { type: 'bool', value: true })).toEqual(E.left('scorer_fn returned a bool (True), but score_type is float'));
    expect(scoredValue('str', { type: 'str', value: 'good' })).toEqual(E.right('good'));
    expect(scoredValue('int', { type: 'str', value: '3' })).toEqual(E.left('scorer_fn returned a str, but score_type is int'));
    expect(scoredValue('str', { type: 'none' })).toEqual(E.right(null));
    expect(scoredValue('float', { type: 'other', typeName: 'dict' })).toEqual(E.left('scorer_fn returned a dict: it must return a float, int, bool, str or None'));
    expect(scoredValue('float', { type: 'float', value: Number.NaN })).toEqual(E.left('scorer_fn returned NaN, which no column can hold'));
  });

  it('writes the value on the record as the code scorer\'s success', () => {
    expect(codeScoredInfo(codeVersion({ version: 3 }), true, undefined)).toEqual({
      status_type: 'success', scorer_type: 'code', value: true, display_value: 'true', explanation: null, version: 3,
    });
    expect(codeScoredInfo(codeVersion(), null, undefined)).toMatchObject({ value: null, display_value: null });
    expect(codeScoredInfo(codeVersion(), 0.8, { buckets: [0.5], displayValueLevels: ['Low', 'High'], inverted: false }).display_value).toBe('High');
  });

  it('keeps a traceback\'s last lines, bounded in lines and characters', () => {
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\n');
    const kept = lastLinesOf(`${lines}\n\n`);
    expect(kept.split('\n')).toEqual(['…', ...Array.from({ length: TRACEBACK_LINES }, (_, i) => `line ${40 - TRACEBACK_LINES + i}`)]);
    const long = lastLinesOf(`Traceback\nValueError: ${'x'.repeat(5000)}`);
    expect(long.length).toBe(TRACEBACK_CHARS);
    expect(long.endsWith('xxx')).toBe(true);
    expect(lastLinesOf('ValueError: boom')).toBe('ValueError: boom');
  });

  it('types the metric column by score_type and rolls it up by chain_aggregation', () => {
    expect(['float', 'int', 'str', 'bool'].map((t) => scoreTypeDataType(t as 'float'))).toEqual(['floating_point', 'integer', 'text', 'boolean']);
    const s = scorer({ name: 'length', scorerType: 'code' });
    expect(metricColumn(s, null, codeVersion({ scoreType: 'int', chainAggregation: 'sum' }))).toMatchObject({ dataType: 'integer', filterType: 'number', rollUpMethod: 'sum' });
    expect(metricColumn(s, null, codeVersion({ scoreType: 'bool' }))).toMatchObject({ dataType: 'boolean', filterType: 'boolean', rollUpMethod: 'average' });
    expect(metricColumn(s, null, codeVersion({ scoreType: null }))).toMatchObject({ dataType: 'floating_point' });
    expect(metricColumn(s, null, codeVersion({ scoreType: 'str', chainAggregation: 'first' }))).toMatchObject({ dataType: 'text', filterType: 'text', rollUpMethod: 'first' });
    expect(metricColumn(scorer(), 'categorical', llmVersion({ outputType: 'categorical' }))).toMatchObject({ dataType: 'text', rollUpMethod: 'average' });
  });

  it('rolls numbers up by any method, labels and booleans only by first or last', () => {
    const job = { metricName: 'length', kind: 'code' as const, version: 1 };
    expect(rollUpSpecOf(job, null, codeVersion({ scoreType: 'int', chainAggregation: 'sum' }))).toEqual({ metricName: 'length', scorerType: 'code', version: 1, threshold: null, method: 'sum' });
    expect(rollUpSpecOf(job, null, codeVersion({ scoreType: 'bool' }))).toBeNull();
    expect(rollUpSpecOf(job, null, codeVersion({ scoreType: 'bool', chainAggregation: 'last' }))?.method).toBe('last');
    expect(rollUpSpecOf(job, null, codeVersion({ scoreType: 'str', chainAggregation: 'first' }))?.method).toBe('first');
    expect(rollUpSpecOf({ ...job, kind: 'llm' }, null, llmVersion({ outputType: 'categorical' }))).toBeNull();
    expect(rollUpSpecOf({ ...job, kind: 'llm' }, null, llmVersion({ outputType: 'boolean' }))?.method).toBe('average');
  });

  it('logs of a traceback only the exception\'s type (its message may quote the record), other messages as they are', () => {
    expect(codeLogReason('Traceback (most recent call last):\n  File "s.py", line 2, in scorer_fn\nValueError: the customer said "secret"')).toBe(
      "scorer_fn raised ValueError (the traceback is in the record's metric_info)",
    );
    expect(codeLogReason('…\n  File "s.py"\njson.decoder.JSONDecodeError: Expecting value')).toContain('raised json.decoder.JSONDecodeError');
    expect(codeLogReason('scorer_fn ran past the time limit of 5 s and was stopped')).toBe('scorer_fn ran past the time limit of 5 s and was stopped');
  });
});
