// log_records rows ⇄ domain. The typed attributes are kept whole in JSON and also spread into
// their own columns, so that filters and sorts use plain indexed SQL.
import { type Json, type LogRecord, type MetricInfo, type ProjectId, type RunId, NODE_TYPES, holdsLoneSurrogate } from '@tracelight/domain';
import * as t from 'io-ts';
import { IdString, JsonText, MsDate, SqlBool, decodeOrThrow, nullable, row } from '../shared/row-codecs';
import { CorruptRow } from '../shared/run';
import { DEFLATE_FROM, deflated, inflate } from './compressed-text';

const StringMap = t.record(t.string, t.string);
/** A metric's value: a number as clients send it, or a scorer's label or labels. */
const MetricValue = nullable(t.union([t.number, t.boolean, t.string, t.array(t.string)]));
/** The scoring workers' entries, as they wrote them (the domain's MetricInfo, in the origin's names). */
const MetricInfoMap = t.record(t.string, t.type({ status_type: t.string })) as unknown as t.Type<Record<string, MetricInfo>, Record<string, MetricInfo>, unknown>;
const Bytes = new t.Type<Uint8Array, Uint8Array, unknown>('Bytes', (u): u is Uint8Array => u instanceof Uint8Array, (u, c) => (u instanceof Uint8Array ? t.success(u) : t.failure(u, c)), t.identity);

const ROW_PROPS = {
  id: t.string,
  run_id: IdString<RunId>(),
  project_id: IdString<ProjectId>(),
  type: t.keyof(Object.fromEntries(NODE_TYPES.map((n) => [n, null])) as Record<(typeof NODE_TYPES)[number], null>),
  trace_id: nullable(t.string),
  parent_id: nullable(t.string),
  session_id: nullable(t.string),
  name: t.string,
  input: t.string,
  input_text: nullable(t.string),
  output: t.string,
  output_text: nullable(t.string),
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
  input_z: nullable(Bytes),
  output_z: nullable(Bytes),
};
const Row = row(ROW_PROPS);

/** What a search reads back: the columns `recordFromRow` decodes (not the derived ones kept for filters). */
export const READ_COLUMNS = Object.keys(ROW_PROPS);

const isEmpty = (o: object): boolean => {
  for (const _ in o) return false;
  return true;
};

/**
 * How an input or output is stored. Its search copy (input_text, output_text: what text filters compare
 * and sort) is always there; the value is the `input`/`output` column's JSON, or, where the copy is the
 * value itself, a marker that says so, never a JSON text: STRING_IN_TEXT (the value is the copy, a
 * string), JSON_IN_TEXT (the value is the copy's JSON). Each value is then stored once, where it was
 * stored twice (as its JSON and as its text: a message list of a 1 KB prompt took 2 KB). A string holding
 * half of a surrogate pair keeps its JSON beside the copy (SQLite stores text as UTF-8, where the half
 * becomes U+FFFD; its JSON escapes it), as does null, whose copy is NULL; rows stored before keep the
 * JSON beside the copy too, and read as they did.
 */
export const STRING_IN_TEXT = '';
export const JSON_IN_TEXT = '#';
/**
 * As STRING_IN_TEXT and JSON_IN_TEXT, the text deflated into input_z/output_z, the copy NULL
 * (compressed-text.ts); each followed by the text's length in UTF-8 bytes, which a page's size budget
 * counts (what the page holds once read).
 */
export const STRING_DEFLATED = '~';
export const JSON_DEFLATED = '~#';

const storedValue = (stored: string, text: string | null, z: Uint8Array | null, column: string): Json => {
  if (stored.startsWith(STRING_DEFLATED)) {
    if (z === null) throw new CorruptRow(`${column} is stored deflated, and there is nothing deflated`);
    text = inflate(z);
    stored = stored.startsWith(JSON_DEFLATED) ? JSON_IN_TEXT : STRING_IN_TEXT;
  }
  if (stored === STRING_IN_TEXT || stored === JSON_IN_TEXT) {
    if (text === null) throw new CorruptRow(`${column} is stored in its text, which is NULL`);
    if (stored === STRING_IN_TEXT) return text;
  }
  try {
    return JSON.parse(stored === JSON_IN_TEXT ? (text as string) : stored) as Json;
  } catch {
    throw new CorruptRow(`${column} is not JSON`);
  }
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
    input: storedValue(r.input, r.input_text, r.input_z, 'input'),
    output: storedValue(r.output, r.output_text, r.output_z, 'output'),
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

/** A row as written (RecordValues) read back as the record it stores, as recordFromRow reads one stored. */
export const recordFromValues = (values: RecordValues): LogRecord => recordFromRow(Object.fromEntries(RECORD_COLUMNS.map((c, i) => [c, values[i]])));

/** The stored form (see STRING_IN_TEXT) and the search copy of an input or output: one stringify at most. */
const jsonAndText = (v: Json): readonly [string, string | null] => {
  if (typeof v === 'string') return holdsLoneSurrogate(v) ? [JSON.stringify(v), v] : [STRING_IN_TEXT, v];
  if (v === null) return ['null', null];
  return [JSON_IN_TEXT, JSON.stringify(v)];
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
  'input_z', 'output_z',
] as const;

/** A row as written: one value per RECORD_COLUMNS entry, JSON already encoded. Flat, so cheap to pass between threads. */
export type RecordValues = ReadonlyArray<string | number | Uint8Array | null>;

/** Where `ingest` looks in a row. */
export const VALUE_INDEX = {
  id: RECORD_COLUMNS.indexOf('id'),
  type: RECORD_COLUMNS.indexOf('type'),
  parentId: RECORD_COLUMNS.indexOf('parent_id'),
  hasChildren: RECORD_COLUMNS.indexOf('has_children'),
  isComplete: RECORD_COLUMNS.indexOf('is_complete'),
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
    null,
    null,
  ];
};

const AT = {
  input: RECORD_COLUMNS.indexOf('input'),
  inputText: RECORD_COLUMNS.indexOf('input_text'),
  inputZ: RECORD_COLUMNS.indexOf('input_z'),
  output: RECORD_COLUMNS.indexOf('output'),
  outputText: RECORD_COLUMNS.indexOf('output_text'),
  outputZ: RECORD_COLUMNS.indexOf('output_z'),
};

/**
 * The rows, each large input and output deflated (DEFLATE_FROM): its marker made the deflated one, its
 * copy NULL, its deflated text in input_z/output_z. After the record index's terms are worked out from
 * the copies (chunkTermsOf), on the thread that maps records to rows.
 */
export const deflateLargeTexts = (rows: ReadonlyArray<RecordValues>): ReadonlyArray<RecordValues> =>
  rows.map((row) => {
    let out: Array<RecordValues[number]> | undefined;
    for (const [stored, text, z] of [[AT.input, AT.inputText, AT.inputZ], [AT.output, AT.outputText, AT.outputZ]] as const) {
      const marker = row[stored];
      const copy = row[text];
      if ((marker !== STRING_IN_TEXT && marker !== JSON_IN_TEXT) || typeof copy !== 'string' || copy.length < DEFLATE_FROM) continue;
      const small = deflated(copy);
      if (small === undefined) continue;
      out ??= [...row];
      out[stored] = `${marker === STRING_IN_TEXT ? STRING_DEFLATED : JSON_DEFLATED}${Buffer.byteLength(copy)}`;
      out[text] = null;
      out[z] = small;
    }
    return out ?? row;
  });

/** A row's input or output copy, inflated where it is stored deflated. */
export const copyOf = (row: RecordValues, column: 'input' | 'output'): string | null => {
  const text = row[column === 'input' ? AT.inputText : AT.outputText];
  return typeof text === 'string' ? text : inflate(row[column === 'input' ? AT.inputZ : AT.outputZ]);
};
