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

/**
 * The longest `str` a code scorer's value may be, in characters (code points): 4 KiB of text. A value is
 * stored with its record (in `metrics` and `metric_info`, and again in a trace's roll-up) and answered
 * with every search of it, so it is a label or a short text, not a document.
 */
export const MAX_STR_VALUE_CHARS = 4096;

/** The most of a type's name a message keeps: a scorer names its own types. */
export const MAX_TYPE_NAME_CHARS = 80;

/**
 * What `scorer_fn` returned, as the sandbox saw it: one of the types the contract allows, or another
 * (by its name, at most MAX_TYPE_NAME_CHARS of it). A str longer than MAX_STR_VALUE_CHARS is told by
 * its length only: it is not carried out of the sandbox.
 */
export type ScorerReturn =
  | { readonly type: 'none' }
  | { readonly type: 'bool'; readonly value: boolean }
  | { readonly type: 'int'; readonly value: number }
  | { readonly type: 'float'; readonly value: number }
  | { readonly type: 'str'; readonly value: string }
  | { readonly type: 'str_too_long'; readonly length: number }
  | { readonly type: 'other'; readonly typeName: string };

/** Characters as Python counts them (code points), which a JavaScript string's length does not. */
export const codePointsOf = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/** A name cut to MAX_TYPE_NAME_CHARS. */
const boundedName = (name: string): string => (name.length <= MAX_TYPE_NAME_CHARS ? name : `${name.slice(0, MAX_TYPE_NAME_CHARS - 1)}…`);

const tooLong = (length: number): string =>
  `scorer_fn returned a str of ${length} characters: a value holds at most ${MAX_STR_VALUE_CHARS} (a label or a short text)`;

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
      return E.left(`scorer_fn returned a ${boundedName(returned.typeName)}: it must return a float, int, bool, str or None`);
    case 'str_too_long':
      return E.left(tooLong(returned.length));
    case 'float':
      if (!Number.isFinite(returned.value)) return E.left(`scorer_fn returned ${returned.value}, which no column can hold`);
      if (scoreType === 'float') return E.right(returned.value);
      return scoreType === 'int' && Number.isInteger(returned.value) ? E.right(returned.value) : wrong(`a float (${returned.value})`);
    case 'int':
      // An int past a double's range comes as infinity, which no column holds either.
      if (!Number.isFinite(returned.value)) return E.left('scorer_fn returned an int too large for any column to hold');
      return scoreType === 'int' || scoreType === 'float' ? E.right(returned.value) : wrong(`an int (${returned.value})`);
    case 'bool':
      return scoreType === 'bool' ? E.right(returned.value) : wrong(`a bool (${returned.value ? 'True' : 'False'})`);
    case 'str': {
      if (scoreType !== 'str') return wrong('a str');
      const length = codePointsOf(returned.value);
      return length > MAX_STR_VALUE_CHARS ? E.left(tooLong(length)) : E.right(returned.value);
    }
  }
};

/**
 * The record's entry for a value `scorer_fn` gave. A str is not copied into display_value: it would be
 * the value again (a threshold levels numbers only), stored once more.
 */
export const codeScoredInfo = (version: ScorerVersion, value: MetricValue | null, threshold: ColumnThreshold | undefined): MetricInfo => ({
  status_type: 'success',
  scorer_type: 'code',
  value,
  display_value: value === null || typeof value === 'string' ? null : displayValueOf(value, threshold),
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

/** A qualified Python name (json.decoder.JSONDecodeError): what an exception's type may be shown as. */
const QUALIFIED_NAME = /^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$/;

/** An exception's type as the sandbox named it, when it is a qualified name of bounded length. */
export const exceptionTypeOf = (name: string | null | undefined): string | null =>
  typeof name === 'string' && name.length <= MAX_TYPE_NAME_CHARS && QUALIFIED_NAME.test(name) ? name : null;

/**
 * A code job's message for an exception: a first line of our own naming the exception's type (which the
 * server's log may show), then the traceback's last lines (which it never does: they may quote the record).
 */
export const codeExceptionMessage = (errorType: string | null, traceback: string): string =>
  `scorer_fn raised ${exceptionTypeOf(errorType) ?? 'an exception'}\n${lastLinesOf(traceback)}`;

/** A code job's message for a file that does not compile (the version's code, not a record, is quoted). */
export const codeSyntaxMessage = (line: number | null, message: string): string =>
  lastLinesOf(`the scorer file does not compile: line ${line ?? '?'}: ${message}`);

/**
 * What the server's log says of a code job's message: never the message itself, which quotes what the
 * scorer said (its exceptions' messages, the types it named, the values it returned: the record, often),
 * but one of a fixed set of reasons, recognised by the forms this module and the code runner write, with
 * no more of the message than an exception's type (a qualified name), a number or a score type.
 */
export const codeLogReason = (message: string): string => {
  for (const [form, reason] of LOGGED_REASONS) {
    const m = form.exec(message);
    if (m !== null) return reason(m);
  }
  return "the scorer failed (the reason is in the record's metric_info)";
};

const LOGGED_REASONS: ReadonlyArray<readonly [RegExp, (m: RegExpExecArray) => string]> = [
  [/^scorer_fn raised ([A-Za-z_][\w.]{0,79}|an exception)\n/, (m) => `scorer_fn raised ${exceptionTypeOf(m[1]) ?? 'an exception'} (the traceback is in the record's metric_info)`],
  [/^scorer_fn ran past the time limit of (\d+(?:\.\d+)?) s and was stopped$/, (m) => `scorer_fn ran past the time limit of ${m[1]} s and was stopped`],
  [/^scorer_fn ran out of memory and was stopped/, () => 'scorer_fn ran out of memory and was stopped'],
  [/^the scorer file does not compile: line (\d+|\?):/, (m) => `the scorer file does not compile (line ${m[1]})`],
  [/^scorer_fn returned a str of (\d+) characters: /, (m) => `scorer_fn returned a str of ${m[1]} characters, over the limit of ${MAX_STR_VALUE_CHARS}`],
  [/, but score_type is (float|int|str|bool)$/, (m) => `scorer_fn returned a value of another type than its score_type (${m[1]})`],
  [/^scorer_fn returned .*: it must return a float, int, bool, str or None$/s, () => 'scorer_fn returned a type it may not return'],
  [/^scorer_fn returned .*, which no column can hold$/s, () => 'scorer_fn returned a float no column can hold'],
  [/^scorer_fn returned an int too large for any column to hold$/, (m) => m[0]],
  [/^scorer version (\d+) has no code$/, (m) => `scorer version ${m[1]} has no code`],
  // The sandbox's own words (an interpreter that did not start, a busy pool): no scorer's text in them.
  [/^the scorer sandbox [^\n]{0,200}$/, (m) => m[0]],
];
