// log_records rows ⇄ domain. The typed attributes are kept whole in JSON and also spread into
// their own columns, so that filters and sorts use plain indexed SQL.
import { type Json, type LogRecord, type MetricInfo, type ProjectId, type RunId, NODE_TYPES } from '@tracelight/domain';
import * as t from 'io-ts';
import { IdString, JsonText, MsDate, SqlBool, decodeOrThrow, nullable, row } from '../shared/row-codecs';

const JsonValue = t.unknown as unknown as t.Type<Json, Json, unknown>;
const StringMap = t.record(t.string, t.string);
/** A metric's value: a number as clients send it, or a scorer's label or labels. */
const MetricValue = nullable(t.union([t.number, t.boolean, t.string, t.array(t.string)]));
/** The scoring workers' entries, as they wrote them (the domain's MetricInfo, in the origin's names). */
const MetricInfoMap = t.record(t.string, t.type({ status_type: t.string })) as unknown as t.Type<Record<string, MetricInfo>, Record<string, MetricInfo>, unknown>;

const ROW_PROPS = {
  id: t.string,
  run_id: IdString<RunId>(),
  project_id: IdString<ProjectId>(),
  type: t.keyof(Object.fromEntries(NODE_TYPES.map((n) => [n, null])) as Record<(typeof NODE_TYPES)[number], null>),
  trace_id: nullable(t.string),
  parent_id: nullable(t.string),
  session_id: nullable(t.string),
  name: t.string,
  input: JsonText(JsonValue),
  output: JsonText(JsonValue),
  created_at: MsDate,
  created_at_us: t.number,
  updated_at: nullable(MsDate),
  tags: JsonText(t.array(t.string)),
  user_metadata: JsonText(StringMap),
  status_code: nullable(t.number),
  external_id: nullable(t.string),
  dataset_input: nullable(t.string),
  dataset_output: nullable(t.string),
  dataset_metadata: JsonText(StringMap),
  metrics: JsonText(t.record(t.string, MetricValue)),
  is_complete: SqlBool,
  has_children: SqlBool,
  step_number: nullable(t.number),
  progress_message: nullable(t.string),
  error_message: nullable(t.string),
  attributes: JsonText(t.record(t.string, t.unknown)),
  otel_root_key: nullable(t.string),
  metric_info: JsonText(MetricInfoMap),
};
const Row = row(ROW_PROPS);

/** What a search reads back: the columns `recordFromRow` decodes (not the derived ones kept for filters). */
export const READ_COLUMNS = Object.keys(ROW_PROPS);

const isEmpty = (o: object): boolean => {
  for (const _ in o) return false;
  return true;
};

export const recordFromRow = (stored: unknown): LogRecord => {
  const r = decodeOrThrow(Row, stored);
  return {
    id: r.id,
    type: r.type,
    projectId: r.project_id,
    runId: r.run_id,
    traceId: r.trace_id,
    parentId: r.parent_id,
    sessionId: r.session_id,
    name: r.name,
    input: r.input,
    output: r.output,
    createdAt: r.created_at,
    createdAtMicros: r.created_at_us,
    updatedAt: r.updated_at,
    tags: r.tags,
    userMetadata: r.user_metadata,
    statusCode: r.status_code,
    externalId: r.external_id,
    datasetInput: r.dataset_input,
    datasetOutput: r.dataset_output,
    datasetMetadata: r.dataset_metadata,
    metrics: r.metrics,
    isComplete: r.is_complete,
    hasChildren: r.has_children,
    stepNumber: r.step_number,
    progressMessage: r.progress_message,
    errorMessage: r.error_message,
    attributes: r.attributes as LogRecord['attributes'],
    ...(r.otel_root_key === null ? {} : { otelRootKey: r.otel_root_key }),
    ...(isEmpty(r.metric_info) ? {} : { metricInfo: r.metric_info }),
  };
};

/** The stored JSON and the searchable text of an input or output: one stringify, not two. */
const jsonAndText = (v: Json): readonly [string, string | null] => {
  if (typeof v === 'string') return [JSON.stringify(v), v];
  const json = JSON.stringify(v);
  return [json, v === null ? null : json];
};

/** The log_records columns in the order `recordToValues` gives them (positional parameters bind fastest). */
export const RECORD_COLUMNS = [
  'id', 'run_id', 'project_id', 'type', 'is_trace', 'trace_id', 'parent_id', 'session_id', 'name', 'input', 'input_text',
  'output', 'output_text', 'created_at', 'updated_at', 'tags', 'user_metadata', 'status_code', 'external_id',
  'dataset_input', 'dataset_output', 'dataset_metadata', 'metrics', 'is_complete', 'has_children', 'step_number',
  'progress_message', 'error_message', 'attributes', 'model', 'temperature', 'finish_reason', 'tools', 'tool_call_id',
  'agent_type', 'control_id', 'agent_name', 'check_stage', 'applies_to', 'evaluator_name', 'selector_path', 'otel_root_key',
  'created_at_us',
  'metric_info',
] as const;

/** A row as written: one value per RECORD_COLUMNS entry, JSON already encoded. Flat, so cheap to pass between threads. */
export type RecordValues = ReadonlyArray<string | number | null>;

/** Where `ingest` looks in a row. */
export const VALUE_INDEX = {
  id: RECORD_COLUMNS.indexOf('id'),
  type: RECORD_COLUMNS.indexOf('type'),
  parentId: RECORD_COLUMNS.indexOf('parent_id'),
  hasChildren: RECORD_COLUMNS.indexOf('has_children'),
  metrics: RECORD_COLUMNS.indexOf('metrics'),
  metricInfo: RECORD_COLUMNS.indexOf('metric_info'),
} as const;

/** JSON of a small map or list; most are empty, and `{}`/`[]` need no serialiser. */
const jsonOfMap = (o: object): string => {
  for (const _ in o) return JSON.stringify(o);
  return '{}';
};
const jsonOfList = (a: ReadonlyArray<unknown>): string => (a.length === 0 ? '[]' : JSON.stringify(a));

export const recordToValues = (r: LogRecord): RecordValues => {
  const a = r.attributes;
  const [input, inputText] = jsonAndText(r.input);
  const [output, outputText] = jsonAndText(r.output);
  return [
    r.id,
    r.runId,
    r.projectId,
    r.type,
    r.type === 'trace' ? 1 : 0,
    r.traceId,
    r.parentId,
    r.sessionId,
    r.name,
    input,
    inputText,
    output,
    outputText,
    r.createdAt.getTime(),
    r.updatedAt?.getTime() ?? null,
    jsonOfList(r.tags),
    jsonOfMap(r.userMetadata),
    r.statusCode,
    r.externalId,
    r.datasetInput,
    r.datasetOutput,
    jsonOfMap(r.datasetMetadata),
    jsonOfMap(r.metrics),
    r.isComplete ? 1 : 0,
    r.hasChildren ? 1 : 0,
    r.stepNumber,
    r.progressMessage,
    r.errorMessage,
    jsonOfMap(a),
    a.model ?? null,
    a.temperature ?? null,
    a.finish_reason ?? null,
    a.tools ?? null,
    a.tool_call_id ?? null,
    a.agent_type ?? null,
    a.control_id ?? null,
    a.agent_name ?? null,
    a.check_stage ?? null,
    a.applies_to ?? null,
    a.evaluator_name ?? null,
    a.selector_path ?? null,
    r.otelRootKey ?? null,
    r.createdAtMicros,
    r.metricInfo === undefined ? '{}' : jsonOfMap(r.metricInfo),
  ];
};
