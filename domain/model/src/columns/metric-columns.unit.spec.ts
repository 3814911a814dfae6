import type { Scorer } from '../scorers/scorer';
import type { ScorerId, UserId } from '../shared/ids';
import { metricColumn } from './metric-columns';

const scorer = (over: Partial<Scorer> = {}): Scorer => ({
  id: '0190f7a4-0000-7000-8000-000000000001' as ScorerId,
  name: 'toxicity',
  scorerType: 'llm',
  description: 'How toxic the output is.',
  tags: [],
  defaults: {},
  display: {},
  createdBy: '0190f7a4-0000-7000-8000-0000000000aa' as UserId,
  createdAt: new Date(0),
  updatedAt: new Date(0),
  ...over,
});

describe('metric columns', () => {
  it('carries the scorer’s group label, unit and threshold', () => {
    const threshold = { buckets: [0.3, 0.7], displayValueLevels: ['Low', 'Medium', 'High'], inverted: true };
    const c = metricColumn(
      scorer({ display: { groupLabel: 'Safety Metrics', dataUnit: 'percentage', threshold } }),
      'percentage',
    );
    expect(c).toEqual({
      id: 'metrics/toxicity',
      label: 'Toxicity',
      description: 'How toxic the output is.',
      category: 'metric',
      groupLabel: 'Safety Metrics',
      dataType: 'floating_point',
      dataUnit: 'percentage',
      filterType: 'number',
      filterable: true,
      sortable: true,
      multiValued: false,
      isEmpty: false,
      isOptional: false,
      applicableTypes: [],
      rollUpMethod: 'average',
      threshold,
    });
  });

  it('omits unit and threshold the scorer does not have, and derives the data type from the output type', () => {
    const c = metricColumn(scorer({ name: 'bleu', display: { label: 'BLEU (deprecated)', groupLabel: 'Output Quality' } }), 'categorical');
    expect(c.label).toBe('BLEU (deprecated)');
    expect(c.dataType).toBe('text');
    expect(c.filterType).toBe('text');
    expect('dataUnit' in c).toBe(false);
    expect('threshold' in c).toBe(false);
  });

  it('types a luna version’s labels as its own output types say: string_list a collection of several, string text', () => {
    expect(metricColumn(scorer(), 'string_list')).toMatchObject({ dataType: 'string_list', filterType: 'collection', multiValued: true });
    expect(metricColumn(scorer(), 'string')).toMatchObject({ dataType: 'text', filterType: 'text', multiValued: false });
    expect(metricColumn(scorer(), 'float')).toMatchObject({ dataType: 'floating_point', filterType: 'number' });
  });

  it('labels a scorer without a label by its name title-cased, word by word, in any script', () => {
    const labelOf = (name: string) => metricColumn(scorer({ name, display: {} }), null).label;
    const names = ['answer_relevance', 'context-adherence', 'élégance naïve don\'t', 'straße', 'v1.2 judge', 'ñandú  doble', 'answer/relevance', 'tone.score', '(beta) judge', 'ßeta', 'l’été'];
    expect(names.map(labelOf)).toEqual([
      'Answer Relevance',
      'Context Adherence',
      'Élégance Naïve Don\'t',
      'Straße',
      'V1.2 Judge',
      'Ñandú  Doble',
      'Answer/Relevance',
      'Tone.Score',
      '(Beta) Judge',
      'ßeta',
      'L’été',
    ]);
  });

  it('falls back to the scorer defaults’ output type, then to a floating-point score', () => {
    expect(metricColumn(scorer({ defaults: { outputType: 'integer' } }), null).dataType).toBe('integer');
    expect(metricColumn(scorer(), null).dataType).toBe('floating_point');
  });
});
