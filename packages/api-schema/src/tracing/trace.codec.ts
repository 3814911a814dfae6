// Trace ingestion and record search, in the origin service's shapes (its SDKs' Trace, LlmSpan,
// ToolSpan, RetrieverSpan, WorkflowSpan, AgentSpan and LogRecordsSearchRequest models).
import { AGENT_TYPES, CHECK_STAGES, CONTROL_TARGETS, NODE_TYPES, SPAN_TYPES } from '@tracelight/domain';
import * as t from 'io-ts';
import { MetricInfoResponse, MetricValueResponse } from '../evaluation/evaluation.codec';
import { Arr, Bool, DateTimeOut, DateTimeWithOffset, Enum, Int, IntegerOut, JsonOrUtf8Text, List, Nullable, Obj, OneOrList, PreciseDateTimeWithOffset, Rec, Utf8Str, Utf8Text, UuidOut, UuidString } from '../shared/primitives.codec';
import { describeCodec } from '../shared/json-schema';
import { fail, valueErrorInfo } from '../shared/validation-error';

/** Any JSON value: inputs and outputs are strings, message lists or documents, kept as sent. */
export const JsonValue = t.unknown;

/** Metadata maps: strings kept as sent, other scalars turned to their JSON text. */
export const StringMap = describeCodec(new t.Type<Record<string, string>, Record<string, string>, unknown>(
  'StringMap',
  (u): u is Record<string, string> => typeof u === 'object' && u !== null,
  (u, c) => {
    if (typeof u !== 'object' || u === null || Array.isArray(u))
      return fail(u, c, { type: 'dict_type', msg: 'Input should be a valid dictionary' });
    return t.success(Object.fromEntries(Object.entries(u).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])));
  },
  t.identity,
), { type: 'object', additionalProperties: { type: 'string' } });

const NumberOrNull = describeCodec(new t.Type<number | null, number | null, unknown>(
  'NumberOrNull',
  (u): u is number | null => u === null || typeof u === 'number',
  (u, c) => (u === null || (typeof u === 'number' && Number.isFinite(u)) ? t.success(u) : fail(u, c, { type: 'float_type', msg: 'Input should be a valid number' })),
  t.identity,
), { type: ['number', 'null'] });

/**
 * Text a record stores as text or as a column's values, which filters compare and the catalogue lists,
 * is Utf8Text: its name, messages and dataset fields, its tags, its typed attributes, its metrics' names
 * (each a `metrics/<name>` column). Its input, output and metadata are kept as JSON text, escaped, and
 * take any string.
 */
const nodeFields = {
  id: Nullable(UuidString),
  name: Nullable(Utf8Text),
  input: JsonValue,
  output: JsonValue,
  redacted_input: JsonValue,
  redacted_output: JsonValue,
  // To the microsecond, as the SDKs send it (DateTimeWithOffset keeps milliseconds).
  created_at: Nullable(PreciseDateTimeWithOffset),
  user_metadata: Nullable(StringMap),
  tags: Nullable(Arr(Utf8Text)),
  status_code: Nullable(Int()),
  metrics: Nullable(Rec(NumberOrNull, Utf8Text)),
  external_id: Nullable(Utf8Text),
  dataset_input: Nullable(Utf8Text),
  dataset_output: Nullable(Utf8Text),
  dataset_metadata: Nullable(StringMap),
  step_number: Nullable(Int()),
  progress_message: Nullable(Utf8Text),
  error_message: Nullable(Utf8Text),
  // typed attributes of some span types
  model: Nullable(Utf8Text),
  temperature: Nullable(t.number),
  finish_reason: Nullable(Utf8Text),
  // The tools offered to a model: any JSON; a string is that text itself.
  tools: JsonOrUtf8Text,
  tool_call_id: Nullable(Utf8Text),
  agent_type: Nullable(Enum(AGENT_TYPES, 'AgentType')),
  control_id: Nullable(Int()),
  agent_name: Nullable(Utf8Text),
  check_stage: Nullable(Enum(CHECK_STAGES, 'CheckStage')),
  applies_to: Nullable(Enum(CONTROL_TARGETS, 'ControlTarget')),
  evaluator_name: Nullable(Utf8Text),
  selector_path: Nullable(Utf8Text),
};

type NodeFields = t.TypeOf<ReturnType<typeof t.partial<typeof nodeFields>>>;
export type SpanWire = NodeFields & { type: (typeof SPAN_TYPES)[number]; spans?: SpanWire[] | null };
export type TraceWire = NodeFields & { type?: 'trace'; session_id?: string | null; spans?: SpanWire[] | null };

export const SpanType = Enum(SPAN_TYPES, 'SpanType');
export const Span: t.Type<SpanWire, unknown, unknown> = t.recursion('Span', () =>
  Obj('Span', { type: SpanType }, { ...nodeFields, spans: Nullable(Arr(Span)) }) as unknown as t.Type<SpanWire, unknown, unknown>,
);
export const Trace: t.Type<TraceWire, unknown, unknown> = Obj(
  'Trace',
  {},
  { type: Enum(['trace'] as const), ...nodeFields, session_id: Nullable(UuidString), spans: Nullable(Arr(Span)) },
) as unknown as t.Type<TraceWire, unknown, unknown>;

const scope = { log_stream_id: Nullable(UuidString), experiment_id: Nullable(UuidString), metrics_testing_id: Nullable(UuidString) };

/** What the SDKs send with every write and Tracelight takes without keeping (it always answers once stored). */
const sdkFields = { reliable: Nullable(Bool), client_version: Nullable(t.string), logging_method: Nullable(t.string) };

export const LogTracesIngestRequest = Obj(
  'LogTracesIngestRequest',
  { traces: Arr(Trace) },
  {
    ...scope,
    session_id: Nullable(UuidString),
    // The session by its external id (the origin's Python SDK 2.x): the run's, made when it has none.
    session_external_id: Nullable(Utf8Text),
    is_complete: Nullable(Bool),
    include_trace_ids: Nullable(Bool),
    ...sdkFields,
  },
);

/**
 * The run is named back as the request named it, by the one of log_stream_id, experiment_id and
 * metrics_testing_id it gave; trace_ids (the ids of the request's traces, in order) are answered when
 * it asked for them with include_trace_ids.
 */
export const LogTracesIngestResponse = t.intersection(
  [
    t.type({
      project_id: UuidOut,
      // The JS SDK's generated client refuses an answer without it.
      project_name: t.string,
      session_id: t.union([UuidOut, t.null]),
      records_count: IntegerOut,
      traces_count: IntegerOut,
      spans_count: IntegerOut,
    }),
    t.partial({ log_stream_id: UuidOut, experiment_id: UuidOut, metrics_testing_id: UuidOut, trace_ids: t.array(UuidOut) }),
  ],
  'LogTracesIngestResponse',
);

/** Immediate mode: spans sent on their own under a trace, below the trace or one of its spans. */
export const LogSpansIngestRequest = Obj(
  'LogSpansIngestRequest',
  { spans: Arr(Span), trace_id: UuidString, parent_id: UuidString },
  { ...scope, is_complete: Nullable(Bool), ...sdkFields },
);

/** What the immediate-mode writes answer, as the origin's LogRecordsIngestResponse: the run by the field the request used. */
const immediateAnswer = {
  project_id: UuidOut,
  project_name: t.string,
  // The trace's session; null for a trace in none (or spans whose trace is not stored yet).
  session_id: t.union([UuidOut, t.null]),
  records_count: IntegerOut,
};
const runField = t.partial({ log_stream_id: UuidOut, experiment_id: UuidOut, metrics_testing_id: UuidOut });
export const LogSpansIngestResponse = t.intersection([t.type({ ...immediateAnswer, trace_id: UuidOut, parent_id: UuidOut }), runField], 'LogSpansIngestResponse');

/**
 * Immediate mode: what a PATCH of a trace or span changes. Members left out or null change nothing;
 * `tags` are added to the record's.
 */
const updateFields = {
  input: JsonValue,
  output: JsonValue,
  status_code: Nullable(Int()),
  tags: Nullable(Arr(Utf8Text)),
  is_complete: Nullable(Bool),
  duration_ns: Nullable(Int({ min: 0 })),
  metrics: Nullable(Rec(NumberOrNull, Utf8Text)),
};
export const LogTraceUpdateRequest = Obj('LogTraceUpdateRequest', { trace_id: UuidString }, { ...scope, ...sdkFields, ...updateFields });
export const LogSpanUpdateRequest = Obj('LogSpanUpdateRequest', { span_id: UuidString }, { ...scope, ...sdkFields, ...updateFields });
export const LogTraceUpdateResponse = t.intersection([t.type({ ...immediateAnswer, trace_id: UuidOut }), runField], 'LogTraceUpdateResponse');
export const LogSpanUpdateResponse = t.intersection([t.type({ ...immediateAnswer, span_id: UuidOut }), runField], 'LogSpanUpdateResponse');
/** `PATCH …/traces/{trace_id}`. */
export const TracePath = t.type({ project_id: UuidString, trace_id: UuidString }, 'TracePath');
/** `PATCH …/spans/{span_id}`. */
export const SpanPath = t.type({ project_id: UuidString, span_id: UuidString }, 'SpanPath');

export const SessionCreateRequest = Obj(
  'SessionCreateRequest',
  {},
  { ...scope, name: Nullable(Utf8Text), external_id: Nullable(Utf8Text), previous_session_id: Nullable(UuidString), user_metadata: Nullable(StringMap) },
);

// Search

/**
 * Bounds that keep a search one bounded SQL statement: at most 1,000 values in a filter's list and 25
 * filters, well under SQLite's 32,766 bound parameters (a longer list answered 503 before).
 */
export const MAX_FILTER_VALUES = 1000;
export const MAX_FILTERS = 25;
/**
 * The longest text a filter value may be, in characters: a search term, not a document. On MongoDB a
 * text filter that ignores case (and `contains`) is a regular expression, which the server refuses
 * past 16 KiB of pattern (a value escaped and each letter's case class spelt out); one bound for both
 * engines, so a search that works on one works on the other.
 */
export const MAX_FILTER_TEXT = 1000;
/**
 * A text filter's value holds no half of a surrogate pair (`string_unicode`, Utf8Str): MongoDB receives
 * it as UTF-8, where the half is U+FFFD and matches any half and U+FFFD itself, while SQLite compares
 * the half's own bytes; one filter would find different records on each engine. Only an input or
 * output can still hold such a half (the record API refuses it elsewhere), and it is found by any other
 * part of its text: what is lost is a search for the cut itself.
 */
const FilterText = Utf8Str({ max: MAX_FILTER_TEXT, name: 'FilterText' });
const Strings = OneOrList(FilterText, { max: MAX_FILTER_VALUES });
const Uuids = OneOrList(UuidString, { max: MAX_FILTER_VALUES });
const Pair = <C extends t.Mixed>(c: C) => t.tuple([c, c]);

/**
 * The filtered column, by `column_id` or by `name`: the origin's Python SDK (1.x) dumps its filter model
 * by field name, `name`, where the API's member is `column_id` (its alias). One of the two is required;
 * with both, `column_id` is read.
 */
const COLUMN = { column_id: t.string, name: t.string };
const FILTERS = {
  text: Obj('TextFilter', { operator: Enum(['eq', 'ne', 'contains', 'one_of', 'not_in'] as const), value: Strings }, { ...COLUMN, case_sensitive: Bool }),
  number: Obj('NumberFilter', { operator: Enum(['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'between'] as const), value: t.union([t.number, Pair(t.number)]) }, COLUMN),
  date: Obj('DateFilter', { operator: Enum(['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'between'] as const), value: t.union([DateTimeWithOffset, Pair(DateTimeWithOffset)]) }, COLUMN),
  id: Obj('IdFilter', { operator: Enum(['eq', 'ne', 'one_of', 'not_in'] as const), value: Uuids }, COLUMN),
  collection: Obj('CollectionFilter', { operator: Enum(['contains', 'not_in'] as const), value: Strings }, COLUMN),
  boolean: Obj('BooleanFilter', { operator: Enum(['eq', 'ne'] as const), value: Bool }, COLUMN),
};
export type FilterKind = keyof typeof FILTERS;
export type FilterWire = { [K in FilterKind]: Omit<t.TypeOf<(typeof FILTERS)[K]>, 'name'> & { type: K; column_id: string } }[FilterKind];
const FILTER_KINDS = Object.keys(FILTERS) as FilterKind[];
const FilterKindCodec = Enum(FILTER_KINDS, 'FilterType');

/**
 * What each operator's `value` is: `one` value, `any` (one or a list, matching any of them) or a
 * `[low, high]` pair (both included). The codecs above take either shape for every operator; this
 * says which one an operator means, so that `eq` with a list or `between` with one number is a 422,
 * not a value the storage cannot use (it answered 503, or silently used the list's first value).
 */
type ValueShape = 'one' | 'any' | 'pair';
const SHAPES: { readonly [K in FilterKind]: ReadonlyArray<readonly [shape: ValueShape, operators: ReadonlyArray<string>, value: t.Mixed]> } = {
  text: [['one', ['eq', 'ne', 'contains'], FilterText], ['any', ['one_of', 'not_in'], Strings]],
  number: [['one', ['eq', 'ne', 'gt', 'gte', 'lt', 'lte'], t.number], ['pair', ['between'], Pair(t.number)]],
  date: [['one', ['eq', 'ne', 'gt', 'gte', 'lt', 'lte'], DateTimeWithOffset], ['pair', ['between'], Pair(DateTimeWithOffset)]],
  id: [['one', ['eq', 'ne'], UuidString], ['any', ['one_of', 'not_in'], Uuids]],
  collection: [['any', ['contains', 'not_in'], Strings]],
  boolean: [['one', ['eq', 'ne'], Bool]],
};
const SHAPE_ERRORS: Readonly<Record<ValueShape, string>> = {
  one: 'takes a single value, not a list',
  any: 'takes a value or a list of values',
  pair: 'takes a list of two values, [low, high]',
};
/**
 * Why a filter's value, as sent, does not have the shape its operator takes, or undefined when it does.
 * As sent: io-ts' tuple decodes `[1, 2, 3]` to `[1, 2]`, the rest dropped unseen.
 */
const shapeError = (kind: FilterKind, operator: string, sent: unknown): string | undefined => {
  const shape = SHAPES[kind].find(([, operators]) => operators.includes(operator))?.[0];
  if (shape === undefined || shape === 'any') return undefined;
  if (shape === 'pair' ? Array.isArray(sent) && sent.length === 2 : !Array.isArray(sent)) return undefined;
  return `operator ${operator} ${SHAPE_ERRORS[shape]}`;
};

/** A filter, validated by the codec its `type` names (so errors point at the right fields). */
export const RecordFilter = describeCodec(new t.Type<FilterWire, unknown, unknown>(
  'RecordFilter',
  (u): u is FilterWire => typeof u === 'object' && u !== null,
  (u, c) => {
    if (typeof u !== 'object' || u === null || Array.isArray(u))
      return fail(u, c, { type: 'model_attributes_type', msg: 'Input should be a valid dictionary or object to extract fields from' });
    const kind = FilterKindCodec.validate((u as { type?: unknown }).type, [...c, { key: 'type', type: FilterKindCodec, actual: (u as { type?: unknown }).type }]);
    if (kind._tag === 'Left') return kind;
    const decoded = FILTERS[kind.right].validate(u, c);
    if (decoded._tag === 'Left') return decoded;
    const { name, ...filter } = decoded.right as typeof decoded.right & { column_id?: string; name?: string };
    const column = filter.column_id ?? name;
    // Neither sent: reported as column_id missing, as a required member is.
    if (column === undefined) return t.string.validate(undefined, [...c, { key: 'column_id', type: t.string, actual: undefined }]) as t.Validation<never>;
    const sent = (u as { value?: unknown }).value; // as sent: a date stays its text
    const error = shapeError(kind.right, filter.operator, sent);
    if (error !== undefined) {
      return fail(sent, [...c, { key: 'value', type: t.unknown, actual: sent }], valueErrorInfo(error));
    }
    return t.success({ ...filter, column_id: column, type: kind.right } as FilterWire);
  },
  t.identity,
), (toSchema) => ({
  oneOf: FILTER_KINDS.map((kind) => ({
    allOf: [
      toSchema(FILTERS[kind]),
      { type: 'object', required: ['type'], properties: { type: { const: kind } } },
      { anyOf: [{ required: ['column_id'] }, { required: ['name'] }] },
      { oneOf: SHAPES[kind].map(([, operators, value]) => ({ properties: { operator: { enum: operators }, value: toSchema(value) } })) },
    ],
  })),
}));

const SortClause = Obj('LogRecordsSortClause', { column_id: t.string }, { ascending: Bool }, { ascending: true });

export const EXPORT_FORMATS = ['jsonl', 'json', 'csv'] as const;
/** Most columns an export may name. */
export const MAX_EXPORT_COLUMNS = 1000;
/**
 * `POST …/export_records`: a run's records of one root type (`trace`, `span`, `session`), filtered as a
 * search and sorted by created_at (newest first by default; another column is refused 422), each with
 * the columns asked for (all by default).
 */
export const LogRecordsExportRequest = Obj(
  'LogRecordsExportRequest',
  { root_type: Enum(['trace', 'span', 'session'] as const, 'RootType') },
  {
    ...scope,
    filters: Nullable(List(RecordFilter, { max: MAX_FILTERS })),
    sort: Nullable(SortClause),
    column_ids: Nullable(List(t.string, { max: MAX_EXPORT_COLUMNS })),
    export_format: Enum(EXPORT_FORMATS, 'LLMExportFormat'),
    redact: Nullable(Bool),
  },
  { export_format: 'jsonl' as const },
);

/** The answer of an export: lines, one record each (a codec of its own: the schema is its description). */
export const RecordExportLines = describeCodec(
  new t.Type<string, string, unknown>('RecordExportLines', (u): u is string => typeof u === 'string', t.string.validate, t.identity),
  {
    type: 'string',
    description:
      'JSON Lines: one JSON object a line, a record each (with column_ids, exactly those columns, a metric as metrics/<name>). With export_format csv, text/csv instead: a header line of the columns, then a line a record.',
  },
);

export const RecordSearchRequest = Obj(
  'LogRecordsSearchRequest',
  {},
  {
    ...scope,
    filters: Nullable(List(RecordFilter, { max: MAX_FILTERS })),
    // `ascending` defaults to true, as the origin's LogRecordsSortClause (and its SDKs) have it.
    sort: Nullable(SortClause),
    starting_token: Int({ min: 0 }),
    limit: Int({ min: 1, max: 1000 }),
  },
);

// ---------------------------------------------------------------------------------------------
// Responses

const NullableStr = t.union([t.string, t.null]);
/** A stored trace, span or session, every field as it was sent; the typed attributes of its type (model, tools, …) besides. */
export const RecordResponse = t.type(
  {
    type: Enum(NODE_TYPES, 'NodeType'),
    id: t.string,
    trace_id: NullableStr,
    parent_id: NullableStr,
    session_id: NullableStr,
    project_id: t.string,
    run_id: t.string,
    name: t.string,
    input: JsonValue,
    output: JsonValue,
    created_at: DateTimeOut,
    updated_at: t.union([DateTimeOut, t.null]),
    tags: t.array(t.string),
    user_metadata: t.record(t.string, t.string),
    status_code: t.union([t.number, t.null]),
    external_id: NullableStr,
    dataset_input: NullableStr,
    dataset_output: NullableStr,
    dataset_metadata: t.record(t.string, t.string),
    metrics: t.record(t.string, MetricValueResponse),
    metric_info: t.record(t.string, MetricInfoResponse),
    is_complete: t.boolean,
    has_children: t.boolean,
    step_number: t.union([t.number, t.null]),
    progress_message: NullableStr,
    error_message: NullableStr,
  },
  'RecordResponse',
);
export const RecordSearchResponse = t.type(
  { records: t.array(RecordResponse), starting_token: IntegerOut, limit: IntegerOut, paginated: t.boolean, next_starting_token: t.union([IntegerOut, t.null]) },
  'RecordSearchResponse',
);
export const SessionResponse = t.type(
  { id: t.string, name: t.string, project_id: t.string, run_id: t.string, external_id: NullableStr, created_at: DateTimeOut },
  'SessionResponse',
);
/** An accepted OTLP export, as OTLP/HTTP's ExportTraceServiceResponse: empty (nothing is ever partly rejected). */
export const OtlpExportResponse = t.type({}, 'ExportTraceServiceResponse');
