// A trace's spans as a waterfall: the tree by parent, each span's start and length on one time scale,
// and whether it failed.
import type { StoredRecord } from '@tracelight/client';

export interface WaterfallRow {
  readonly record: StoredRecord;
  readonly depth: number;
  /** Milliseconds from the trace's start. */
  readonly offsetMs: number;
  /** Milliseconds; 0 when the record says no duration. */
  readonly durationMs: number;
  readonly failed: boolean;
  /** How many spans hang from it. */
  readonly childCount: number;
}

export interface Waterfall {
  readonly rows: ReadonlyArray<WaterfallRow>;
  /** The scale's whole length in milliseconds (at least 1). */
  readonly totalMs: number;
}

/** A record's duration in ms, from `metrics.duration_ns` where a number. */
export const durationMsOf = (r: StoredRecord): number => {
  const ns = r.metrics['duration_ns'];
  return typeof ns === 'number' && Number.isFinite(ns) && ns > 0 ? ns / 1e6 : 0;
};

/** A record failed: an error message, or an HTTP-like status of 400 or more. */
export const failed = (r: StoredRecord): boolean =>
  (typeof r.error_message === 'string' && r.error_message !== '') || (typeof r.status_code === 'number' && r.status_code >= 400);

const startOf = (r: StoredRecord): number => Date.parse(r.created_at);

/**
 * The rows of a trace and its spans, depth-first, children in the order they started (then by step
 * number). A span whose parent is not among them (not loaded, or the trace itself) hangs from the
 * trace, so none is lost.
 */
export const waterfallOf = (trace: StoredRecord, spans: ReadonlyArray<StoredRecord>): Waterfall => {
  const ids = new Set(spans.map((s) => s.id));
  const children = new Map<string, StoredRecord[]>();
  for (const s of spans) {
    const parent = s.parent_id !== null && s.parent_id !== s.id && ids.has(s.parent_id) ? s.parent_id : trace.id;
    children.set(parent, [...(children.get(parent) ?? []), s]);
  }
  const order = (a: StoredRecord, b: StoredRecord) => startOf(a) - startOf(b) || (a.step_number ?? 0) - (b.step_number ?? 0);
  const origin = Math.min(startOf(trace), ...spans.map(startOf));
  const rows: WaterfallRow[] = [];
  const seen = new Set<string>();
  const visit = (r: StoredRecord, depth: number) => {
    // A cycle of parents (ids sent wrong) must not loop: each record is shown once.
    if (seen.has(r.id)) return;
    seen.add(r.id);
    const kids = [...(children.get(r.id) ?? [])].sort(order);
    rows.push({ record: r, depth, offsetMs: startOf(r) - origin, durationMs: durationMsOf(r), failed: failed(r), childCount: kids.length });
    for (const k of kids) visit(k, depth + 1);
  };
  visit(trace, 0);
  // Spans in a cycle of parents are reached from no root: shown at the top level rather than lost.
  for (const s of [...spans].sort(order)) if (!seen.has(s.id)) visit(s, 1);
  const end = Math.max(...rows.map((r) => r.offsetMs + r.durationMs));
  return { rows, totalMs: Math.max(1, end) };
};
