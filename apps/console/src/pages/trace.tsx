// One trace: its spans as a waterfall (durations to scale, failures marked) and, for the selected
// record, what it read and wrote as people read it, its model, tokens, tags, metadata and metrics.
import type { ComponentChildren } from 'preact';
import type { Column, StoredRecord } from '@tracelight/client';
import { useMemo, useRef } from 'preact/hooks';
import { api } from '../api';
import { metricNameOf } from '../catalogue';
import { dateTime, duration, number } from '../format';
import { Link, navigate, seg, useLocation, withQuery } from '../router';
import { ErrorNote, Loading, PageHead, useAsync } from '../ui/common';
import { judgesOf, metricView, provenanceOf } from '../metrics';
import { MetricBadge } from '../ui/metric-badge';
import { ValueView } from '../ui/value-view';
import { waterfallOf, type WaterfallRow } from '../waterfall';
import { type RunRef, runScope, useCatalogue, useRunNames } from './run';

/** The most spans of one trace read (a page of 1,000 at a time): a trace is read whole, a run never. */
const MAX_SPANS = 5000;

export const TracePage = (props: RunRef & { traceId: string; spanId: string | undefined }) => {
  const names = useRunNames(props);
  const catalogue = useCatalogue(props);
  const data = useAsync(
    async (signal) => {
      const scope = runScope(props);
      const found = await api.searchTraces(props.projectId, scope, { filters: [{ type: 'id', column_id: 'id', operator: 'eq', value: props.traceId }], limit: 1 }, { signal });
      const trace = found.records[0];
      if (!trace) return undefined;
      const spans: StoredRecord[] = [];
      let start: number | null = 0;
      while (start !== null && spans.length < MAX_SPANS) {
        const page = await api.searchSpans(
          props.projectId,
          scope,
          { filters: [{ type: 'id', column_id: 'trace_id', operator: 'eq', value: props.traceId }], sort: { column_id: 'created_at', ascending: true }, starting_token: start, limit: 1000 },
          { signal },
        );
        spans.push(...page.records);
        start = page.next_starting_token;
      }
      return { trace, spans, more: start !== null };
    },
    [props.projectId, props.runId, props.traceId],
  );
  const base = `/projects/${seg(props.projectId)}/${props.kind}/${seg(props.runId)}`;
  return (
    <section class="trace-page">
      <nav class="crumbs" aria-label="Breadcrumb">
        <Link href="/">Projects</Link> › <Link href={`/projects/${seg(props.projectId)}`}>{names.value?.project ?? '…'}</Link> › <Link href={base}>{names.value?.run ?? '…'}</Link>
      </nav>
      {data.status === 'failed' ? <ErrorNote error={data.error} /> : null}
      {data.status === 'loading' && !data.value ? <Loading label="Loading the trace…" /> : null}
      {data.status === 'done' && data.value === undefined ? <p class="empty">This trace is not in the run.</p> : null}
      {data.value ? <TraceView {...data.value} catalogue={catalogue.value ?? []} selectedId={props.spanId} /> : null}
    </section>
  );
};

const TraceView = ({ trace, spans, more, catalogue, selectedId }: { trace: StoredRecord; spans: StoredRecord[]; more: boolean; catalogue: ReadonlyArray<Column>; selectedId: string | undefined }) => {
  const loc = useLocation();
  const waterfall = useMemo(() => waterfallOf(trace, spans), [trace, spans]);
  const selected = waterfall.rows.find((r) => r.record.id === selectedId) ?? waterfall.rows[0]!;
  const listRef = useRef<HTMLOListElement>(null);
  const select = (row: WaterfallRow, focus = false) => {
    navigate(withQuery(loc, { span: row.record.id === trace.id ? undefined : row.record.id }), { replace: true });
    if (focus) listRef.current?.querySelector<HTMLButtonElement>(`[data-record-id="${CSS.escape(row.record.id)}"]`)?.focus();
  };
  const onKey = (e: KeyboardEvent) => {
    const at = waterfall.rows.indexOf(selected);
    const to = e.key === 'ArrowDown' ? at + 1 : e.key === 'ArrowUp' ? at - 1 : e.key === 'Home' ? 0 : e.key === 'End' ? waterfall.rows.length - 1 : -2;
    if (to === -2) return;
    e.preventDefault();
    const row = waterfall.rows[Math.max(0, Math.min(waterfall.rows.length - 1, to))];
    if (row) select(row, true);
  };
  const failures = waterfall.rows.filter((r) => r.failed).length;
  return (
    <>
      <PageHead title={trace.name || 'Trace'} subtitle={`${dateTime(trace.created_at)} · ${spans.length} span${spans.length === 1 ? '' : 's'} · ${duration(waterfall.totalMs)}${failures ? ` · ${failures} failed` : ''}`} />
      {more ? <p class="note">This trace has more than {MAX_SPANS.toLocaleString()} spans: the first {MAX_SPANS.toLocaleString()} are shown.</p> : null}
      <div class="trace-layout">
        <section class="waterfall" aria-label="Span tree">
          <div class="waterfall-scale" aria-hidden="true">
            <span>0</span>
            <span>{duration(waterfall.totalMs / 2)}</span>
            <span>{duration(waterfall.totalMs)}</span>
          </div>
          <ol class="waterfall-rows" ref={listRef} onKeyDown={onKey}>
            {waterfall.rows.map((row) => {
              const r = row.record;
              const left = (row.offsetMs / waterfall.totalMs) * 100;
              const width = Math.max((row.durationMs / waterfall.totalMs) * 100, 0.4);
              const isSelected = row === selected;
              return (
                <li>
                  <button
                    type="button"
                    class={`waterfall-row${isSelected ? ' selected' : ''}${row.failed ? ' failed' : ''}`}
                    data-record-id={r.id}
                    aria-current={isSelected ? 'true' : undefined}
                    tabIndex={isSelected ? 0 : -1}
                    onClick={() => select(row)}
                  >
                    <span class="waterfall-label" style={{ paddingInlineStart: `${row.depth * 14}px` }}>
                      <span class={`type type-${/^[a-z]+$/.test(r.type) ? r.type : 'other'}`}>{r.type}</span>
                      <span class="waterfall-name" dir="auto">
                        {r.name || r.id}
                      </span>
                      {row.failed ? <span class="error-mark">Error</span> : null}
                    </span>
                    <span class="waterfall-track" aria-hidden="true">
                      <span class="waterfall-bar" style={{ insetInlineStart: `${left}%`, width: `${width}%` }} data-offset-ms={row.offsetMs} data-duration-ms={row.durationMs} />
                    </span>
                    <span class="waterfall-duration">{duration(row.durationMs)}</span>
                  </button>
                </li>
              );
            })}
          </ol>
        </section>
        <RecordDetails record={selected.record} durationMs={selected.durationMs} catalogue={catalogue} />
      </div>
    </>
  );
};

const Fact = ({ label, children }: { label: string; children: ComponentChildren }) => (
  <>
    <dt>{label}</dt>
    <dd>{children}</dd>
  </>
);

const TOKEN_METRICS: ReadonlyArray<readonly [string, string]> = [
  ['num_input_tokens', 'in'],
  ['num_output_tokens', 'out'],
  ['num_total_tokens', 'total'],
];

const RecordDetails = ({ record, durationMs, catalogue }: { record: StoredRecord; durationMs: number; catalogue: ReadonlyArray<Column> }) => {
  const metricColumns = catalogue.filter((c) => metricNameOf(c.id) !== undefined);
  const scorerNames = new Set([...metricColumns.map((c) => metricNameOf(c.id)!), ...Object.keys(record.metric_info)]);
  const measurements = Object.entries(record.metrics).filter(([k]) => !scorerNames.has(k));
  const tokens = TOKEN_METRICS.flatMap(([k, label]) => (typeof record.metrics[k] === 'number' ? [`${number(record.metrics[k] as number)} ${label}`] : []));
  const model = typeof record['model'] === 'string' ? record['model'] : undefined;
  const metadata = Object.entries(record.user_metadata);
  return (
    <section class="details" aria-labelledby="details-title">
      <h2 id="details-title" dir="auto">
        {record.name || record.id}
      </h2>
      <dl class="facts">
        <Fact label="Type">{record.type}</Fact>
        <Fact label="Started">{dateTime(record.created_at)}</Fact>
        <Fact label="Duration">{duration(durationMs)}</Fact>
        {model ? <Fact label="Model">{model}</Fact> : null}
        {tokens.length > 0 ? <Fact label="Tokens">{tokens.join(' · ')}</Fact> : null}
        {typeof record['temperature'] === 'number' ? <Fact label="Temperature">{String(record['temperature'])}</Fact> : null}
        {typeof record['finish_reason'] === 'string' ? <Fact label="Finish reason">{record['finish_reason']}</Fact> : null}
        {record.status_code !== null ? <Fact label="Status code">{String(record.status_code)}</Fact> : null}
        {record.error_message ? (
          <Fact label="Error">
            <span class="error-text" dir="auto">
              {record.error_message}
            </span>
          </Fact>
        ) : null}
        <Fact label="Id">
          <code class="id">{record.id}</code>
        </Fact>
        {record.tags.length > 0 ? (
          <Fact label="Tags">
            <span class="labels">
              {record.tags.map((t) => (
                <span class="chip" dir="auto">
                  {t}
                </span>
              ))}
            </span>
          </Fact>
        ) : null}
      </dl>
      <section aria-labelledby="input-title" class="io">
        <h3 id="input-title">Input</h3>
        <ValueView value={record.input} label="Input" />
      </section>
      <section aria-labelledby="output-title" class="io">
        <h3 id="output-title">Output</h3>
        <ValueView value={record.output} label="Output" />
      </section>
      {scorerNames.size > 0 ? (
        <section aria-labelledby="metrics-title">
          <h3 id="metrics-title">Metrics</h3>
          <ul class="metric-list">
            {[...scorerNames].map((name) => {
              const column = metricColumns.find((c) => metricNameOf(c.id) === name);
              const info = record.metric_info[name];
              const value = record.metrics[name];
              const view = metricView(column, value, info);
              const judges = judgesOf(info);
              // A success says how it was made; a status says why there is no value of its own (its chip is in the badge).
              const said = info?.status_type === 'success' ? ['Scored', provenanceOf(info)] : info ? [] : [value === undefined ? 'Not scored' : 'Sent with the record'];
              const words = info?.status_type === 'success' ? info.explanation : view.status?.message;
              return (
                <li class="metric-item" data-metric={name} data-status={info?.status_type ?? 'none'}>
                  <span class="metric-name" dir="auto">
                    {column?.label ?? name}
                  </span>
                  <MetricBadge column={column} value={value} info={info} />
                  {said.length > 0 ? <span class="metric-status">{said.filter(Boolean).join(' · ')}</span> : null}
                  {words ? (
                    <p class="metric-explanation" dir="auto">
                      {words}
                    </p>
                  ) : null}
                  {judges.length > 0 ? (
                    <details class="metric-judges">
                      <summary>Each judge's explanation ({judges.length})</summary>
                      <ol>
                        {judges.map((j) => (
                          <li dir="auto">{j}</li>
                        ))}
                      </ol>
                    </details>
                  ) : null}
                </li>
              );
            })}
          </ul>
        </section>
      ) : null}
      {measurements.length > 0 ? (
        <section aria-labelledby="measurements-title">
          <h3 id="measurements-title">Measurements</h3>
          <dl class="facts">
            {measurements.map(([k, v]) => (
              <Fact label={k}>{typeof v === 'number' ? number(v) : JSON.stringify(v)}</Fact>
            ))}
          </dl>
        </section>
      ) : null}
      {metadata.length > 0 ? (
        <section aria-labelledby="metadata-title">
          <h3 id="metadata-title">Metadata</h3>
          <dl class="facts">
            {metadata.map(([k, v]) => (
              <Fact label={k}>
                <span dir="auto">{v}</span>
              </Fact>
            ))}
          </dl>
        </section>
      ) : null}
    </section>
  );
};
