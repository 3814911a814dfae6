// Wire (decoded) → domain inputs for ingestion and search.
import type { FilterWire, SpanWire, TraceWire } from '@tracelight/api-schema';
import type { Json, NodeInput, RecordFilter, RecordPatch, TypedAttributes } from '@tracelight/domain';

const ATTRIBUTES = [
  'model', 'temperature', 'finish_reason', 'tool_call_id', 'agent_type', 'control_id', 'agent_name', 'check_stage',
  'applies_to', 'evaluator_name', 'selector_path',
] as const;

const attributesOf = (n: SpanWire | TraceWire): TypedAttributes => {
  const out: Record<string, unknown> = {};
  for (const key of ATTRIBUTES) if (n[key] !== undefined && n[key] !== null) out[key] = n[key];
  // The tools offered to a model arrive as a list of definitions; the column holds their JSON text.
  if (n.tools !== undefined && n.tools !== null) out['tools'] = typeof n.tools === 'string' ? n.tools : JSON.stringify(n.tools);
  return out as TypedAttributes;
};

const orUndefined = <A>(v: A | null | undefined): A | undefined => (v === null ? undefined : v);

// Imperative on purpose: this runs once per span of every ingest request. Every node gets the same
// keys in the same order (absent and null as undefined), so the flattening that reads them next sees
// one object shape, not one per combination of fields a client happened to send.
const toNode = (n: SpanWire | TraceWire, type: NodeInput['type'], sessionId: string | undefined): NodeInput => ({
  type,
  id: orUndefined(n.id),
  name: orUndefined(n.name),
  input: n.input as Json | undefined,
  output: n.output as Json | undefined,
  createdAt: n.created_at?.at,
  createdAtMicros: n.created_at?.micros,
  tags: orUndefined(n.tags),
  userMetadata: orUndefined(n.user_metadata),
  statusCode: orUndefined(n.status_code),
  externalId: orUndefined(n.external_id),
  datasetInput: orUndefined(n.dataset_input),
  datasetOutput: orUndefined(n.dataset_output),
  datasetMetadata: orUndefined(n.dataset_metadata),
  metrics: orUndefined(n.metrics),
  sessionId,
  stepNumber: orUndefined(n.step_number),
  progressMessage: orUndefined(n.progress_message),
  errorMessage: orUndefined(n.error_message),
  attributes: attributesOf(n),
  spans: n.spans ? n.spans.map((s) => toNode(s, s.type, undefined) as NodeInput & { readonly type: SpanWire['type'] }) : undefined,
});

export const toTraceInputs = (traces: ReadonlyArray<TraceWire>): ReadonlyArray<NodeInput> =>
  traces.map((t) => toNode(t, undefined, orUndefined(t.session_id)));

export const toSpanInputs = (spans: ReadonlyArray<SpanWire>): ReadonlyArray<NodeInput & { readonly type: SpanWire['type'] }> =>
  spans.map((s) => toNode(s, s.type, undefined) as NodeInput & { readonly type: SpanWire['type'] });

/** A PATCH body's changes: a member left out or null changes nothing (the SDKs dump unset members as null). */
export const toPatch = (body: {
  readonly input?: unknown;
  readonly output?: unknown;
  readonly status_code?: number | null;
  readonly tags?: ReadonlyArray<string> | null;
  readonly is_complete?: boolean | null;
  readonly duration_ns?: number | null;
  readonly metrics?: Readonly<Record<string, number | null>> | null;
}): RecordPatch => ({
  ...(body.input === undefined || body.input === null ? {} : { input: body.input as Json }),
  ...(body.output === undefined || body.output === null ? {} : { output: body.output as Json }),
  ...(body.status_code === undefined || body.status_code === null ? {} : { statusCode: body.status_code }),
  ...(body.tags === undefined || body.tags === null ? {} : { tags: body.tags }),
  ...(body.is_complete === undefined || body.is_complete === null ? {} : { isComplete: body.is_complete }),
  ...(body.duration_ns === undefined || body.duration_ns === null ? {} : { durationNs: body.duration_ns }),
  ...(body.metrics === undefined || body.metrics === null ? {} : { metrics: body.metrics }),
});

export const toFilter = (f: FilterWire): RecordFilter => {
  switch (f.type) {
    case 'text':
      return { type: 'text', columnId: f.column_id, operator: f.operator, value: f.value, caseSensitive: f.case_sensitive ?? false };
    case 'number':
      return { type: 'number', columnId: f.column_id, operator: f.operator, value: f.value };
    case 'date':
      return { type: 'date', columnId: f.column_id, operator: f.operator, value: f.value };
    case 'id':
      return { type: 'id', columnId: f.column_id, operator: f.operator, value: f.value };
    case 'collection':
      return { type: 'collection', columnId: f.column_id, operator: f.operator, value: f.value };
    case 'boolean':
      return { type: 'boolean', columnId: f.column_id, operator: f.operator, value: f.value };
  }
};

/**
 * The traces and spans an ingest body carries, counted on the parsed JSON before it is decoded (every
 * entry of `traces`, and of each `spans` list at any depth below them): decoding, ids and records are
 * built for each, so a batch over the limit is refused on this count instead. The body is at most
 * MAX_JSON_DEPTH deep when this runs.
 */
export const recordsInIngestBody = (body: unknown, top: 'traces' | 'spans' = 'traces'): number => {
  const entriesOf = (node: unknown, key: string): ReadonlyArray<unknown> => {
    const list = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined;
    return Array.isArray(list) ? list : [];
  };
  const pending = [...entriesOf(body, top)];
  let count = 0;
  while (pending.length > 0) {
    count++;
    for (const span of entriesOf(pending.pop(), 'spans')) pending.push(span);
  }
  return count;
};
