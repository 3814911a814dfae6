// Roll-up: a trace's (and a session's) value for a metric that scores what they hold is made from
// their scored descendants' values (their average, unless a code scorer's chain_aggregation says sum,
// first or last), recomputed as each is scored.
import type { LogRecord } from '../tracing/log-record';
import type { ColumnThreshold } from '../scorers/scorer';
import type { ScorerVersion, ScorerVersionKind } from '../scorers/scorer-version';
import { versionDataType, versionRollUpMethod } from '../columns/metric-columns';
import type { RollUpMethod } from './code-scorer';
import { type MetricInfo, type MetricValue, displayValueOf, isRollUp } from './metric-info';

/** What a roll-up needs to know of the metric, besides the values: given with a job's outcome. */
export interface RollUpSpec {
  readonly metricName: string;
  readonly scorerType: ScorerVersionKind;
  readonly version: number;
  readonly threshold: ColumnThreshold | null;
  /** How the values make the target's: `average` unless the version says otherwise. */
  readonly method: RollUpMethod;
}

/**
 * Whether a method makes a value of what it picks whatever its type (`first`, `last`: a label or a
 * boolean rolls up as itself), or computes with numbers (`average`, `sum`: only numbers count).
 */
export const picksValue = (method: RollUpMethod): boolean => method === 'first' || method === 'last';

/**
 * The records a scored record's value rolls up into: its trace (when it is a span) and its session
 * (when it is in one and is not the session itself), by id within its run.
 */
export const rollUpTargets = (r: Pick<LogRecord, 'id' | 'type' | 'traceId' | 'sessionId'>): { readonly trace: string | null; readonly session: string | null } => ({
  trace: r.type !== 'trace' && r.type !== 'session' && r.traceId !== null && r.traceId !== r.id ? r.traceId : null,
  session: r.type !== 'session' && r.sessionId !== null && r.sessionId !== r.id ? r.sessionId : null,
});

/**
 * A descendant's entry counts when the scorer scored it directly and gave a value the method takes: not
 * a roll-up (a trace's own roll-up is not counted again into its session's); a number for `average` and
 * `sum`, a number, label or boolean for `first` and `last` (never a list of labels).
 */
export const countsInRollUp = (info: MetricInfo | undefined, method: RollUpMethod = 'average'): info is MetricInfo & { readonly value: MetricValue } => {
  if (info === undefined || info.status_type !== 'success' || isRollUp(info)) return false;
  const v = info.value;
  if (typeof v === 'number') return Number.isFinite(v);
  return picksValue(method) && (typeof v === 'string' || typeof v === 'boolean');
};

/**
 * A target takes a roll-up unless the scorer scores it itself: an entry of its own (pending, an
 * outcome) stays, the target's own value winning over its descendants' average.
 */
export const takesRollUp = (current: MetricInfo | undefined): boolean => current === undefined || isRollUp(current);

/** The mean of the values that count (countsInRollUp), or null when none does. */
export const averageOf = (values: ReadonlyArray<number>): number | null =>
  values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;

/**
 * The value of `count` scored descendants by the method, from what storage works out of them: their
 * average and sum, and the values of the first and last in created_at order (to the microsecond, then id).
 */
export const rollUpValue = (method: RollUpMethod, found: { readonly average: number | null; readonly sum: number | null; readonly first: MetricValue | null; readonly last: MetricValue | null }): MetricValue | null =>
  method === 'average' ? found.average : method === 'sum' ? found.sum : method === 'first' ? found.first : found.last;

const METHOD_WORDS: Readonly<Record<RollUpMethod, string>> = { average: 'The average', sum: 'The sum', first: 'The first', last: 'The last' };

/** The target's entry for the roll-up of `count` scored descendants. */
export const rollUpInfo = (spec: RollUpSpec, value: MetricValue, count: number): MetricInfo => ({
  status_type: 'success',
  scorer_type: spec.scorerType,
  value,
  display_value: displayValueOf(value, spec.threshold ?? undefined),
  explanation: `${METHOD_WORDS[spec.method]} of ${count} scored descendant${count === 1 ? '' : 's'}${picksValue(spec.method) ? ' (by creation time)' : ''}.`,
  version: spec.version,
  roll_up_method: spec.method,
  roll_up_count: count,
});

/**
 * How a job's value rolls up, or null when it does not: numbers roll up by any method; labels and
 * booleans only by one that picks a value (`first`, `last`), lists of labels never.
 */
export const rollUpSpecOf = (
  job: { readonly metricName: string; readonly kind: ScorerVersionKind; readonly version: number },
  threshold: ColumnThreshold | null,
  version: ScorerVersion,
): RollUpSpec | null => {
  const method = versionRollUpMethod(version);
  const type = versionDataType(version);
  const numeric = type === 'floating_point' || type === 'integer';
  if (!numeric && !(picksValue(method) && (type === 'text' || type === 'boolean'))) return null;
  return { metricName: job.metricName, scorerType: job.kind, version: job.version, threshold, method };
};
