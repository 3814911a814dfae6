import { type ColumnDescriptor, STANDARD_COLUMNS, metricColumn } from '@tracelight/domain';
import { columnsAnswer, columnsJson, presentColumn } from './column.presenter';

describe('columnsJson', () => {
  const standard = (isEmpty: boolean): ColumnDescriptor[] => STANDARD_COLUMNS.map((c) => ({ ...c, isEmpty }));
  const metric = (name: string, isEmpty: boolean): ColumnDescriptor => ({
    ...metricColumn({ name, display: { label: name, groupLabel: 'Safety Metrics' } } as unknown as Parameters<typeof metricColumn>[0], 'percentage'),
    isEmpty,
  });

  it('writes exactly what JSON.stringify writes, for every standard column either way and for metric columns', () => {
    const toxicity = {
      ...metricColumn(
        {
          name: 'toxicity',
          display: { label: 'Toxicity', groupLabel: 'Safety Metrics', dataUnit: 'percentage', threshold: { buckets: [0.3, 0.7], displayValueLevels: ['Low', 'Medium', 'High'], inverted: true } },
        } as unknown as Parameters<typeof metricColumn>[0],
        'percentage',
      ),
      isEmpty: false,
    };
    for (const columns of [standard(true), standard(false), [...standard(false), toxicity], [...standard(true), toxicity], []]) {
      // Twice: the second time from the cache.
      expect(columnsJson(columns)).toBe(JSON.stringify({ columns: columns.map(presentColumn) }));
      expect(columnsJson(columns)).toBe(JSON.stringify({ columns: columns.map(presentColumn) }));
    }
  });

  it('answers the bytes of that text, the same bytes again for the same catalogue, and new ones when any column changes', () => {
    const oneEmpty = (i: number) => standard(false).map((c, j) => (j === i ? { ...c, isEmpty: true } : c));
    const catalogues = [standard(false), oneEmpty(0), oneEmpty(STANDARD_COLUMNS.length - 1), [...standard(false), metric('toxicity', false)], [...standard(false), metric('toxicity', true)], [...standard(false), metric('tone', false)], []];
    const answers = catalogues.map((columns) => columnsAnswer(columns));
    catalogues.forEach((columns, i) => {
      expect(answers[i]!.toString('utf8')).toBe(JSON.stringify({ columns: columns.map(presentColumn) }));
      // Asked again, with descriptors made anew: the answer kept.
      expect(columnsAnswer(columns.map((c) => ({ ...c })))).toBe(answers[i]);
    });
    expect(new Set(answers.map((a) => a.toString('utf8'))).size).toBe(catalogues.length);
  });
});
