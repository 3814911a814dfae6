// A metric's value as a coloured badge of its threshold level (respecting `inverted`), and its status
// where the scorer's is not a success; the judge's explanation, or the status's message, shown on hover
// and on keyboard focus.
import type { Column, MetricInfo, MetricValue } from '@tracelight/client';
import type { ComponentChildren } from 'preact';
import { metricView, type StatusView, type ValueView } from '../metrics';

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

const Value = ({ value }: { value: ValueView }) => {
  if (value.kind === 'labels')
    return (
      <span class="labels">
        {value.labels.map((l) => (
          <span class="chip" dir="auto">
            {l}
          </span>
        ))}
      </span>
    );
  if (!value.level) return <span class="metric-plain">{value.text}</span>;
  return (
    <span class={`badge tone-${value.level.tone}`}>
      <span class="badge-level" dir="auto">
        {value.level.label}
      </span>
      <span class="badge-value">{value.text}</span>
    </span>
  );
};

export const StatusChip = ({ status }: { status: StatusView }) => <span class={`status status-${status.type} status-tone-${status.tone}`}>{status.label}</span>;

export const MetricBadge = ({ column, value, info }: { column: Column | undefined; value: MetricValue | undefined; info: MetricInfo | undefined }) => {
  const view = metricView(column, value, info);
  if (!view.value && !view.status) return <span class="muted">—</span>;
  return (
    <WithTip tip={view.tip} class="metric">
      {view.value ? <Value value={view.value} /> : null}
      {view.status ? <StatusChip status={view.status} /> : null}
    </WithTip>
  );
};
