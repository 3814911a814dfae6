import { record } from './evaluation.fixtures';
import { averageOf, countsInRollUp, rollUpInfo, rollUpTargets, rollUpValue, takesRollUp } from './roll-up';

describe('roll-up', () => {
  it('targets a span\'s trace and session, a trace\'s session, and nothing of a session', () => {
    expect(rollUpTargets(record({ id: 'l1', type: 'llm', traceId: 't1', sessionId: 's1' }))).toEqual({ trace: 't1', session: 's1' });
    expect(rollUpTargets(record({ id: 't1', type: 'trace', traceId: 't1', sessionId: 's1' }))).toEqual({ trace: null, session: 's1' });
    expect(rollUpTargets(record({ id: 's1', type: 'session', traceId: null, sessionId: 's1' }))).toEqual({ trace: null, session: null });
    expect(rollUpTargets(record({ id: 'l1', type: 'tool', traceId: 't1', sessionId: null }))).toEqual({ trace: 't1', session: null });
  });

  it('counts direct numeric successes only, and rolls up into a target that is not scored itself', () => {
    expect(countsInRollUp({ status_type: 'success', value: 0.5 })).toBe(true);
    expect(countsInRollUp({ status_type: 'success', value: 'good' })).toBe(false);
    expect(countsInRollUp({ status_type: 'success', value: 0.5, roll_up_method: 'average', roll_up_count: 2 })).toBe(false);
    expect(countsInRollUp({ status_type: 'failed', message: 'x' })).toBe(false);
    expect(takesRollUp(undefined)).toBe(true);
    expect(takesRollUp({ status_type: 'success', value: 1, roll_up_method: 'average', roll_up_count: 1 })).toBe(true);
    expect(takesRollUp({ status_type: 'pending' })).toBe(false);
  });

  it('averages, and says it is a roll-up of how many', () => {
    expect(averageOf([])).toBeNull();
    expect(averageOf([1, 0, 0.5])).toBe(0.5);
    expect(rollUpInfo({ metricName: 'toxicity', scorerType: 'llm', version: 2, threshold: null, method: 'average' }, 0.5, 3)).toEqual({
      status_type: 'success',
      scorer_type: 'llm',
      value: 0.5,
      display_value: '0.5',
      explanation: 'The average of 3 scored descendants.',
      version: 2,
      roll_up_method: 'average',
      roll_up_count: 3,
    });
  });

  it('counts labels and booleans for first and last only, and makes the value by the method', () => {
    expect(countsInRollUp({ status_type: 'success', value: 'good' }, 'first')).toBe(true);
    expect(countsInRollUp({ status_type: 'success', value: true }, 'last')).toBe(true);
    expect(countsInRollUp({ status_type: 'success', value: true }, 'sum')).toBe(false);
    expect(countsInRollUp({ status_type: 'success', value: ['a'] }, 'first')).toBe(false);
    const found = { average: 2, sum: 6, first: 1, last: 3 };
    expect((['average', 'sum', 'first', 'last'] as const).map((m) => rollUpValue(m, found))).toEqual([2, 6, 1, 3]);
    expect(rollUpInfo({ metricName: 'length', scorerType: 'code', version: 1, threshold: null, method: 'first' }, 'ok', 2)).toMatchObject({
      value: 'ok',
      display_value: 'ok',
      explanation: 'The first of 2 scored descendants (by creation time).',
      roll_up_method: 'first',
      roll_up_count: 2,
    });
  });
});
