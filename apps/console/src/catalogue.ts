// The records table as `available_columns` describes it: which columns a tab offers, which it shows at
// first, how a cell is read off a record, and a metric's threshold level. No column is named here.
import type { Column, MetricValue, StoredRecord } from '@tracelight/client';

/** The three record searches of a run, each a tab of the run's page. */
export type Tab = 'traces' | 'spans' | 'sessions';
export const TABS: ReadonlyArray<Tab> = ['traces', 'spans', 'sessions'];

const METRIC_PREFIX = 'metrics/';

/** The metric a `metrics/<name>` column reads, or undefined for a standard column. */
export const metricNameOf = (columnId: string): string | undefined =>
  columnId.startsWith(METRIC_PREFIX) ? columnId.slice(METRIC_PREFIX.length) : undefined;

/**
 * Whether a column describes records of the tab: its `applicable_types` name the tab's type (`trace`,
 * `session`), or, for spans, any other type; a column that names none (metric columns) applies to every tab.
 */
export const appliesTo = (column: Column, tab: Tab): boolean => {
  const types = column.applicable_types;
  if (types.length === 0) return true;
  if (tab === 'traces') return types.includes('trace');
  if (tab === 'sessions') return types.includes('session');
  return types.some((type) => type !== 'trace' && type !== 'session');
};

/** The columns a tab offers, in the catalogue's order. */
export const columnsOf = (catalogue: ReadonlyArray<Column>, tab: Tab): Column[] => catalogue.filter((c) => appliesTo(c, tab));

/** Shown until the person chooses otherwise: every offered column that has a value in the run. */
export const shownByDefault = (columns: ReadonlyArray<Column>): string[] => columns.filter((c) => !c.is_empty).map((c) => c.id);

/** The columns to show, in the catalogue's order: the person's choice where there is one (those still offered), else the default. */
export const shownColumns = (columns: ReadonlyArray<Column>, chosen: ReadonlyArray<string> | undefined): Column[] => {
  const ids = new Set(chosen ?? shownByDefault(columns));
  return columns.filter((c) => ids.has(c.id));
};

/** The columns grouped by `group_label`, groups in the order of their first column. */
export const groupsOf = (columns: ReadonlyArray<Column>): Array<{ label: string; columns: Column[] }> => {
  const groups = new Map<string, Column[]>();
  for (const c of columns) groups.set(c.group_label, [...(groups.get(c.group_label) ?? []), c]);
  return [...groups].map(([label, members]) => ({ label, columns: members }));
};

/** A record's value for a column: a metric's from `metrics`, any other field by its id. */
export const cellOf = (record: StoredRecord, columnId: string): unknown => {
  const metric = metricNameOf(columnId);
  return metric === undefined ? record[columnId] : record.metrics[metric];
};

/** A metric value a threshold reads: a number; labels have no level. */
export const numericOf = (value: MetricValue | unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

export type Tone = 'good' | 'fair' | 'poor' | 'neutral';

export interface Level {
  readonly label: string;
  readonly index: number;
  readonly tone: Tone;
}

/**
 * The threshold level of a value: below the first bucket the first level, from each bucket on the next
 * (a value equal to a bucket is in the higher level). The levels run from low to high values; a higher
 * value is better unless `inverted` (toxicity: High is bad). The tone says where the level sits from worst
 * to best, in thirds: red, amber, green.
 */
export const levelOf = (threshold: NonNullable<Column['threshold']>, value: number): Level | undefined => {
  const { buckets, display_value_levels: levels, inverted } = threshold;
  if (levels.length === 0) return undefined;
  let index = 0;
  while (index < buckets.length && value >= buckets[index]!) index += 1;
  index = Math.min(index, levels.length - 1);
  return { label: levels[index]!, index, tone: toneOf(index, levels.length, inverted) };
};

/** Where level `index` of `count` sits from worst (0) to best (1), as a tone. */
export const toneOf = (index: number, count: number, inverted: boolean): Tone => {
  if (count < 2) return 'neutral';
  const rank = index / (count - 1);
  const goodness = inverted ? 1 - rank : rank;
  return goodness >= 2 / 3 ? 'good' : goodness > 1 / 3 ? 'fair' : 'poor';
};

/** The tone of a level named by the server (`metric_info.display_value`): its place among the threshold's levels. */
export const toneOfLabel = (threshold: Column['threshold'], label: string): Tone => {
  const index = threshold?.display_value_levels.indexOf(label) ?? -1;
  return threshold && index >= 0 ? toneOf(index, threshold.display_value_levels.length, threshold.inverted) : 'neutral';
};
