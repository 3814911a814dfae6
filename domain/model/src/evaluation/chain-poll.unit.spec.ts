import { chainPoll, judgedInfo } from './chain-poll';
import { llmVersion } from './evaluation.fixtures';
import type { JudgeAnswer } from './judge-answer';
import { displayValueOf, thresholdLevel } from './metric-info';

const said = (...values: JudgeAnswer['value'][]): JudgeAnswer[] => values.map((value, i) => ({ value, explanation: `judge ${i + 1}` }));

describe('chainPoll', () => {
  it('boolean: the share of judges that said true, explained by a judge of the majority', () => {
    expect(chainPoll('boolean', said(true, true, false))).toEqual({ value: 2 / 3, explanation: 'judge 1' });
    expect(chainPoll('boolean', said(false, true, false))).toEqual({ value: 1 / 3, explanation: 'judge 1' });
    expect(chainPoll('boolean', said(true, false, false))).toEqual({ value: 1 / 3, explanation: 'judge 2' });
    expect(chainPoll('boolean', said(false))).toEqual({ value: 0, explanation: 'judge 1' });
  });

  it('numbers: the mean, explained by the judge closest to it', () => {
    expect(chainPoll('percentage', said(0.2, 0.5, 0.8))).toEqual({ value: 0.5, explanation: 'judge 2' });
    expect(chainPoll('float', said(1, 2))).toEqual({ value: 1.5, explanation: 'judge 1' });
    expect(chainPoll('count', said(3, 4, 8))).toEqual({ value: 5, explanation: 'judge 2' });
    expect(chainPoll('discrete', said(2, 2, 5)).value).toBe(3);
  });

  it('categorical: the label most judges gave, a tie to the label given first', () => {
    expect(chainPoll('categorical', said('bad', 'good', 'good'))).toEqual({ value: 'good', explanation: 'judge 2' });
    expect(chainPoll('categorical', said('bad', 'good'))).toEqual({ value: 'bad', explanation: 'judge 1' });
    expect(chainPoll('categorical', said('a', 'b', 'b', 'a', 'c')).value).toBe('a');
  });

  it('multilabel: the labels more than half of the judges chose, in order of first appearance', () => {
    expect(chainPoll('multilabel', [
      { value: ['x', 'y'], explanation: 'one' },
      { value: ['y', 'x', 'z'], explanation: 'two' },
      { value: ['y'], explanation: 'three' },
    ])).toEqual({ value: ['x', 'y'], explanation: 'one' });
    expect(chainPoll('multilabel', said(['a'], ['b'])).value).toEqual([]);
  });
});

describe('judgedInfo', () => {
  it('is the origin\'s MetricSuccess, with every judge\'s explanation and the threshold level', () => {
    const answers = said(true, true, false);
    const info = judgedInfo(llmVersion({ version: 3 }), chainPoll('boolean', answers), answers, { buckets: [0.3, 0.7], displayValueLevels: ['Low', 'Medium', 'High'], inverted: true });
    expect(info).toEqual({
      status_type: 'success',
      scorer_type: 'llm',
      value: 2 / 3,
      display_value: 'Medium',
      explanation: 'judge 1',
      rationale: 'Judge 1: judge 1\n\nJudge 2: judge 2\n\nJudge 3: judge 3',
      explanations: ['judge 1', 'judge 2', 'judge 3'],
      model_alias: 'judge-model',
      num_judges: 3,
      cost: null,
      version: 3,
    });
  });
});

describe('display values', () => {
  const threshold = { buckets: [0.3, 0.7], displayValueLevels: ['Low', 'Medium', 'High'], inverted: false };
  it('gives the level of the first bucket the value is below, the last past them all', () => {
    expect([0, 0.29, 0.3, 0.69, 0.7, 1].map((v) => thresholdLevel(v, threshold))).toEqual(['Low', 'Low', 'Medium', 'Medium', 'High', 'High']);
  });
  it('gives the value as text without a threshold, labels joined', () => {
    expect(displayValueOf(2 / 3, undefined)).toBe('0.6667');
    expect(displayValueOf('good', threshold)).toBe('good');
    expect(displayValueOf(['a', 'b'], undefined)).toBe('a, b');
  });
});
