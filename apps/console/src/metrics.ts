// How a record's metric reads on the page: the value `metrics` holds (what its column filters and sorts
// on) with its threshold level, and the scorer's status from `metric_info` wherever it is not a success.
import type { Column, MetricInfo, MetricStatus, MetricValue, RunScoringStatus } from '@tracelight/client';
import { levelOf, numericOf, type Tone, toneOfLabel } from './catalogue';
import { withUnit } from './format';

/** How a status looks: waiting for a judge, something to mend, or nothing to do. */
export type StatusTone = 'waiting' | 'problem' | 'quiet';

export interface StatusView {
  readonly type: Exclude<MetricStatus, 'success'>;
  readonly label: string;
  readonly tone: StatusTone;
  /** The server's message, or what the status means where it gives none (`pending` has none). */
  readonly message: string;
}

export type ValueView =
  | { readonly kind: 'number'; readonly text: string; readonly level?: { readonly label: string; readonly tone: Tone } }
  | { readonly kind: 'labels'; readonly labels: ReadonlyArray<string> };

export interface MetricView {
  /** The value shown, absent when the record holds none. */
  readonly value?: ValueView;
  /** Absent for a success, and for a value a client sent that no scorer of the run is scoring. */
  readonly status?: StatusView;
  /** What hovering or focusing says: the judge's explanation and how the value was made, or the status's message. */
  readonly tip?: string;
}

const STATUSES: Readonly<Record<StatusView['type'], { label: string; tone: StatusTone; meaning: string }>> = {
  pending: { label: 'Pending', tone: 'waiting', meaning: 'Queued for scoring: a judge has not answered yet.' },
  computing: { label: 'Computing', tone: 'waiting', meaning: 'A judge is scoring it.' },
  error: { label: 'Error', tone: 'problem', meaning: 'The scorer cannot run as it is set up.' },
  failed: { label: 'Failed', tone: 'problem', meaning: 'The judge gave nothing usable.' },
  not_computed: { label: 'Not computed', tone: 'quiet', meaning: 'This kind of scorer is not run here.' },
  not_applicable: { label: 'Not applicable', tone: 'quiet', meaning: 'The scorer does not apply to this record.' },
};

/** A status as the page names it; an unknown one by its own name. */
export const statusOf = (info: MetricInfo): StatusView | undefined => {
  if (info.status_type === 'success') return undefined;
  const known = STATUSES[info.status_type] ?? { label: info.status_type.replace(/_/g, ' '), tone: 'quiet' as const, meaning: '' };
  return { type: info.status_type, label: known.label, tone: known.tone, message: info.message || known.meaning };
};

const valueOf = (value: MetricValue | undefined, column: Column | undefined, serverLevel: string | undefined): ValueView | undefined => {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string') return { kind: 'labels', labels: [value] };
  // A code scorer's bool: a label of its own, never a threshold's level.
  if (typeof value === 'boolean') return { kind: 'labels', labels: [value ? 'true' : 'false'] };
  if (Array.isArray(value)) return { kind: 'labels', labels: value.map(String) };
  const n = numericOf(value);
  if (n === undefined) return { kind: 'labels', labels: [String(value)] };
  const threshold = column?.threshold;
  const text = withUnit(n, column?.data_unit);
  // The server's level where it names one of the threshold's (it read the threshold the value was scored under).
  if (serverLevel !== undefined && threshold?.display_value_levels.includes(serverLevel)) return { kind: 'number', text, level: { label: serverLevel, tone: toneOfLabel(threshold, serverLevel) } };
  const level = threshold ? levelOf(threshold, n) : undefined;
  return level ? { kind: 'number', text, level: { label: level.label, tone: level.tone } } : { kind: 'number', text };
};

/** The facts of a success beside its explanation: how many judges, which model, which version, a roll-up. */
export const provenanceOf = (info: MetricInfo): string | undefined => {
  const facts = [
    // A roll-up says what it is in its explanation; one that does not, here.
    info.roll_up_method === 'average' && !info.explanation ? `Average of ${info.roll_up_count ?? 0} scored record${info.roll_up_count === 1 ? '' : 's'} under it` : undefined,
    typeof info.num_judges === 'number' && info.num_judges > 1 ? `${info.num_judges} judges` : undefined,
    info.model_alias || undefined,
    typeof info.version === 'number' ? `version ${info.version}` : undefined,
  ].filter((f): f is string => f !== undefined);
  return facts.length > 0 ? facts.join(' · ') : undefined;
};

/**
 * A record's metric as the page shows it. The value is the one `metrics` holds, so that a cell agrees
 * with the column's filter and sort (a success's own value where `metrics` has none); a status other
 * than success is shown beside it (a record sent with a value and queued for scoring shows both), or
 * alone when there is no value.
 */
export const metricView = (column: Column | undefined, value: MetricValue | undefined, info: MetricInfo | undefined): MetricView => {
  const success = info?.status_type === 'success';
  const shown = valueOf(value ?? (success ? info.value : undefined), column, success && typeof info.display_value === 'string' ? info.display_value : undefined);
  if (info === undefined) return shown ? { value: shown } : {};
  const status = statusOf(info);
  if (status === undefined) {
    const tip = [info.explanation || undefined, provenanceOf(info)].filter((t): t is string => t !== undefined).join('\n\n');
    return { ...(shown ? { value: shown } : {}), ...(tip ? { tip } : {}) };
  }
  const tip = shown ? `${status.message}\n\nThe value shown is the one the record holds, not this scoring's.` : status.message;
  return { ...(shown ? { value: shown } : {}), status, tip };
};

/** The judges' explanations of a success, one per judge, where there is more than one. */
export const judgesOf = (info: MetricInfo | undefined): ReadonlyArray<string> => (info?.status_type === 'success' && (info.explanations?.length ?? 0) > 1 ? info.explanations! : []);

/** The job counts of a scorer's status in the order the page lists them, with their labels. */
export const JOB_COUNTS: ReadonlyArray<readonly [keyof RunScoringStatus['scorers'][number]['jobs'], string]> = [
  ['pending', 'Pending'],
  ['computing', 'Computing'],
  ['succeeded', 'Succeeded'],
  ['failed', 'Failed'],
  ['error', 'Error'],
  ['not_applicable', 'Not applicable'],
  ['not_computed', 'Not computed'],
];

/** Whether a run's scoring still has work queued or in hand (the page then looks again a little later). */
export const isScoring = (status: RunScoringStatus | undefined): boolean => (status?.scorers ?? []).some((s) => s.jobs.pending + s.jobs.computing > 0);
