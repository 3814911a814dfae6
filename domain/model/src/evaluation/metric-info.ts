// What a record carries of each scorer that ran on it: the value (in `metrics`) and its details
// (`metric_info`), shaped as the origin's SDKs read them (MetricSuccess, MetricError, MetricPending, …).
import type { ColumnThreshold } from '../scorers/scorer';
import type { ScorerVersionKind } from '../scorers/scorer-version';

/**
 * A metric's value: a number (an LLM judge's booleans as the share of judges that said true), a boolean
 * (a code scorer whose score_type is bool), a label, or labels.
 */
export type MetricValue = number | boolean | string | ReadonlyArray<string>;

export const METRIC_STATUSES = ['pending', 'computing', 'not_computed', 'not_applicable', 'success', 'error', 'failed'] as const;
export type MetricStatus = (typeof METRIC_STATUSES)[number];

/**
 * One metric's details on a record, in the origin's wire names (its SDKs read these keys as they are,
 * so the domain keeps them rather than renaming them at every edge). `success` carries the value and
 * the judges' words; every other status a `message` saying why (absent for `pending`).
 */
export interface MetricInfo {
  readonly status_type: MetricStatus;
  readonly scorer_type?: ScorerVersionKind | null;
  readonly value?: MetricValue | null;
  /** The threshold's level for the value (`Low`, `High`), or the value as text where the scorer has no threshold. */
  readonly display_value?: string | null;
  /** The explanation of a judge whose answer agrees with the aggregate. */
  readonly explanation?: string | null;
  /** Every judge's explanation, one paragraph each. */
  readonly rationale?: string | null;
  /** Every judge's explanation, one per judge, in the order they answered. */
  readonly explanations?: ReadonlyArray<string>;
  readonly model_alias?: string | null;
  readonly num_judges?: number | null;
  /** What the judgment cost in money: unknown here (the gateway's price list is the provider's). */
  readonly cost?: number | null;
  /** The scorer version that gave the value. */
  readonly version?: number;
  readonly message?: string;
  /** On a trace or session: the value is made of its scored descendants' by this method (their number in `roll_up_count`). */
  readonly roll_up_method?: 'average' | 'sum' | 'first' | 'last';
  readonly roll_up_count?: number;
}

export const pendingInfo = (scorerType: ScorerVersionKind, version: number): MetricInfo => ({ status_type: 'pending', scorer_type: scorerType, version });

/**
 * The threshold level a numeric value falls in: the first level whose bucket the value is below, the
 * last past every bucket (`buckets: [0.3, 0.7]`, levels Low, Medium, High: 0.2 Low, 0.5 Medium, 0.7
 * High). `inverted` says which end is bad, for display; it does not change the level.
 */
export const thresholdLevel = (value: number, threshold: ColumnThreshold): string | null => {
  const i = threshold.buckets.findIndex((b) => value < b);
  return threshold.displayValueLevels[i === -1 ? threshold.buckets.length : i] ?? null;
};

/** A number as display text: at most four decimals, no trailing zeros. */
const numberText = (n: number): string => String(Math.round(n * 10_000) / 10_000);

/** What `display_value` says: the threshold level of a number, else the value as text (labels joined by `, `). */
export const displayValueOf = (value: MetricValue, threshold: ColumnThreshold | undefined): string => {
  if (typeof value === 'number') return (threshold && thresholdLevel(value, threshold)) ?? numberText(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return typeof value === 'string' ? value : value.join(', ');
};

/** Whether an entry is a roll-up (written from descendants), not a scorer's own outcome on the record. */
export const isRollUp = (info: MetricInfo | undefined): boolean => info?.roll_up_method !== undefined;

/**
 * A record's metrics and metric entries as stored when it is written: the sender's metrics, with the
 * values of the stored record's successes over them, and the stored entries over the `pending` entries
 * of the jobs the write queues. A record sent again (clients retry) so keeps what scorers wrote on it;
 * a new one starts pending for each job. Keys are names as the storage keeps them (encoded or not, alike).
 */
export const scoringKept = (
  metrics: Readonly<Record<string, MetricValue | null>>,
  stored: Readonly<Record<string, MetricInfo>> | undefined,
  pending: Readonly<Record<string, MetricInfo>> | undefined,
  afresh = false,
): { readonly metrics: Readonly<Record<string, MetricValue | null>>; readonly metricInfo: Readonly<Record<string, MetricInfo>> } => {
  if (afresh && pending !== undefined) return scoredAfresh(metrics, stored, pending);
  if (stored === undefined) return { metrics, metricInfo: pending ?? {} };
  const values: Record<string, MetricValue> = {};
  for (const [name, info] of Object.entries(stored)) if (info.status_type === 'success' && info.value !== undefined && info.value !== null) values[name] = info.value;
  return { metrics: { ...metrics, ...values }, metricInfo: { ...pending, ...stored } };
};

/**
 * `scoringKept` for a record scored afresh (scoringOnWrite): what its scorers said of what it held
 * before goes, the value and the entry of each pending metric, so that the record says `pending` until
 * the new judgment is stored; the entries of other metrics (roll-ups, scorers not queued now) stay.
 */
const scoredAfresh = (
  metrics: Readonly<Record<string, MetricValue | null>>,
  stored: Readonly<Record<string, MetricInfo>> | undefined,
  pending: Readonly<Record<string, MetricInfo>>,
): { readonly metrics: Readonly<Record<string, MetricValue | null>>; readonly metricInfo: Readonly<Record<string, MetricInfo>> } => {
  const kept = scoringKept(metrics, stored, undefined);
  const values: Record<string, MetricValue | null> = { ...kept.metrics };
  const infos: Record<string, MetricInfo> = { ...kept.metricInfo };
  for (const name of Object.keys(pending)) {
    delete values[name];
    delete infos[name];
  }
  return { metrics: values, metricInfo: { ...infos, ...pending } };
};
