// The spec's HTTPValidationError, and the one reporter that turns io-ts failures into its detail[]
// (in the style of FastAPI/pydantic v2, the framework the spec came from).
//
// How error codes travel: a custom codec fails with `fail(u, c, {type, msg, ctx})`, which puts the
// JSON of that triple in the io-ts failure's `message`; the reporter parses it back. Failures of
// built-in io-ts codecs (no message) are named from the codec's `_tag`.
import * as E from 'fp-ts/Either';
import type * as t from 'io-ts';
import { prefixOf } from '@tracelight/domain';

/**
 * The most decoding errors a codec gathers, and the most entries a 422 lists: a list of a million bad
 * items is refused after this many, not read to its end. Each error holds its path and value, and io-ts
 * gathers every one: a 2 MB body of a million bad tags made a million, and its 422 overflowed the stack.
 */
export const MAX_DECODE_ERRORS = 100;

export interface ValidationError {
  readonly loc: ReadonlyArray<string | number>;
  readonly msg: string;
  readonly type: string;
  readonly input?: unknown;
  readonly ctx?: Readonly<Record<string, unknown>>;
}

export interface HTTPValidationError {
  readonly detail: ReadonlyArray<ValidationError>;
}

/** Where a request part sits; the first element of every `loc`. */
export type Where = 'body' | 'query' | 'path' | 'header';

/** What a custom codec puts in `t.failure(…, message)`: the error's type, sentence and context. */
export interface FailureInfo {
  readonly type: string;
  readonly msg: string;
  readonly ctx?: Readonly<Record<string, unknown>>;
}

/** Fails a custom codec with a pydantic-style error; `u` becomes the entry's `input`. */
export const fail = (u: unknown, c: t.Context, info: FailureInfo): t.Validation<never> =>
  E.left([{ value: u, context: c, message: JSON.stringify(info) }]);

/** A pydantic `value_error` (what a validator's ValueError becomes): msg prefixed `Value error, `. */
export const valueErrorInfo = (error: string): FailureInfo => ({ type: 'value_error', msg: `Value error, ${error}`, ctx: { error } });

/** A `value_error` entry for a rule checked outside a codec. `loc` is complete (`['body', …]`). */
export const valueError = (loc: ReadonlyArray<string | number>, msg: string, input: unknown): ValidationError =>
  withEchoedInput({ loc, ...valueErrorInfo(msg), input });

/** The entry for a body that is not JSON: `position` is the character offset where parsing failed. */
export const jsonInvalid = (position: number, error: string): ValidationError => ({
  loc: ['body', position],
  msg: 'JSON decode error',
  type: 'json_invalid',
  input: {},
  ctx: { error },
});

// ---------------------------------------------------------------------------------------------
// The reporter

const parseInfo = (message: string | undefined): FailureInfo | undefined => {
  if (!message || !message.startsWith('{')) return undefined;
  try {
    const info = JSON.parse(message) as FailureInfo;
    return typeof info.type === 'string' && typeof info.msg === 'string' ? info : undefined;
  } catch {
    return undefined;
  }
};

type Tagged = t.Decoder<unknown, unknown> & { readonly _tag?: string; readonly name: string };

/** Codecs whose context keys are branch numbers, not members: they are left out of `loc`. */
const isBranching = (type: Tagged | undefined): boolean => type?._tag === 'UnionType' || type?._tag === 'IntersectionType';
/** Codecs whose context keys are element indexes: they go into `loc` as numbers. */
const isIndexed = (type: Tagged | undefined): boolean =>
  type?._tag === 'ArrayType' || type?._tag === 'ReadonlyArrayType' || type?._tag === 'TupleType' || type?._tag === 'ReadonlyTupleType';

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u);

/** The error type and sentence for a failure of a built-in io-ts codec. */
const builtinInfo = (type: Tagged): FailureInfo => {
  switch (type._tag) {
    case 'StringType':
      return { type: 'string_type', msg: 'Input should be a valid string' };
    case 'NumberType':
      return { type: 'float_type', msg: 'Input should be a valid number' };
    case 'BooleanType':
      return { type: 'bool_type', msg: 'Input should be a valid boolean' };
    case 'NullType':
      return { type: 'none_required', msg: 'Input should be None' };
    case 'ArrayType':
    case 'ReadonlyArrayType':
    case 'AnyArrayType':
    case 'UnknownArrayType':
      return { type: 'list_type', msg: 'Input should be a valid list' };
    case 'TupleType':
    case 'ReadonlyTupleType':
      return { type: 'tuple_type', msg: 'Input should be a valid tuple' };
    case 'DictionaryType':
    case 'UnknownRecordType':
      return { type: 'dict_type', msg: 'Input should be a valid dictionary' };
    case 'InterfaceType':
    case 'PartialType':
    case 'ExactType':
    case 'StrictType':
    case 'IntersectionType':
      return { type: 'model_attributes_type', msg: 'Input should be a valid dictionary or object to extract fields from' };
    case 'LiteralType': {
      const expected = `${JSON.stringify((type as unknown as t.LiteralType<string | number | boolean>).value).replace(/^"(.*)"$/, "'$1'")}`;
      return { type: 'literal_error', msg: `Input should be ${expected}`, ctx: { expected } };
    }
    case 'KeyofType': {
      const keys = Object.keys((type as unknown as t.KeyofType<Record<string, unknown>>).keys);
      const expected = keys.length <= 1 ? `'${keys[0] ?? ''}'` : `${keys.slice(0, -1).map((k) => `'${k}'`).join(', ')} or '${keys[keys.length - 1]}'`;
      return { type: 'enum', msg: `Input should be ${expected}`, ctx: { expected } };
    }
    default:
      return { type: 'value_error', msg: `Value error, expected ${type.name}`, ctx: { error: `expected ${type.name}` } };
  }
};

interface Located extends ValidationError {
  /** Lower is preferred when two failures share a location; 2 marks a `null` branch's complaint. */
  readonly rank: number;
}

const locate = (error: t.ValidationError, where: Where): Located => {
  const entries = error.context;
  const loc: Array<string | number> = [where];
  let step: { key: string; container: unknown; actual: unknown } | undefined;
  for (let i = 1; i < entries.length; i++) {
    const parent = entries[i - 1]!;
    const entry = entries[i]!;
    const parentType = parent.type as Tagged;
    // Union and intersection branches hand the same value down under a branch number; a custom
    // codec may also hand its own value down to another codec. Neither is a step into the value.
    if (isBranching(parentType) || entry.key === '') continue;
    if (!isIndexed(parentType) && entry.actual === parent.actual) continue;
    loc.push(isIndexed(parentType) ? Number(entry.key) : entry.key);
    step = { key: entry.key, container: parent.actual, actual: entry.actual };
  }
  const last = entries[entries.length - 1]!;
  const missing =
    step !== undefined &&
    step.actual === undefined &&
    isRecord(step.container) &&
    !Object.prototype.hasOwnProperty.call(step.container, step.key);
  if (missing) return { loc, msg: 'Field required', type: 'missing', input: step!.container, rank: 0 };
  const info = parseInfo(error.message) ?? builtinInfo(last.type as Tagged);
  const rank = (last.type as Tagged)._tag === 'NullType' ? 2 : 1;
  return { loc, msg: info.msg, type: info.type, input: error.value, ...(info.ctx ? { ctx: info.ctx } : {}), rank };
};

/**
 * Members whose values are secrets, however their name is spelt (`password`, `apiKey`, `api-key`,
 * `client_secret`, `gateway_token`, `Authorization`, `private_key`…; a count such as `prompt_tokens`
 * is not one, nor a page's `starting_token`): an error's `input` shows them masked, as pydantic shows a SecretStr. Matched on the
 * name lower-cased with everything but letters and digits left out.
 */
const SECRET_NAME = /password|passwd|passphrase|secret|apikey|privatekey|credential|authorization|cookie|(?<!starting|page|continuation)token$/;
const isSecretName = (key: string | number): boolean => typeof key === 'string' && SECRET_NAME.test(key.toLowerCase().replace(/[^a-z0-9]/g, ''));
/** Values that are credentials whatever member holds them: one of our API keys, a JWT. */
const SECRET_VALUE = /^(?:tl_[A-Za-z0-9_-]{20,}|eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*)$/;
const MASK = '**********';
/** How deep an echoed `input` is written out; below, a nested value is elided. */
const ECHO_DEPTH = 100;
/**
 * About how many characters of JSON an entry's echoed `input` takes at most: past it, the rest of a
 * string is cut off and the rest of a list or object left out, each marked `…`. A 422 answers what was
 * wrong, not the whole body back: a missing field at the top of a 10 MB ingest body (whose `input` is
 * the body) would otherwise send the 10 MB back, once per entry.
 */
export const ECHO_BUDGET = 4_096;
/** Stands for what an echo leaves out: a string's end, a list's or object's remaining members, deeper levels. */
export const ELIDED = '…';

/** `input` as it may be echoed: every secret member masked, bounded in depth and in size. */
const echoed = (given: unknown, budget: { left: number }, depth: number): unknown => {
  // Bytes (an uploaded file's content) are named by their size: JSON would write a Node Buffer as
  // {"type":"Buffer","data":[…]}, one number a byte, an internal form that says nothing to the caller.
  if (given instanceof Uint8Array) {
    budget.left -= 24;
    return `<${given.byteLength} bytes>`;
  }
  // What JSON would write for it (a Date its ISO text), as the answer is JSON.
  const toJSON = typeof given === 'object' && given !== null ? (given as { toJSON?: unknown }).toJSON : undefined;
  const value: unknown = typeof toJSON === 'function' ? (toJSON as () => unknown).call(given) : given;
  if (typeof value === 'string') {
    if (SECRET_VALUE.test(value)) {
      budget.left -= MASK.length + 2;
      return MASK;
    }
    if (value.length <= budget.left) {
      budget.left -= value.length + 2;
      return value;
    }
    const kept = prefixOf(value, budget.left);
    budget.left = 0;
    return kept + ELIDED;
  }
  if (typeof value !== 'object' || value === null) {
    budget.left -= 8;
    return value;
  }
  if (depth >= ECHO_DEPTH || budget.left <= 0) return ELIDED;
  budget.left -= 2;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const v of value) {
      if (budget.left <= 0) {
        out.push(ELIDED);
        break;
      }
      out.push(echoed(v, budget, depth + 1));
    }
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (budget.left <= 0) {
      out[ELIDED] = ELIDED;
      break;
    }
    budget.left -= k.length + 4;
    out[k] = isSecretName(k) && v !== undefined ? MASK : echoed(v, budget, depth + 1);
  }
  return out;
};

/**
 * The entry as the caller sees it: a value at a secret member's place masked, the rest echoed within
 * ECHO_BUDGET. Every 422 entry with an `input` goes through it, whoever made the entry.
 */
export const withEchoedInput = (entry: ValidationError): ValidationError => {
  if (!('input' in entry)) return entry;
  const last = entry.loc[entry.loc.length - 1];
  const input =
    entry.type !== 'missing' && last !== undefined && isSecretName(last) ? MASK : echoed(entry.input, { left: ECHO_BUDGET }, 0);
  return { ...entry, input };
};

const startsWith = (loc: ReadonlyArray<string | number>, prefix: ReadonlyArray<string | number>): boolean =>
  prefix.length <= loc.length && prefix.every((k, i) => loc[i] === k);

/**
 * io-ts decode errors → the spec's `detail[]`.
 * - `loc` starts with `where`; union/intersection branch numbers are left out; array indexes are
 *   numbers; member names are strings.
 * - `missing` ("Field required") when the member is absent from its object; `input` is then the
 *   object, as pydantic reports it. Otherwise `input` is the offending value.
 * - One entry per `loc`, in the order found: when union branches fail at the same place, the most
 *   specific complaint wins (`missing`, then the codec's own, and a `null` branch's "Input should be
 *   None" only when nothing else explains the failure at or below that place).
 * - `input` never shows a secret (a password, a token, an API key): those values are masked.
 */
export const reportValidationErrors = (errors: t.Errors, where: Where): ValidationError[] => {
  // Codecs gather at most MAX_DECODE_ERRORS (unions one set per branch): the report keeps to it as well.
  const all = errors.map((e) => locate(e, where));
  const meaningful = all.filter((a) => a.rank < 2 || !all.some((b) => b !== a && b.rank < 2 && startsWith(b.loc, a.loc)));
  const byLoc = new Map<string, Located>();
  for (const located of meaningful) {
    const key = JSON.stringify(located.loc);
    const seen = byLoc.get(key);
    if (!seen || located.rank < seen.rank) byLoc.set(key, located);
  }
  return [...byLoc.values()].slice(0, MAX_DECODE_ERRORS).map(({ rank: _rank, ...entry }) => withEchoedInput(entry));
};
