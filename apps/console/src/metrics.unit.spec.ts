import type { Column, MetricInfo, RunScoringStatus } from '@tracelight/client';
import { isScoring, judgesOf, metricView, statusOf } from './metrics';

const toxicity: Column = {
  id: 'metrics/toxicity',
  label: 'Toxicity',
  description: '',
  category: 'metric',
  group_label: 'Safety Metrics',
  data_type: 'floating_point',
  data_unit: 'percentage',
  filter_type: 'number',
  filterable: true,
  sortable: true,
  multi_valued: false,
  is_empty: false,
  is_optional: false,
  applicable_types: [],
  threshold: { buckets: [0.3, 0.7], display_value_levels: ['Low', 'Medium', 'High'], inverted: true },
};

const success = (over: Partial<MetricInfo> = {}): MetricInfo => ({ status_type: 'success', value: 0.5, display_value: 'Medium', explanation: 'Curt in places.', num_judges: 1, version: 2, ...over });

describe('a metric as the page reads it', () => {
  it('shows a success as its value with the level, the explanation and how it was made on hover', () => {
    expect(metricView(toxicity, 0.5, success({ num_judges: 3, model_alias: 'gpt-4o-mini' }))).toEqual({
      value: { kind: 'number', text: '50 %', level: { label: 'Medium', tone: 'fair' } },
      tip: 'Curt in places.\n\n3 judges · gpt-4o-mini · version 2',
    });
    // Inverted: the high level is the bad one; the server's level is taken where it names one of the threshold's.
    expect(metricView(toxicity, 0.9, success({ value: 0.9, display_value: 'High' })).value).toEqual({ kind: 'number', text: '90 %', level: { label: 'High', tone: 'poor' } });
    // A level the threshold does not have (the scorer's threshold changed since): the threshold's own.
    expect(metricView(toxicity, 0.1, success({ value: 0.1, display_value: 'Gone' })).value).toEqual({ kind: 'number', text: '10 %', level: { label: 'Low', tone: 'good' } });
  });

  it('says a roll-up is an average of the records under it, in the server’s words where it gives them', () => {
    const rollUp = success({ value: 0.2, explanation: 'The average of 2 scored descendants.', display_value: 'Low', num_judges: null, roll_up_method: 'average', roll_up_count: 2, version: 1 });
    expect(metricView(toxicity, 0.2, rollUp).tip).toBe('The average of 2 scored descendants.\n\nversion 1');
    expect(metricView(toxicity, 0.2, { ...rollUp, explanation: null }).tip).toBe('Average of 2 scored records under it · version 1');
  });

  it('shows the value metrics holds, which the column filters and sorts on, over the one in metric_info', () => {
    expect(metricView(toxicity, 0.75, success({ value: 0.5 })).value).toMatchObject({ text: '75 %' });
    // metrics without the value (an older answer): the success's own.
    expect(metricView(toxicity, undefined, success({ value: 0.5 })).value).toMatchObject({ text: '50 %' });
  });

  it('shows a status in place of a value, with its message or what it means', () => {
    expect(metricView(toxicity, undefined, { status_type: 'pending', version: 1 })).toEqual({
      status: { type: 'pending', label: 'Pending', tone: 'waiting', message: 'Queued for scoring: a judge has not answered yet.' },
      tip: 'Queued for scoring: a judge has not answered yet.',
    });
    expect(metricView(toxicity, undefined, { status_type: 'error', message: 'no gateway integration' })).toEqual({
      status: { type: 'error', label: 'Error', tone: 'problem', message: 'no gateway integration' },
      tip: 'no gateway integration',
    });
    expect(['computing', 'failed', 'not_computed', 'not_applicable'].map((s) => statusOf({ status_type: s as MetricInfo['status_type'] }))).toEqual([
      { type: 'computing', label: 'Computing', tone: 'waiting', message: 'A judge is scoring it.' },
      { type: 'failed', label: 'Failed', tone: 'problem', message: 'The judge gave nothing usable.' },
      { type: 'not_computed', label: 'Not computed', tone: 'quiet', message: 'This kind of scorer is not run here.' },
      { type: 'not_applicable', label: 'Not applicable', tone: 'quiet', message: 'The scorer does not apply to this record.' },
    ]);
  });

  it('shows a value the record holds beside a status that is not a success (a record sent with a value, then queued)', () => {
    expect(metricView(toxicity, 0.1, { status_type: 'pending' })).toEqual({
      value: { kind: 'number', text: '10 %', level: { label: 'Low', tone: 'good' } },
      status: { type: 'pending', label: 'Pending', tone: 'waiting', message: 'Queued for scoring: a judge has not answered yet.' },
      tip: "Queued for scoring: a judge has not answered yet.\n\nThe value shown is the one the record holds, not this scoring's.",
    });
  });

  it('shows a value no scorer wrote (a client sent it) without a status, labels as labels, and nothing as nothing', () => {
    expect(metricView(toxicity, 0.4, undefined)).toEqual({ value: { kind: 'number', text: '40 %', level: { label: 'Medium', tone: 'fair' } } });
    expect(metricView(undefined, ['polite', 'brief'], success({ value: ['polite', 'brief'], display_value: 'polite, brief' })).value).toEqual({ kind: 'labels', labels: ['polite', 'brief'] });
    expect(metricView(undefined, 3, undefined)).toEqual({ value: { kind: 'number', text: '3' } });
    // A code scorer's bool is a label, even under a column with a threshold.
    expect(metricView(toxicity, false, success({ value: false })).value).toEqual({ kind: 'labels', labels: ['false'] });
    expect(metricView(toxicity, undefined, undefined)).toEqual({});
    expect(metricView(toxicity, null, undefined)).toEqual({});
  });

  it('lists each judge’s explanation only where there were several', () => {
    expect(judgesOf(success({ explanations: ['a', 'b', 'c'] }))).toEqual(['a', 'b', 'c']);
    expect(judgesOf(success({ explanations: ['a'] }))).toEqual([]);
    expect(judgesOf({ status_type: 'failed', message: 'x' })).toEqual([]);
  });

  it('tells whether a run still has jobs queued or in hand', () => {
    const entry = (pending: number, computing: number): RunScoringStatus['scorers'][number] => ({
      scorer_id: 's',
      scorer_name: 'toxicity',
      version: 1,
      in_use: true,
      sample_rate: 1,
      jobs: { pending, computing, succeeded: 3, failed: 0, error: 0, not_applicable: 0, not_computed: 0 },
      last_error: null,
      tokens: { prompt: 0, completion: 0 },
    });
    expect([isScoring({ run_id: 'r', scorers: [entry(0, 0)] }), isScoring({ run_id: 'r', scorers: [entry(0, 0), entry(0, 1)] }), isScoring({ run_id: 'r', scorers: [entry(2, 0)] }), isScoring(undefined)]).toEqual([
      false,
      true,
      true,
      false,
    ]);
  });
});
