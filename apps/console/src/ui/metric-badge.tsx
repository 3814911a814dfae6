// A metric's value as a coloured badge of its threshold level (respecting `inverted`), the judge's
// explanation shown on hover and on keyboard focus; a metric not (yet) scored shows its status.
import type { Column, MetricInfo, MetricValue } from '@tracelight/client';
import { levelOf, numericOf, type Tone, toneOfLabel } from '../catalogue';
import { withUnit } from '../format';
import type { ComponentChildren } from 'preact';

let tips = 0;

/** Text shown beside the element on hover and focus, and read out with it (aria-describedby). */
export const WithTip = ({ tip, children, class: className = '' }: { tip: string | undefined; children: ComponentChildren; class?: string }) => {
  if (!tip) return <span class={className}>{children}</span>;
  const id = `tip-${++tips}`;
  return (
    <span class={`has-tip ${className}`} tabIndex={0} aria-describedby={id}>
      {children}
      <span class="tip" role="tooltip" id={id} dir="auto">
        {tip}
      </span>
    </span>
  );
};

const STATUS_LABELS: Readonly<Record<string, string>> = {
  pending: 'Pending',
  computing: 'Computing',
  not_computed: 'Not computed',
  not_applicable: 'Not applicable',
  error: 'Error',
  failed: 'Failed',
};

const explanationOf = (info: MetricInfo | undefined): string | undefined => {
  if (!info) return undefined;
  if (info.status_type === 'success') return [info.explanation, info.rationale].filter((t): t is string => typeof t === 'string' && t !== '').join('\n\n') || undefined;
  return info.message ?? undefined;
};

export const MetricBadge = ({ column, value, info }: { column: Column | undefined; value: MetricValue | undefined; info: MetricInfo | undefined }) => {
  if (info && info.status_type !== 'success')
    return (
      <WithTip tip={info.message ?? undefined} class={`status status-${info.status_type}`}>
        {STATUS_LABELS[info.status_type] ?? info.status_type}
      </WithTip>
    );
  const shown = value ?? (info?.status_type === 'success' ? info.value : undefined);
  if (shown === null || shown === undefined) return <span class="muted">—</span>;
  const tip = explanationOf(info);
  if (typeof shown === 'string' || Array.isArray(shown)) {
    const labels = typeof shown === 'string' ? [shown] : shown;
    return (
      <WithTip tip={tip} class="labels">
        {labels.map((l) => (
          <span class="chip" dir="auto">
            {l}
          </span>
        ))}
      </WithTip>
    );
  }
  // A code scorer's bool: a label of its own, with the scorer's words on hover like any value.
  if (typeof shown === 'boolean')
    return (
      <WithTip tip={tip} class="labels">
        <span class="chip">{shown ? 'true' : 'false'}</span>
      </WithTip>
    );
  const n = numericOf(shown);
  if (n === undefined) return <span>{String(shown)}</span>;
  const threshold = column?.threshold;
  const serverLevel = info?.status_type === 'success' && typeof info.display_value === 'string' ? info.display_value : undefined;
  const level = serverLevel !== undefined ? { label: serverLevel, tone: toneOfLabel(threshold, serverLevel) } : threshold ? levelOf(threshold, n) : undefined;
  const text = withUnit(n, column?.data_unit);
  if (!level) return <WithTip tip={tip} class="metric-plain">{text}</WithTip>;
  return (
    <WithTip tip={tip} class={`badge tone-${level.tone satisfies Tone}`}>
      <span class="badge-level" dir="auto">
        {level.label}
      </span>
      <span class="badge-value">{text}</span>
    </WithTip>
  );
};
