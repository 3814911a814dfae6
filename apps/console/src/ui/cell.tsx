// A table cell by its column's data type: times in the reader's zone, lists as chips, metrics as badges.
import type { Column, StoredRecord } from '@tracelight/client';
import { cellOf, metricNameOf } from '../catalogue';
import { dateTime, number, shortId, truncate } from '../format';
import { previewOf } from '../messages';
import { MetricBadge } from './metric-badge';

export const Cell = ({ column, record }: { column: Column; record: StoredRecord }) => {
  const metric = metricNameOf(column.id);
  if (metric !== undefined) return <MetricBadge column={column} value={record.metrics[metric]} info={record.metric_info[metric]} />;
  const value = cellOf(record, column.id);
  if (value === null || value === undefined || value === '') return <span class="muted">—</span>;
  switch (column.data_type) {
    case 'timestamp':
      return <time dateTime={String(value)}>{dateTime(String(value))}</time>;
    case 'boolean':
      return <span>{value ? 'Yes' : 'No'}</span>;
    case 'uuid':
      return (
        <code class="id" title={String(value)}>
          {shortId(String(value))}
        </code>
      );
    case 'integer':
    case 'floating_point':
      return <span class="num">{typeof value === 'number' ? number(value) : String(value)}</span>;
    case 'string_list': {
      const list = Array.isArray(value) ? value.map(String) : [String(value)];
      return (
        <span class="labels">
          {list.slice(0, 3).map((v) => (
            <span class="chip" dir="auto">
              {truncate(v, 40)}
            </span>
          ))}
          {list.length > 3 ? <span class="muted">+{list.length - 3}</span> : null}
        </span>
      );
    }
    default: {
      const text = previewOf(value);
      return (
        <span class="cell-text" dir="auto" title={truncate(text, 2000)}>
          {truncate(text, 160)}
        </span>
      );
    }
  }
};
