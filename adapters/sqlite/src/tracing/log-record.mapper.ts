// log_records rows ⇄ domain. The typed attributes are kept whole in JSON and also spread into
// their own columns, so that filters and sorts use plain indexed SQL.
import { type Json, type LogRecord, type ProjectId, type RunId, NODE_TYPES } from '@tracelight/domain';
import * as t from 'io-ts';
import { IdString, JsonText, MsDate, SqlBool, decodeOrThrow, nullable } from '../shared/row-codecs';

const JsonValue = t.unknown as unknown as t.Type<Json, Json, unknown>;
const StringMap = t.record(t.string, t.string);

const Row = t.type({
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
  updated_at: nullable(MsDate),
  tags: JsonText(t.array(t.string)),
  user_metadata: JsonText(StringMap),
  status_code: nullable(t.number),
  external_id: nullable(t.string),
  dataset_input: nullable(t.string),
  dataset_output: nullable(t.string),
  dataset_metadata: JsonText(StringMap),
  metrics: JsonText(t.record(t.string, nullable(t.number))),
  is_complete: SqlBool,
  has_children: SqlBool,
  step_number: nullable(t.number),
  progress_message: nullable(t.string),
  error_message: nullable(t.string),
  attributes: JsonText(t.record(t.string, t.unknown)),
});

export const recordFromRow = (row: unknown): LogRecord => {
  const r = decodeOrThrow(Row, row);
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
  };
};

/** The stored JSON and the searchable text of an input or output: one stringify, not two. */
const jsonAndText = (v: Json): readonly [string, string | null] => {
  if (typeof v === 'string') return [JSON.stringify(v), v];
  const json = JSON.stringify(v);
  return [json, v === null ? null : json];
};

export const recordToRow = (r: LogRecord) => {
  const a = r.attributes;
  const [input, inputText] = jsonAndText(r.input);
  const [output, outputText] = jsonAndText(r.output);
  return {
    id: r.id,
    run_id: r.runId,
    project_id: r.projectId,
    type: r.type,
    is_trace: r.type === 'trace' ? 1 : 0,
    trace_id: r.traceId,
    parent_id: r.parentId,
    session_id: r.sessionId,
    name: r.name,
    input,
    input_text: inputText,
    output,
    output_text: outputText,
    created_at: r.createdAt.getTime(),
    updated_at: r.updatedAt?.getTime() ?? null,
    tags: JSON.stringify(r.tags),
    user_metadata: JSON.stringify(r.userMetadata),
    status_code: r.statusCode,
    external_id: r.externalId,
    dataset_input: r.datasetInput,
    dataset_output: r.datasetOutput,
    dataset_metadata: JSON.stringify(r.datasetMetadata),
    metrics: JSON.stringify(r.metrics),
    is_complete: r.isComplete ? 1 : 0,
    has_children: r.hasChildren ? 1 : 0,
    step_number: r.stepNumber,
    progress_message: r.progressMessage,
    error_message: r.errorMessage,
    attributes: JSON.stringify(a),
    model: a.model ?? null,
    temperature: a.temperature ?? null,
    finish_reason: a.finish_reason ?? null,
    tools: a.tools ?? null,
    tool_call_id: a.tool_call_id ?? null,
    agent_type: a.agent_type ?? null,
    control_id: a.control_id ?? null,
    agent_name: a.agent_name ?? null,
    check_stage: a.check_stage ?? null,
    applies_to: a.applies_to ?? null,
    evaluator_name: a.evaluator_name ?? null,
    selector_path: a.selector_path ?? null,
  };
};

/** A log_records row as written: flat, JSON already encoded. */
export type RecordRow = ReturnType<typeof recordToRow>;

export const RECORD_COLUMNS = Object.keys(recordToRow({
  id: '', type: 'trace', projectId: '' as ProjectId, runId: '' as RunId, traceId: null, parentId: null, sessionId: null, name: '',
  input: '', output: null, createdAt: new Date(0), updatedAt: null, tags: [], userMetadata: {}, statusCode: null, externalId: null,
  datasetInput: null, datasetOutput: null, datasetMetadata: {}, metrics: {}, isComplete: true, hasChildren: false, stepNumber: null,
  progressMessage: null, errorMessage: null, attributes: {},
}));
