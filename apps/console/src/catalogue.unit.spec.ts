import type { Column, StoredRecord } from '@tracelight/client';
import { appliesTo, cellOf, columnsOf, groupsOf, levelOf, shownByDefault, shownColumns, toneOf, toneOfLabel } from './catalogue';

const column = (over: Partial<Column> & { id: string }): Column => ({
  label: over.id,
  description: '',
  category: 'standard',
  group_label: 'Standard',
  data_type: 'text',
  filter_type: 'text',
  filterable: true,
  sortable: true,
  multi_valued: false,
  is_empty: false,
  is_optional: false,
  applicable_types: [],
  ...over,
});

const ALL = ['retriever', 'agent', 'session', 'control', 'tool', 'workflow', 'llm', 'trace'];
const catalogue = [
  column({ id: 'name', applicable_types: ALL }),
  column({ id: 'tags', applicable_types: ALL.filter((t) => t !== 'session'), is_empty: true }),
  column({ id: 'model', applicable_types: ['llm'] }),
  column({ id: 'agent_type', applicable_types: ['agent'], is_empty: true }),
  column({ id: 'metrics/toxicity', category: 'metric', group_label: 'Safety Metrics' }),
];

describe('the catalogue as the table reads it', () => {
  it('offers each tab the columns whose applicable types name its records; metric columns everywhere', () => {
    expect(columnsOf(catalogue, 'traces').map((c) => c.id)).toEqual(['name', 'tags', 'metrics/toxicity']);
    expect(columnsOf(catalogue, 'spans').map((c) => c.id)).toEqual(['name', 'tags', 'model', 'agent_type', 'metrics/toxicity']);
    expect(columnsOf(catalogue, 'sessions').map((c) => c.id)).toEqual(['name', 'metrics/toxicity']);
    expect(appliesTo(column({ id: 'x', applicable_types: ['trace'] }), 'spans')).toBe(false);
  });

  it('shows the columns with values at first, and the person’s choice after, in the catalogue’s order', () => {
    const spans = columnsOf(catalogue, 'spans');
    expect(shownByDefault(spans)).toEqual(['name', 'model', 'metrics/toxicity']);
    expect(shownColumns(spans, undefined).map((c) => c.id)).toEqual(['name', 'model', 'metrics/toxicity']);
    expect(shownColumns(spans, ['metrics/toxicity', 'tags', 'gone']).map((c) => c.id)).toEqual(['tags', 'metrics/toxicity']);
  });

  it('groups columns by group label, in order of first appearance', () => {
    expect(groupsOf(catalogue).map((g) => [g.label, g.columns.length])).toEqual([
      ['Standard', 4],
      ['Safety Metrics', 1],
    ]);
  });

  it('reads a metric column off the metrics map and any other by its id', () => {
    const record = { name: 'n', model: 'gpt', metrics: { toxicity: 0.4 } } as unknown as StoredRecord;
    expect([cellOf(record, 'model'), cellOf(record, 'metrics/toxicity'), cellOf(record, 'metrics/none')]).toEqual(['gpt', 0.4, undefined]);
  });
});

describe('threshold levels', () => {
  const toxicity = { buckets: [0.3, 0.7], display_value_levels: ['Low', 'Medium', 'High'], inverted: true };
  it('puts a value below the first bucket in the first level and one at a bucket in the next', () => {
    expect([0, 0.29, 0.3, 0.69, 0.7, 1].map((v) => levelOf(toxicity, v)?.label)).toEqual(['Low', 'Low', 'Medium', 'Medium', 'High', 'High']);
  });
  it('colours by how good the level is: inverted, the high level is the bad one', () => {
    expect([0.1, 0.5, 0.9].map((v) => levelOf(toxicity, v)?.tone)).toEqual(['good', 'fair', 'poor']);
    const correctness = { ...toxicity, inverted: false };
    expect([0.1, 0.5, 0.9].map((v) => levelOf(correctness, v)?.tone)).toEqual(['poor', 'fair', 'good']);
    expect([toneOf(0, 2, false), toneOf(1, 2, false), toneOf(0, 1, false)]).toEqual(['poor', 'good', 'neutral']);
  });
  it('takes a level the server named by its place in the levels', () => {
    expect([toneOfLabel(toxicity, 'High'), toneOfLabel(toxicity, 'Low'), toneOfLabel(toxicity, 'Other'), toneOfLabel(undefined, 'High')]).toEqual(['poor', 'good', 'neutral', 'neutral']);
  });
  it('has no level without levels', () => {
    expect(levelOf({ buckets: [], display_value_levels: [], inverted: false }, 1)).toBeUndefined();
  });
});
