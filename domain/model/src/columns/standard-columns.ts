// The standard column catalogue, as data that reads like the spec's table (same order).
import { AGENT_TYPES, CHECK_STAGES, type ColumnDataType, type ColumnDescriptor, type ColumnFilterType, CONTROL_TARGETS, type NodeType, NODE_TYPES, SPAN_TYPES } from './column';

const ALL: ReadonlyArray<NodeType> = NODE_TYPES;
const NOT_SESSION: ReadonlyArray<NodeType> = NODE_TYPES.filter((t) => t !== 'session');
const SPANS: ReadonlyArray<NodeType> = SPAN_TYPES;

type Row = readonly [
  id: string,
  label: string,
  dataType: ColumnDataType,
  filterType: ColumnFilterType,
  applicableTypes: ReadonlyArray<NodeType>,
  isOptional: boolean,
  sortable: boolean,
  description: string,
];

// prettier-ignore
const ROWS: ReadonlyArray<Row> = [
  ['input',            'Input',            'text',           'text',       ALL,         false, true,  'The input the node received: the prompt of an LLM call, the query of a retriever, the arguments of a tool.'],
  ['output',           'Output',           'text',           'text',       ALL,         false, true,  'The output the node produced: the completion, the retrieved documents or the tool result.'],
  ['name',             'Name',             'text',           'text',       ALL,         false, true,  'The name given to the node when it was logged.'],
  ['created_at',       'Created',          'timestamp',      'date',       ALL,         false, true,  'When the node started.'],
  ['id',               'ID',               'uuid',           'id',         ALL,         false, true,  'The unique identifier of the node.'],
  ['external_id',      'External ID',      'text',           'text',       ALL,         true,  true,  'An identifier supplied by the application that logged the node, for joining with its own records.'],
  ['progress_message', 'Progress Message', 'text',           'text',       ALL,         false, true,  'The latest progress message reported while the node was being processed.'],
  ['error_message',    'Error Message',    'text',           'text',       ALL,         false, true,  'The error reported for the node, if it failed.'],
  ['tags',             'Tags',             'string_list',    'collection', NOT_SESSION, false, false, 'Free-form labels attached to the trace or span.'],
  ['status_code',      'Status Code',      'integer',        'number',     NOT_SESSION, true,  true,  'The status code the node ended with, such as an HTTP status of a tool call.'],
  ['dataset_input',    'Dataset Input',    'text',           'text',       NOT_SESSION, false, true,  'The input of the dataset row this trace was run on, in experiments.'],
  ['dataset_output',   'Dataset Output',   'text',           'text',       NOT_SESSION, false, true,  'The expected output (ground truth) of the dataset row, in experiments.'],
  ['session_id',       'Session ID',       'uuid',           'id',         NOT_SESSION, false, true,  'The session the trace or span belongs to.'],
  ['project_id',       'Project ID',       'uuid',           'id',         NOT_SESSION, false, true,  'The project the trace or span was logged to.'],
  ['run_id',           'Run ID',           'uuid',           'id',         NOT_SESSION, false, true,  'The log stream or experiment the trace or span was logged to.'],
  ['updated_at',       'Updated',          'timestamp',      'date',       NOT_SESSION, true,  true,  'When the trace or span was last changed.'],
  ['has_children',     'Has Children',     'boolean',        'boolean',    NOT_SESSION, true,  true,  'Whether the trace or span contains child spans.'],
  ['is_complete',      'Is Complete',      'boolean',        'boolean',    NOT_SESSION, false, true,  'Whether the trace has been concluded and will receive no more spans.'],
  ['type',             'Type',             'text',           'text',       SPANS,       false, true,  'The kind of node: an LLM call, a retriever, a tool, a workflow, an agent or a control check.'],
  ['trace_id',         'Trace ID',         'uuid',           'id',         SPANS,       false, true,  'The trace the span belongs to.'],
  ['parent_id',        'Parent ID',        'uuid',           'id',         SPANS,       false, true,  'The span or trace directly containing this span.'],
  ['step_number',      'Step Number',      'integer',        'number',     SPANS,       true,  true,  'The position of the span among the steps of its agent or workflow.'],
  ['agent_type',       'Agent Type',       'text',           'text',       ['agent'],   false, true,  'The role the agent plays, such as planner, router or judge.'],
  ['tools',            'Tools',            'text',           'text',       ['llm'],     false, true,  'The tools offered to the model in this call, as sent to it.'],
  ['model',            'Model',            'text',           'text',       ['llm'],     true,  true,  'The model that served the LLM call.'],
  ['temperature',      'Temperature',      'floating_point', 'number',     ['llm'],     true,  true,  'The sampling temperature of the LLM call.'],
  ['finish_reason',    'Finish Reason',    'text',           'text',       ['llm'],     true,  true,  'Why the model stopped generating, such as stop, length or tool_calls.'],
  ['tool_call_id',     'Tool Call ID',     'text',           'text',       ['tool'],    true,  true,  'The identifier the model gave to the tool call this span executed.'],
  ['control_id',       'Control ID',       'integer',        'number',     ['control'], true,  true,  'The identifier of the control (guardrail) that was checked.'],
  ['agent_name',       'Agent Name',       'text',           'text',       ['control'], true,  true,  'The agent whose step the control checked.'],
  ['check_stage',      'Check Stage',      'text',           'text',       ['control'], true,  true,  'Whether the control ran before (pre) or after (post) the step it guards.'],
  ['applies_to',       'Applies To',       'text',           'text',       ['control'], true,  true,  'Whether the control guards an LLM call or a tool call.'],
  ['evaluator_name',   'Evaluator Name',   'text',           'text',       ['control'], true,  true,  'The evaluator that decided the outcome of the control.'],
  ['selector_path',    'Selector Path',    'text',           'text',       ['control'], true,  true,  'The path of the part of the step the control inspected.'],
];

/** Closed sets of values, per column (the ingest codecs refuse any other value). */
const ALLOWED_VALUES: Readonly<Record<string, ReadonlyArray<string>>> = {
  type: NODE_TYPES,
  agent_type: AGENT_TYPES,
  check_stage: CHECK_STAGES,
  applies_to: CONTROL_TARGETS,
};

const MULTI_VALUED: ReadonlySet<string> = new Set(['tags']);

export const STANDARD_COLUMNS: ReadonlyArray<ColumnDescriptor> = ROWS.map(
  ([id, label, dataType, filterType, applicableTypes, isOptional, sortable, description]) => {
    const allowedValues = ALLOWED_VALUES[id];
    return {
      id,
      label,
      description,
      category: 'standard',
      groupLabel: 'Standard',
      dataType,
      filterType,
      filterable: true,
      sortable,
      multiValued: MULTI_VALUED.has(id),
      isEmpty: false,
      isOptional,
      applicableTypes,
      ...(allowedValues ? { allowedValues } : {}),
    };
  },
);
