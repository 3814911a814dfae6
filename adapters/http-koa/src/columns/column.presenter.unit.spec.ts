import { type ColumnDescriptor, STANDARD_COLUMNS, metricColumn } from '@tracelight/domain';
import { columnsJson, presentColumn } from './column.presenter';

describe('columnsJson', () => {
  it('writes exactly what JSON.stringify writes, for every standard column either way and for metric columns', () => {
    const standard = (isEmpty: boolean): ColumnDescriptor[] => STANDARD_COLUMNS.map((c) => ({ ...c, isEmpty }));
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
});
