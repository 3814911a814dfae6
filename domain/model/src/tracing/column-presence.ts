// Which columns a record has a value for: maintained per run as records are written, so the
// catalogue's `is_empty` costs the same at a million spans as at zero.
import type { NodeType } from '../columns/column';
import { STANDARD_COLUMNS } from '../columns/standard-columns';
import type { LogRecord } from './log-record';

const filled = (v: unknown): boolean =>
  v !== null && v !== undefined && v !== '' && !(Array.isArray(v) && v.length === 0);

/** Standard column id → how to read it from a record. */
export const STANDARD_COLUMN_VALUES: Readonly<Record<string, (r: LogRecord) => unknown>> = {
  input: (r) => r.input,
  output: (r) => r.output,
  name: (r) => r.name,
  created_at: (r) => r.createdAt,
  id: (r) => r.id,
  external_id: (r) => r.externalId,
  progress_message: (r) => r.progressMessage,
  error_message: (r) => r.errorMessage,
  tags: (r) => r.tags,
  status_code: (r) => r.statusCode,
  dataset_input: (r) => r.datasetInput,
  dataset_output: (r) => r.datasetOutput,
  session_id: (r) => r.sessionId,
  project_id: (r) => r.projectId,
  run_id: (r) => r.runId,
  updated_at: (r) => r.updatedAt,
  has_children: (r) => r.hasChildren,
  is_complete: (r) => r.isComplete,
  type: (r) => r.type,
  trace_id: (r) => r.traceId,
  parent_id: (r) => r.parentId,
  step_number: (r) => r.stepNumber,
  agent_type: (r) => r.attributes.agent_type,
  tools: (r) => r.attributes.tools,
  model: (r) => r.attributes.model,
  temperature: (r) => r.attributes.temperature,
  finish_reason: (r) => r.attributes.finish_reason,
  tool_call_id: (r) => r.attributes.tool_call_id,
  control_id: (r) => r.attributes.control_id,
  agent_name: (r) => r.attributes.agent_name,
  check_stage: (r) => r.attributes.check_stage,
  applies_to: (r) => r.attributes.applies_to,
  evaluator_name: (r) => r.attributes.evaluator_name,
  selector_path: (r) => r.attributes.selector_path,
};

/**
 * A standard column is present once a record of a type it applies to (its `applicable_types`) has a
 * value for it: a session's own id in `session_id`, or a trace's in `trace_id`, does not make those
 * columns present, as neither applies to that type.
 */
const APPLIES: ReadonlyMap<string, ReadonlySet<NodeType>> = new Map(STANDARD_COLUMNS.map((c) => [c.id, new Set(c.applicableTypes)]));
type Reader = readonly [id: string, read: (r: LogRecord) => unknown, appliesTo: ReadonlySet<NodeType>];
const READERS: ReadonlyArray<Reader> = Object.entries(STANDARD_COLUMN_VALUES).map(([id, read]) => [id, read, APPLIES.get(id) ?? new Set()]);

/** Adds the column ids (standard and `metrics/<name>`) this record fills to `into`. On the ingest hot path. */
export const addPresentColumns = (r: LogRecord, into: Set<string>): Set<string> => {
  for (const [id, read, appliesTo] of READERS) if (!into.has(id) && appliesTo.has(r.type) && filled(read(r))) into.add(id);
  for (const name in r.metrics) if (r.metrics[name] !== null) into.add(`metrics/${name}`);
  return into;
};

/** The column ids (standard and `metrics/<name>`) this record fills. */
export const presentColumns = (r: LogRecord): ReadonlyArray<string> => [...addPresentColumns(r, new Set())];

/** The columns a batch of records fills, each once. */
export const presentColumnsOfAll = (records: ReadonlyArray<LogRecord>): ReadonlyArray<string> => {
  const into = new Set<string>();
  // On the ingest hot path: a standard column found filled is not read again in later records.
  let unseen = READERS;
  for (const r of records) {
    let found = false;
    for (const [id, read, appliesTo] of unseen)
      if (appliesTo.has(r.type) && filled(read(r))) {
        into.add(id);
        found = true;
      }
    if (found) unseen = unseen.filter(([id]) => !into.has(id));
    for (const name in r.metrics) if (r.metrics[name] !== null) into.add(`metrics/${name}`);
    // A child makes its parent's has_children true, even when the parent is stored by another request
    // (a parent is never a session).
    if (r.parentId !== null) into.add('has_children');
  }
  return [...into];
};
