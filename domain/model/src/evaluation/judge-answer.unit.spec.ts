import * as E from 'fp-ts/Either';
import { template } from './evaluation.fixtures';
import { parseJudgeAnswer, readJudgeValue } from './judge-answer';

describe('parseJudgeAnswer', () => {
  const cpt = template();

  it('reads the value and explanation fields of a JSON object, bare, fenced or in words', () => {
    expect(parseJudgeAnswer('{"rating": true, "explanation": "rude"}', cpt, 'boolean')).toEqual(E.right({ value: true, explanation: 'rude' }));
    expect(parseJudgeAnswer('```json\n{"rating": "no"}\n```', cpt, 'boolean')).toEqual(E.right({ value: false, explanation: '' }));
    expect(parseJudgeAnswer('Sure! {"explanation": "ok", "rating": 0.25} Hope that helps.', cpt, 'percentage')).toEqual(E.right({ value: 0.25, explanation: 'ok' }));
  });

  it('uses the version\'s field names', () => {
    const named = template({ valueFieldName: 'score', explanationFieldName: 'why' });
    expect(parseJudgeAnswer('{"score": "good", "why": "polite"}', named, 'categorical')).toEqual(E.right({ value: 'good', explanation: 'polite' }));
    expect(parseJudgeAnswer('{"rating": "good"}', named, 'categorical')).toEqual(E.left('the judge\'s answer has no "score": "{\\"rating\\": \\"good\\"}"'));
  });

  it('says what is wrong with an answer that does not parse, quoting its start', () => {
    expect(parseJudgeAnswer('I cannot answer that', cpt, 'boolean')).toEqual(E.left('the judge\'s answer is not a JSON object: "I cannot answer that"'));
    expect(parseJudgeAnswer('{"rating": "maybe"}', cpt, 'boolean')).toEqual(E.left('the judge\'s "rating" is not true or false: "\\"maybe\\""'));
    const long = `{"rating": "${'x'.repeat(500)}"}`;
    expect(E.isLeft(parseJudgeAnswer(long, cpt, 'float')) && (parseJudgeAnswer(long, cpt, 'float') as E.Left<string>).left.length).toBeLessThan(300);
  });
});

describe('readJudgeValue', () => {
  it.each([
    ['boolean', true, true], ['boolean', 'Yes', true], ['boolean', 0, false], ['boolean', 'perhaps', undefined],
    ['percentage', 0.4, 0.4], ['percentage', 85, 0.85], ['percentage', '1', 1], ['percentage', 101, undefined], ['percentage', -0.1, undefined],
    ['float', '2.5', 2.5], ['float', 'NaN', undefined], ['float', true, undefined],
    ['discrete', 3, 3], ['discrete', 2.5, undefined],
    ['count', 0, 0], ['count', -1, undefined],
    ['categorical', ' good ', 'good'], ['categorical', '', undefined], ['categorical', 4, '4'],
    ['multilabel', ['a', 'b', 'a'], ['a', 'b']], ['multilabel', 'a', ['a']], ['multilabel', [1], undefined],
  ] as const)('%s reads %j as %j', (type, raw, expected) => {
    expect(readJudgeValue(raw, type)).toEqual(expected);
  });
});
