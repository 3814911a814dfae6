// Roll-up: a trace's (and a session's) value for a metric that scores what they hold is the average of
// their scored descendants' values, recomputed as each is scored.
import type { LogRecord } from '../tracing/log-record';
import type { ColumnThreshold } from '../scorers/scorer';
import type { ScorerVersionKind } from '../scorers/scorer-version';
import { type MetricInfo, displayValueOf, isRollUp } from './metric-info';

/** What a roll-up needs to know of the metric, besides the values: given with a job's outcome. */
export interface RollUpSpec {
  readonly metricName: string;
  readonly scorerType: ScorerVersionKind;
  readonly version: number;
  readonly threshold: ColumnThreshold | null;
}

/**
 * The records a scored record's value rolls up into: its trace (when it is a span) and its session
 * (when it is in one and is not the session itself), by id within its run.
 */
export const rollUpTargets = (r: Pick<LogRecord, 'id' | 'type' | 'traceId' | 'sessionId'>): { readonly trace: string | null; readonly session: string | null } => ({
  trace: r.type !== 'trace' && r.type !== 'session' && r.traceId !== null && r.traceId !== r.id ? r.traceId : null,
  session: r.type !== 'session' && r.sessionId !== null && r.sessionId !== r.id ? r.sessionId : null,
});

/**
 * A descendant's entry counts when the scorer scored it directly and gave a number: not a roll-up (a
 * trace's own roll-up is not counted again into its session's), not a label.
 */
export const countsInRollUp = (info: MetricInfo | undefined): info is MetricInfo & { readonly value: number } =>
  info !== undefined && info.status_type === 'success' && !isRollUp(info) && typeof info.value === 'number' && Number.isFinite(info.value);

/**
 * A target takes a roll-up unless the scorer scores it itself: an entry of its own (pending, an
 * outcome) stays, the target's own value winning over its descendants' average.
 */
export const takesRollUp = (current: MetricInfo | undefined): boolean => current === undefined || isRollUp(current);

/** The mean of the values that count (countsInRollUp), or null when none does. */
export const averageOf = (values: ReadonlyArray<number>): number | null =>
  values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;

/** The target's entry for an average of `count` scored descendants. */
export const rollUpInfo = (spec: RollUpSpec, average: number, count: number): MetricInfo => ({
  status_type: 'success',
  scorer_type: spec.scorerType,
  value: average,
  display_value: displayValueOf(average, spec.threshold ?? undefined),
  explanation: `The average of ${count} scored descendant${count === 1 ? '' : 's'}.`,
  version: spec.version,
  roll_up_method: 'average',
  roll_up_count: count,
});
