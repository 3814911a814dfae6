// Code scorers: the contract of an uploaded Python file (the origin's "registered scorer"), what a
// record hands its scorer_fn, and what the domain makes of what the sandbox says the file did.
import * as E from 'fp-ts/Either';
import { type ColumnDataType, NODE_TYPES } from '../columns/column';
import type { ColumnThreshold } from '../scorers/scorer';
import type { ScorerVersion } from '../scorers/scorer-version';
import { type Json, type LogRecord, textOf } from '../tracing/log-record';
import { type MetricInfo, type MetricValue, displayValueOf } from './metric-info';

/** What `score_type()` may return (the Python type's name): it decides the metric column's data type. */
export const SCORE_TYPES = ['float', 'int', 'str', 'bool'] as const;
export type ScoreType = (typeof SCORE_TYPES)[number];

/** How a trace's (and a session's) value rolls up from its scored descendants'. */
export const ROLL_UP_METHODS = ['average', 'sum', 'first', 'last'] as const;
export type RollUpMethod = (typeof ROLL_UP_METHODS)[number];

const DATA_TYPE_BY_SCORE_TYPE: Readonly<Record<ScoreType, ColumnDataType>> = {
  float: 'floating_point',
  int: 'integer',
  str: 'text',
  bool: 'boolean',
};

export const scoreTypeDataType = (t: ScoreType): ColumnDataType => DATA_TYPE_BY_SCORE_TYPE[t];

export const isScoreType = (t: unknown): t is ScoreType => typeof t === 'string' && (SCORE_TYPES as ReadonlyArray<string>).includes(t);
export const isRollUpMethod = (t: unknown): t is RollUpMethod => typeof t === 'string' && (ROLL_UP_METHODS as ReadonlyArray<string>).includes(t);

/**
 * What the sandbox read of a file once it ran its top level: the optional hooks' answers, as Python gave
 * them (names of types, lists, text), for the domain to check. `null`: the file does not define it.
 */
export interface CodeInspection {
  /** What the file's `scorer_fn` is: a function (its line, and whether it takes `**kwargs`), something else, or nothing. */
  readonly scorerFn:
    | { readonly kind: 'function'; readonly line: number | null; readonly takesKwargs: boolean }
    | { readonly kind: 'not_callable' }
    | { readonly kind: 'missing' };
  /** The name of the type `score_type()` returned (`float`, `int`, …), or its text when not a type. */
  readonly scoreType: string | null;
  /** What `scoreable_node_types_fn()` returned, each item as text; `invalid` when it was not a list. */
  readonly scoreableNodeTypes: ReadonlyArray<string> | 'invalid' | null;
  /** `chain_aggregation` as text (a string, an enum's value, or what a function of that name returned). */
  readonly chainAggregation: string | null;
}

/** A file's hooks, checked: what a version of it is stored with. */
export interface CodeProfile {
  readonly scoreType: ScoreType;
  readonly scoreableNodeTypes: ReadonlyArray<string> | null;
  readonly chainAggregation: RollUpMethod | null;
}

/** Why a file is refused at upload: a message, and the line it names when there is one. */
export interface CodeRefusal {
  readonly message: string;
  readonly line: number | null;
}

/** The hooks' answers checked against the contract; a refusal names the hook that broke it. */
export const profileOf = (found: CodeInspection): E.Either<CodeRefusal, CodeProfile> => {
  const fn = found.scorerFn;
  if (fn.kind === 'missing') return E.left({ message: 'the file defines no scorer_fn: a scorer file must define scorer_fn(*, index, node_input, node_output, **kwargs)', line: null });
  if (fn.kind === 'not_callable') return E.left({ message: 'scorer_fn is not a function', line: null });
  // Records are scored with more arguments than the contract's first three (and more may come).
  if (!fn.takesKwargs) return E.left({ message: 'scorer_fn must take **kwargs: it is called with more keyword arguments than it names', line: fn.line });
  const scoreType = found.scoreType ?? 'float';
  if (!isScoreType(scoreType))
    return E.left({ message: `score_type() returned ${found.scoreType}: it must return float, int, str or bool (the type itself)`, line: null });
  const types = found.scoreableNodeTypes;
  if (types === 'invalid') return E.left({ message: 'scoreable_node_types_fn() must return a list of node types', line: null });
  if (types !== null) {
    if (types.length === 0) return E.left({ message: 'scoreable_node_types_fn() returned an empty list: the scorer would score nothing', line: null });
    const unknown = types.find((t) => !(NODE_TYPES as ReadonlyArray<string>).includes(t));
    if (unknown !== undefined)
      return E.left({ message: `scoreable_node_types_fn() returned ${JSON.stringify(unknown)}, which is not a node type (${NODE_TYPES.join(', ')})`, line: null });
  }
  const chain = found.chainAggregation;
  if (chain !== null && !isRollUpMethod(chain))
    return E.left({ message: `chain_aggregation is ${JSON.stringify(chain)}: it must be one of ${ROLL_UP_METHODS.join(', ')}`, line: null });
  return E.right({ scoreType, scoreableNodeTypes: types === null ? null : [...new Set(types)], chainAggregation: chain });
};

/**
 * The keyword arguments `scorer_fn` is called with for one record: JSON, so that any sandbox can take
 * them. Input and output are text as the `text` columns hold them (a string as it is, other JSON as its
 * JSON text, nothing as empty text).
 */
export interface ScorerArguments {
  readonly index: string;
  readonly node_input: string;
  readonly node_output: string;
  readonly node_name: string;
  readonly node_type: string;
  readonly node_id: string;
  readonly tools: ReadonlyArray<Readonly<Record<string, Json>>> | null;
  readonly dataset_variables: Readonly<Record<string, string>>;
}

/** An llm span's tools as the scorer gets them: the JSON list of objects its `tools` holds, else None. */
const toolsOf = (text: string | undefined): ScorerArguments['tools'] => {
  if (text === undefined || text === '') return null;
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) && parsed.every((t) => typeof t === 'object' && t !== null && !Array.isArray(t))
      ? (parsed as ReadonlyArray<Readonly<Record<string, Json>>>)
      : null;
  } catch {
    return null;
  }
};

/**
 * `dataset_variables`: the record's dataset metadata, then `input` and `target` (the origin's name for the
 * ground truth) from its dataset input and output, where it has them.
 */
const datasetVariablesOf = (r: LogRecord): Readonly<Record<string, string>> => ({
  ...r.datasetMetadata,
  ...(r.datasetInput !== null ? { input: r.datasetInput } : {}),
  ...(r.datasetOutput !== null ? { target: r.datasetOutput } : {}),
});

export const scorerArguments = (r: LogRecord): ScorerArguments => ({
  index: r.id,
  node_input: textOf(r.input) ?? '',
  node_output: textOf(r.output) ?? '',
  node_name: r.name,
  node_type: r.type,
  node_id: r.id,
  tools: toolsOf(r.attributes.tools),
  dataset_variables: datasetVariablesOf(r),
});

/** What `scorer_fn` returned, as the sandbox saw it: one of the types the contract allows, or another. */
export type ScorerReturn =
  | { readonly type: 'none' }
  | { readonly type: 'bool'; readonly value: boolean }
  | { readonly type: 'int'; readonly value: number }
  | { readonly type: 'float'; readonly value: number }
  | { readonly type: 'str'; readonly value: string }
  | { readonly type: 'other'; readonly typeName: string };

/**
 * The value stored for what `scorer_fn` returned, checked against the version's score type (a column
 * holds one type): a float column takes ints too; an int column takes a float with no fraction; None is
 * no value. A message saying what is wrong otherwise.
 */
export const scoredValue = (scoreType: ScoreType, returned: ScorerReturn): E.Either<string, MetricValue | null> => {
  const wrong = (what: string) => E.left(`scorer_fn returned ${what}, but score_type is ${scoreType}`);
  switch (returned.type) {
    case 'none':
      return E.right(null);
    case 'other':
      return E.left(`scorer_fn returned a ${returned.typeName}: it must return a float, int, bool, str or None`);
    case 'float':
      if (!Number.isFinite(returned.value)) return E.left(`scorer_fn returned ${returned.value}, which no column can hold`);
      if (scoreType === 'float') return E.right(returned.value);
      return scoreType === 'int' && Number.isInteger(returned.value) ? E.right(returned.value) : wrong(`a float (${returned.value})`);
    case 'int':
      return scoreType === 'int' || scoreType === 'float' ? E.right(returned.value) : wrong(`an int (${returned.value})`);
    case 'bool':
      return scoreType === 'bool' ? E.right(returned.value) : wrong(`a bool (${returned.value ? 'True' : 'False'})`);
    case 'str':
      return scoreType === 'str' ? E.right(returned.value) : wrong('a str');
  }
};

/** The record's entry for a value `scorer_fn` gave. */
export const codeScoredInfo = (version: ScorerVersion, value: MetricValue | null, threshold: ColumnThreshold | undefined): MetricInfo => ({
  status_type: 'success',
  scorer_type: 'code',
  value,
  display_value: value === null ? null : displayValueOf(value, threshold),
  explanation: null,
  version: version.version,
});

/** The most of an exception's traceback a job's message keeps: its last lines, where Python says what went wrong. */
export const TRACEBACK_LINES = 12;
export const TRACEBACK_CHARS = 2000;

/** The last lines of a traceback, at most TRACEBACK_LINES of them and TRACEBACK_CHARS characters (the end kept). */
export const lastLinesOf = (text: string): string => {
  const lines = text.replace(/\s+$/, '').split('\n');
  let kept = lines.slice(-TRACEBACK_LINES).join('\n');
  if (lines.length > TRACEBACK_LINES) kept = `…\n${kept}`;
  return kept.length > TRACEBACK_CHARS ? `…${kept.slice(kept.length - TRACEBACK_CHARS + 1)}` : kept;
};

/** A code version's score type (float when the file has no score_type()). */
export const scoreTypeOf = (v: ScorerVersion): ScoreType => {
  const t = v.registeredScorer?.scoreType;
  return isScoreType(t) ? t : 'float';
};

/**
 * A code job's message as the server's log says it. A traceback may quote the record (an exception's
 * message often does) and the log holds no record's content: of a traceback, only the exception's type.
 */
export const codeLogReason = (message: string): string => {
  if (!message.startsWith('Traceback') && !message.startsWith('…')) return message;
  const last = message.trimEnd().split('\n').pop() ?? '';
  const type = /^([A-Za-z_][\w.]*)/.exec(last)?.[1] ?? 'an exception';
  return `scorer_fn raised ${type} (the traceback is in the record's metric_info)`;
};
