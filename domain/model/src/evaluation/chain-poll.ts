// ChainPoll: several independent judgments of one record, aggregated by the metric's output type into
// one value, with the explanations that go with it.
import type { ColumnThreshold } from '../scorers/scorer';
import type { ScorerVersion } from '../scorers/scorer-version';
import type { JudgeAnswer } from './judge-answer';
import type { JudgeOutputType } from './judge-prompt';
import { type MetricInfo, type MetricValue, displayValueOf } from './metric-info';

export interface ChainPollResult {
  readonly value: MetricValue;
  /** The explanation of the first judge whose own answer agrees with the aggregate. */
  readonly explanation: string;
}

const mean = (xs: ReadonlyArray<number>): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Each distinct item with how often it occurs, in order of first appearance. */
const tally = (items: ReadonlyArray<string>): Array<[string, number]> => {
  const counts = new Map<string, number>();
  for (const i of items) counts.set(i, (counts.get(i) ?? 0) + 1);
  return [...counts];
};

/**
 * The aggregate of `answers` (at least one), as ChainPoll takes it per output type: `boolean` → the
 * share of judges that said true (0 to 1, ChainPoll's score); `percentage`, `float`, `discrete`,
 * `count` → the mean; `categorical` → the label most judges gave (a tie goes to the label given first);
 * `multilabel` → the labels more than half of the judges chose, in the order they were first given.
 */
export const chainPoll = (outputType: JudgeOutputType, answers: ReadonlyArray<JudgeAnswer>): ChainPollResult => {
  if (answers.length === 0) throw new Error('chainPoll needs at least one answer'); // a bug in the caller
  const explainedBy = (agrees: (a: JudgeAnswer) => boolean) => (answers.find(agrees) ?? answers[0]!).explanation;
  switch (outputType) {
    case 'boolean': {
      const share = answers.filter((a) => a.value === true).length / answers.length;
      return { value: share, explanation: explainedBy((a) => a.value === (share >= 0.5)) };
    }
    case 'percentage':
    case 'float':
    case 'discrete':
    case 'count': {
      const numbers = answers.map((a) => a.value as number);
      const value = mean(numbers);
      const closest = Math.min(...numbers.map((n) => Math.abs(n - value)));
      return { value, explanation: explainedBy((a) => Math.abs((a.value as number) - value) === closest) };
    }
    case 'categorical': {
      const [label] = tally(answers.map((a) => a.value as string)).reduce((best, next) => (next[1] > best[1] ? next : best));
      return { value: label, explanation: explainedBy((a) => a.value === label) };
    }
    case 'multilabel': {
      const chosen = tally(answers.flatMap((a) => a.value as ReadonlyArray<string>))
        .filter(([, n]) => n * 2 > answers.length)
        .map(([label]) => label);
      const same = (labels: ReadonlyArray<string>) => labels.length === chosen.length && labels.every((l) => chosen.includes(l));
      return { value: chosen, explanation: explainedBy((a) => same(a.value as ReadonlyArray<string>)) };
    }
  }
};

/** The record's metric entry for a judged record: the value, its display, and every judge's words. */
export const judgedInfo = (
  version: ScorerVersion,
  result: ChainPollResult,
  answers: ReadonlyArray<JudgeAnswer>,
  threshold: ColumnThreshold | undefined,
): MetricInfo => ({
  status_type: 'success',
  scorer_type: 'llm',
  value: result.value,
  display_value: displayValueOf(result.value, threshold),
  explanation: result.explanation,
  rationale: answers.map((a, i) => `Judge ${i + 1}: ${a.explanation}`).join('\n\n'),
  explanations: answers.map((a) => a.explanation),
  model_alias: version.modelName,
  num_judges: answers.length,
  cost: null,
  version: version.version,
});
