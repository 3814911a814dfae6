// Primitive codecs of the wire format. Each failure carries a pydantic-style error type and sentence
// (see `fail` in validation-error.ts: the failure message is the JSON of {type, msg, ctx}).
import * as E from 'fp-ts/Either';
import { holdsLoneSurrogate, longerThan, shorterThan } from '@tracelight/domain';
import * as t from 'io-ts';
import { type DateTimeParse, parseDateTime } from './date-time';
import { describeCodec, type JsonSchema } from './json-schema';
import { type FailureInfo, MAX_DECODE_ERRORS, fail, valueErrorInfo } from './validation-error';

// ---------------------------------------------------------------------------------------------
// UUID

const HEX = /^[0-9a-fA-F]$/;
const HYPHENATED = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const SIMPLE = /^[0-9a-fA-F]{32}$/;
const utf8Length = (s: string): number => Buffer.byteLength(s, 'utf8');

/**
 * Why a string is not a UUID, worded as the Rust `uuid` crate (and so pydantic) words it: the
 * first bad character (1-based byte position), else the group count, a group's length, or the
 * length of the simple form.
 */
const uuidError = (input: string): string => {
  const [inner, offset, simple] = input.startsWith('{') && input.endsWith('}') && input.length >= 2
    ? [input.slice(1, -1), 1, false]
    : input.startsWith('urn:uuid:')
      ? [input.slice('urn:uuid:'.length), 'urn:uuid:'.length, false]
      : [input, 0, true];
  let hyphens = 0;
  const bounds: number[] = [];
  let index = 0;
  for (const ch of inner) {
    if (ch === '-') {
      if (hyphens < 4) bounds.push(index);
      hyphens++;
    } else if (!HEX.test(ch)) {
      return `invalid character: expected an optional prefix of \`urn:uuid:\` followed by [0-9a-fA-F-], found \`${ch}\` at ${index + offset + 1}`;
    }
    index += utf8Length(ch);
  }
  if (hyphens === 0 && simple) return `invalid length: expected length 32 for simple format, found ${utf8Length(input)}`;
  if (hyphens !== 4) return `invalid group count: expected 5, found ${hyphens + 1}`;
  const starts = [0, 9, 14, 19, 24];
  const expected = [8, 4, 4, 4, 12];
  for (let g = 0; g < 4; g++) {
    if (bounds[g] !== starts[g + 1]! - 1)
      return `invalid group length in group ${g}: expected ${expected[g]}, found ${bounds[g]! - starts[g]!}`;
  }
  return `invalid group length in group 4: expected 12, found ${utf8Length(inner) - 24}`;
};

/** The canonical lower-case hyphenated form, or undefined when `s` is not a UUID. */
const parseUuid = (s: string): string | undefined => {
  const body =
    s.length === 38 && s.startsWith('{') && s.endsWith('}')
      ? s.slice(1, -1)
      : s.length === 45 && s.startsWith('urn:uuid:')
        ? s.slice(9)
        : s;
  if (HYPHENATED.test(body)) return body.toLowerCase();
  if (body === s && SIMPLE.test(s)) {
    const h = s.toLowerCase();
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
  return undefined;
};

/**
 * A UUID of any version, in the forms pydantic accepts (hyphenated, 32 hex digits, `{…}`,
 * `urn:uuid:…`; either case). Decodes to the canonical lower-case hyphenated form.
 * Not a string: `uuid_type`; a bad string: `uuid_parsing` with the reason in `ctx.error`.
 */
export const UuidString = describeCodec(new t.Type<string, string, unknown>(
  'UuidString',
  (u): u is string => typeof u === 'string' && parseUuid(u) === u,
  (u, c) => {
    if (typeof u !== 'string') return fail(u, c, { type: 'uuid_type', msg: 'UUID input should be a string, bytes or UUID object' });
    const uuid = parseUuid(u);
    if (uuid !== undefined) return t.success(uuid);
    const error = uuidError(u);
    return fail(u, c, { type: 'uuid_parsing', msg: `Input should be a valid UUID, ${error}`, ctx: { error } });
  },
  t.identity,
), { type: 'string', format: 'uuid' });

// ---------------------------------------------------------------------------------------------
// Date-time

/**
 * An ISO 8601 date-time that says where it is (`Z` or an offset), as pydantic's `AwareDatetime`.
 * Decodes to a Date; encodes to UTC ISO with milliseconds (`2026-01-02T03:04:05.000Z`).
 * Not a string: `datetime_type` (unix timestamps are not accepted); unparsable: `datetime_parsing`
 * with the parser's reason in `ctx.error`; a date-time or bare date without offset: `timezone_aware`.
 */
/** An aware date-time, parsed, or the validation failure (the checks DateTimeWithOffset documents). */
const awareDateTime = (u: unknown, c: t.Context): t.Validation<DateTimeParse & { readonly ok: true }> => {
  if (typeof u !== 'string') return fail(u, c, { type: 'datetime_type', msg: 'Input should be a valid datetime' });
  const parsed = parseDateTime(u);
  if (!parsed.ok)
    return fail(u, c, { type: 'datetime_parsing', msg: `Input should be a valid datetime, ${parsed.error}`, ctx: { error: parsed.error } });
  if (!parsed.aware) return fail(u, c, { type: 'timezone_aware', msg: 'Input should have timezone info' });
  // Stored and answered in UTC: a time whose UTC year leaves 1..9999 would come back in a form
  // (`+010000-…`) that is no ISO 8601 date-time, nor accepted here.
  const year = parsed.date.getUTCFullYear();
  if (year < 1 || year > 9999) {
    const error = 'year out of range once in UTC (1 to 9999)';
    return fail(u, c, { type: 'datetime_parsing', msg: `Input should be a valid datetime, ${error}`, ctx: { error } });
  }
  return t.success(parsed);
};

export const DateTimeWithOffset = describeCodec(new t.Type<Date, string, unknown>(
  'DateTimeWithOffset',
  (u): u is Date => u instanceof Date,
  (u, c) => {
    const parsed = awareDateTime(u, c);
    return parsed._tag === 'Left' ? parsed : t.success(parsed.right.date);
  },
  (d) => d.toISOString(),
), { type: 'string', format: 'date-time' });

/** A time to the microsecond: `at` to the millisecond, `micros` the microseconds past it (0 to 999). */
export interface PreciseTime {
  readonly at: Date;
  readonly micros: number;
}

/** A time as ISO 8601 in UTC: six fraction digits when it has microseconds, else three (as toISOString). */
export const preciseIso = (at: Date, micros: number): string =>
  micros === 0 ? at.toISOString() : `${at.toISOString().slice(0, -1)}${String(micros).padStart(3, '0')}Z`;

/**
 * DateTimeWithOffset to the microsecond (a record's time: the origin's SDKs send microseconds, and a
 * trace's children are ordered by them). Digits past the sixth are truncated.
 */
export const PreciseDateTimeWithOffset = describeCodec(new t.Type<PreciseTime, string, unknown>(
  'PreciseDateTimeWithOffset',
  (u): u is PreciseTime => typeof u === 'object' && u !== null && (u as { at?: unknown }).at instanceof Date,
  (u, c) => {
    const parsed = awareDateTime(u, c);
    return parsed._tag === 'Left' ? parsed : t.success({ at: parsed.right.date, micros: parsed.right.micros });
  },
  (p) => preciseIso(p.at, p.micros),
), { type: 'string', format: 'date-time' });

// ---------------------------------------------------------------------------------------------
// Booleans

const TRUE = new Set(['true', '1', 'yes', 'on', 't', 'y']);
const FALSE = new Set(['false', '0', 'no', 'off', 'f', 'n']);

/**
 * A boolean as FastAPI reads JSON bodies by default (pydantic's lax mode): true/false, 0/1, and
 * the strings true/false, yes/no, on/off, t/f, y/n, 1/0 in any case. A string or number it cannot
 * read: `bool_parsing`; any other type: `bool_type`.
 */
export const Bool = describeCodec(new t.Type<boolean, boolean, unknown>(
  'Bool',
  (u): u is boolean => typeof u === 'boolean',
  (u, c) => {
    if (typeof u === 'boolean') return t.success(u);
    if (u === 0 || u === 1) return t.success(u === 1);
    if (typeof u === 'string') {
      const s = u.trim().toLowerCase();
      if (TRUE.has(s)) return t.success(true);
      if (FALSE.has(s)) return t.success(false);
    }
    if (typeof u === 'string' || typeof u === 'number')
      return fail(u, c, { type: 'bool_parsing', msg: 'Input should be a valid boolean, unable to interpret input' });
    return fail(u, c, { type: 'bool_type', msg: 'Input should be a valid boolean' });
  },
  t.identity,
), { type: 'boolean' });

/** Only JSON true/false (pydantic's strict mode): anything else is `bool_type`. */
export const StrictBoolean = describeCodec(new t.Type<boolean, boolean, unknown>(
  'StrictBoolean',
  (u): u is boolean => typeof u === 'boolean',
  (u, c) => (typeof u === 'boolean' ? t.success(u) : fail(u, c, { type: 'bool_type', msg: 'Input should be a valid boolean' })),
  t.identity,
), { type: 'boolean' });

// ---------------------------------------------------------------------------------------------
// Strings

export interface StrOptions {
  readonly min?: number;
  readonly max?: number;
  readonly pattern?: RegExp;
  readonly name?: string;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;


/**
 * A string (numbers are not coerced): `string_type`; then `string_too_short` / `string_too_long`
 * (ctx min_length / max_length) and `string_pattern_mismatch` (ctx pattern), in that order.
 */
export const Str = (opts: StrOptions = {}) =>
  describeCodec(new t.Type<string, string, unknown>(
    opts.name ?? 'Str',
    (u): u is string => typeof u === 'string',
    (u, c) => {
      if (typeof u !== 'string') return fail(u, c, { type: 'string_type', msg: 'Input should be a valid string' });
      if (opts.min !== undefined && shorterThan(u, opts.min))
        return fail(u, c, { type: 'string_too_short', msg: `String should have at least ${plural(opts.min, 'character')}`, ctx: { min_length: opts.min } });
      if (opts.max !== undefined && longerThan(u, opts.max))
        return fail(u, c, { type: 'string_too_long', msg: `String should have at most ${plural(opts.max, 'character')}`, ctx: { max_length: opts.max } });
      if (opts.pattern && !opts.pattern.test(u))
        return fail(u, c, { type: 'string_pattern_mismatch', msg: `String should match pattern '${opts.pattern.source}'`, ctx: { pattern: opts.pattern.source } });
      return t.success(u);
    },
    t.identity,
  ), {
    type: 'string',
    ...(opts.min !== undefined ? { minLength: opts.min } : {}),
    ...(opts.max !== undefined ? { maxLength: opts.max } : {}),
    ...(opts.pattern ? { pattern: opts.pattern.source } : {}),
  });

/** A string of at least one character: `string_type`, `string_too_short`. */
export const NonEmptyString = Str({ min: 1, name: 'NonEmptyString' });

/**
 * The name of a project, run or scorer: 1 to 255 characters, none of them a control character, a line
 * or paragraph separator, or half of a surrogate pair. Names are labels and keys (a scorer's name is
 * its metric column's id); an unpaired surrogate cannot be stored as UTF-8 and would come back as
 * U+FFFD, making distinct names equal.
 */
export const Name = Str({ min: 1, max: 255, pattern: /^[^\p{Cc}\p{Cs}\u2028\u2029]*$/u, name: 'Name' });

const STRING_UNICODE: FailureInfo = {
  type: 'string_unicode',
  msg: 'Input should be a valid string, unable to parse raw data as a unicode string: it holds half of a surrogate pair',
};

/**
 * A string as {@link Str} takes it that holds no half of a surrogate pair (`string_unicode`, before the
 * other checks, as pydantic parses a string first): for text stored as text, or as a name, a label or a
 * key that is compared and searched. Stored as UTF-8 (MongoDB's BSON, SQLite's text columns), half of a
 * pair does not come back as sent (U+FFFD on one, three of them on the other), and the engines compare
 * it differently, so a filter would find different records on each. Text kept inside JSON (an input,
 * metadata, a scorer's prompt) is stored as JSON text on both, escaped, and needs no such rule.
 */
export const Utf8Str = (opts: StrOptions = {}) => {
  const str = Str(opts);
  return describeCodec(new t.Type<string, string, unknown>(
    opts.name ?? 'Utf8Text',
    (u): u is string => str.is(u) && !holdsLoneSurrogate(u),
    (u, c) => (typeof u === 'string' && holdsLoneSurrogate(u) ? fail(u, c, STRING_UNICODE) : str.validate(u, c)),
    t.identity,
  ), (toSchema) => toSchema(str));
};

/**
 * Text stored as text (a record's name, messages, dataset fields, tags, typed attributes): any string
 * but one holding half of a surrogate pair (`string_unicode`, Utf8Str), where the same string inside an
 * input or metadata (kept as JSON, escaped) comes back as sent.
 */
export const Utf8Text = Utf8Str({ name: 'Utf8Text' });

/**
 * Any value, kept as JSON text (escaped, so any string inside it comes back as sent), but a string that
 * is the value itself, stored and searched as text, is Utf8Text: a record's `tools`, a typed attribute.
 */
export const JsonOrUtf8Text = describeCodec(new t.Type<unknown, unknown, unknown>(
  'JsonOrUtf8Text',
  (u): u is unknown => typeof u !== 'string' || Utf8Text.is(u),
  (u, c) => (typeof u === 'string' ? Utf8Text.validate(u, c) : t.success(u)),
  t.identity,
), {});

/** A string query parameter (the last one when repeated). */
export const StrQuery = describeCodec(new t.Type<string, string, unknown>(
  'StrQuery',
  (u): u is string => typeof u === 'string',
  (u, c) => {
    const s = Array.isArray(u) ? u[u.length - 1] : u;
    return typeof s === 'string' ? t.success(s) : fail(u, c, { type: 'string_type', msg: 'Input should be a valid string' });
  },
  t.identity,
), { type: 'string' });

// ---------------------------------------------------------------------------------------------
// Integers

export interface Bounds {
  readonly min?: number;
  readonly max?: number;
}

const INT_TEXT = /^\s*[-+]?\d+\s*$/;
const INT_PARSING: FailureInfo = { type: 'int_parsing', msg: 'Input should be a valid integer, unable to parse string as an integer' };
const TOO_BIG: FailureInfo = { type: 'int_parsing_size', msg: 'Unable to parse input string as an integer, exceeded maximum size' };

const bounded = (n: number, u: unknown, c: t.Context, opts: Bounds): t.Validation<number> => {
  if (opts.min !== undefined && n < opts.min)
    return fail(u, c, { type: 'greater_than_equal', msg: `Input should be greater than or equal to ${opts.min}`, ctx: { ge: opts.min } });
  if (opts.max !== undefined && n > opts.max)
    return fail(u, c, { type: 'less_than_equal', msg: `Input should be less than or equal to ${opts.max}`, ctx: { le: opts.max } });
  return t.success(n);
};

const boundsSchema = (opts: Bounds): JsonSchema => ({
  type: 'integer',
  ...(opts.min !== undefined ? { minimum: opts.min } : {}),
  ...(opts.max !== undefined ? { maximum: opts.max } : {}),
});

/**
 * An integer in a JSON body, optionally bounded. Like pydantic's lax mode, integral floats (`2.0`)
 * and numeric strings (`"2"`) are accepted. Codes: `int_type`, `int_parsing`, `int_from_float`,
 * `int_parsing_size` (beyond ±2^53, which JavaScript cannot hold exactly), `greater_than_equal`
 * (ctx ge), `less_than_equal` (ctx le).
 */
export const Int = (opts: Bounds = {}) =>
  describeCodec(new t.Type<number, number, unknown>(
    'Int',
    (u): u is number => Number.isInteger(u),
    (u, c) => {
      let n: number;
      if (typeof u === 'number') {
        if (!Number.isFinite(u)) return fail(u, c, { type: 'finite_number', msg: 'Input should be a finite number' });
        if (!Number.isInteger(u))
          return fail(u, c, { type: 'int_from_float', msg: 'Input should be a valid integer, got a number with a fractional part' });
        n = u;
      } else if (typeof u === 'string') {
        if (!INT_TEXT.test(u)) return fail(u, c, INT_PARSING);
        n = Number(u);
      } else {
        return fail(u, c, { type: 'int_type', msg: 'Input should be a valid integer' });
      }
      if (!Number.isSafeInteger(n)) return fail(u, c, TOO_BIG);
      return bounded(n, u, c, opts);
    },
    t.identity,
  ), boundsSchema(opts));

const FLOAT_TEXT = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

/**
 * A number in a JSON body, optionally bounded. As pydantic's lax float, numeric strings (`"0.5"`) are
 * accepted. Codes: `float_type`, `float_parsing`, `finite_number`, `greater_than_equal`, `less_than_equal`.
 */
export const Float = (opts: Bounds = {}) =>
  describeCodec(new t.Type<number, number, unknown>(
    'Float',
    (u): u is number => typeof u === 'number' && Number.isFinite(u),
    (u, c) => {
      let n: number;
      if (typeof u === 'number') n = u;
      else if (typeof u === 'string' && FLOAT_TEXT.test(u)) n = Number(u);
      else if (typeof u === 'string') return fail(u, c, { type: 'float_parsing', msg: 'Input should be a valid number, unable to parse string as a number' });
      else return fail(u, c, { type: 'float_type', msg: 'Input should be a valid number' });
      if (!Number.isFinite(n)) return fail(u, c, { type: 'finite_number', msg: 'Input should be a finite number' });
      return bounded(n, u, c, opts);
    },
    t.identity,
  ), { ...boundsSchema(opts), type: 'number' });

/**
 * An integer query parameter: absent gives the default; the last value wins when repeated; the
 * text must be an integer (`int_parsing`, input the text), then within bounds
 * (`greater_than_equal` / `less_than_equal`, input the text, as pydantic reports it).
 */
export const IntFromQuery = (opts: Bounds & { readonly default: number }) =>
  describeCodec(new t.Type<number, string, unknown>(
    'IntFromQuery',
    (u): u is number => Number.isInteger(u),
    (u, c) => {
      if (u === undefined) return t.success(opts.default);
      const s: unknown = Array.isArray(u) ? u[u.length - 1] : u;
      if (typeof s !== 'string') return fail(s, c, { type: 'int_type', msg: 'Input should be a valid integer' });
      if (!INT_TEXT.test(s)) return fail(s, c, INT_PARSING);
      const n = Number(s);
      if (!Number.isSafeInteger(n)) return fail(s, c, TOO_BIG);
      return bounded(n, s, c, opts);
    },
    String,
  ), { ...boundsSchema(opts), default: opts.default });

// ---------------------------------------------------------------------------------------------
// URLs

const URL_MAX = 2083;
const urlParsing = (u: string, c: t.Context, error: string) =>
  fail(u, c, { type: 'url_parsing', msg: `Input should be a valid URL, ${error}`, ctx: { error } });

/** Why WHATWG refused a URL, in the words of the Rust `url` crate that pydantic uses. */
const urlError = (u: string): string => {
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(u);
  if (!scheme) return 'relative URL without a base';
  const rest = u.slice(scheme[0].length).replace(/^\/+/, '');
  const authority = rest.split(/[/?#]/, 1)[0] ?? '';
  const host = authority.replace(/^.*@/, '');
  if (host === '' || host.startsWith(':')) return 'empty host';
  const port = /:(\d*)$/.exec(host.replace(/^\[.*\]/, ''));
  if (/:(?!\d{0,5}$)/.test(host.replace(/^\[.*\]/, '')) || (port !== null && Number(port[1]) > 65535)) return 'invalid port number';
  if (host.startsWith('[')) return 'invalid IPv6 address';
  return 'invalid domain character';
};

/**
 * An absolute http(s) URL, as pydantic's `HttpUrl` (at most 2083 characters, a host required), with no
 * credentials in it (`user:password@`: `value_error`). Kept as sent. Codes: `url_type`, `url_parsing` (ctx error), `url_scheme` (ctx expected_schemes),
 * `url_too_long` (ctx max_length).
 */
export const HttpUrl = describeCodec(new t.Type<string, string, unknown>(
  'HttpUrl',
  (u): u is string => typeof u === 'string',
  (u, c) => {
    if (typeof u !== 'string') return fail(u, c, { type: 'url_type', msg: 'URL input should be a string or URL' });
    if (u.length === 0) return urlParsing(u, c, 'input is empty');
    // The WHATWG parser drops spaces and control characters at either end, and tabs and line breaks
    // anywhere, and percent-encodes the rest: the URL stored and answered would not be the one it read.
    if (/[\u0000-\u0020\u007f]/.test(u)) return urlParsing(u, c, 'invalid character: spaces and control characters are not part of a URL (write a space as %20)');
    // Half of a surrogate pair is percent-encoded as U+FFFD's bytes by the parser (another URL than the
    // one stored), and stored as UTF-8 it would come back changed.
    if (holdsLoneSurrogate(u)) return urlParsing(u, c, 'invalid character: half of a surrogate pair (an emoji cut in two) is not part of a URL');
    if (u.length > URL_MAX)
      return fail(u, c, { type: 'url_too_long', msg: `URL should have at most ${URL_MAX} characters`, ctx: { max_length: URL_MAX } });
    let url: URL;
    try {
      url = new URL(u);
    } catch {
      return urlParsing(u, c, urlError(u));
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      return fail(u, c, { type: 'url_scheme', msg: "URL scheme should be 'http' or 'https'", ctx: { expected_schemes: "'http' or 'https'" } });
    if (!url.hostname) return urlParsing(u, c, 'empty host');
    // Written as parsers other than WHATWG's read it too (as the schema's pattern says): `//` and the
    // host right after the scheme, and no backslash. WHATWG reads `https:///relay`, `https:host/r` and
    // `https:\\host\\r` as https://relay/ and so on, but the URL is kept as sent, and the gateway's
    // client may read it otherwise.
    if (!/^https?:\/\/[^/\\?#]/i.test(u) || u.includes('\\'))
      return urlParsing(u, c, 'expected the scheme, then // and the host (https://host/path), and no backslash');
    // A credential in the URL would be stored and answered in clear, where the token is sealed and never
    // shown; the refusal echoes the URL with it masked.
    // An `@` in the authority as written is userinfo, even empty (`https://@host`, `https://:@host`), which
    // WHATWG drops and other parsers keep.
    if (url.username !== '' || url.password !== '' || /^[^/?#]*@/.test(u.slice(u.indexOf('//') + 2))) {
      const masked = `${url.protocol}//**********@${url.host}${url.pathname}${url.search}${url.hash}`;
      return fail(masked, c, { type: 'value_error', msg: 'Value error, a URL must not carry credentials (user:password@): a credential goes in its own field' });
    }
    return t.success(u);
  },
  t.identity,
), { type: 'string', format: 'uri', minLength: 1, maxLength: URL_MAX, pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^@/?#\\\\\\x00-\\x20\\x7f]+(?:[/?#][^\\\\\\x00-\\x20\\x7f]*)?$' });

// ---------------------------------------------------------------------------------------------
// Enumerations, nullability, JSON objects

/** pydantic's way of listing alternatives: `'a', 'b' or 'c'`. */
export const expectedList = (values: ReadonlyArray<string>): string =>
  values.length <= 1 ? `'${values[0] ?? ''}'` : `${values.slice(0, -1).map((v) => `'${v}'`).join(', ')} or '${values[values.length - 1]}'`;

/** One of a closed set of strings: else `enum`, with the alternatives in `ctx.expected`. */
export const Enum = <T extends string>(values: ReadonlyArray<T>, name = 'Enum') => {
  const expected = expectedList(values);
  const allowed = new Set<string>(values);
  return describeCodec(new t.Type<T, T, unknown>(
    name,
    (u): u is T => typeof u === 'string' && allowed.has(u),
    (u, c) =>
      typeof u === 'string' && allowed.has(u) ? t.success(u as T) : fail(u, c, { type: 'enum', msg: `Input should be ${expected}`, ctx: { expected } }),
    t.identity,
  ), { type: 'string', enum: [...values] });
};

/**
 * `codec` or null. The reporter drops the null branch's complaint when the other branch said why,
 * so a bad value gets one entry, from `codec`.
 */
export const Nullable = <C extends t.Mixed>(codec: C) => t.union([codec, t.null], `${codec.name} | null`);

/** A JSON object with any members (`dict_type` otherwise). */
export const JsonObject = t.record(t.string, t.unknown, 'JsonObject');

// ---------------------------------------------------------------------------------------------
// Objects

type Props = Record<string, t.Mixed>;
type Defaults<O extends Props> = { readonly [K in keyof O]?: t.TypeOf<O[K]> };

/** Required members, then optional members (present only when given), then defaulted members. */
export type ObjOf<R extends Props, O extends Props, D extends Defaults<O> = {}> = { [K in keyof R]: t.TypeOf<R[K]> } & {
  [K in Exclude<keyof O, keyof D>]?: t.TypeOf<O[K]>;
} & { [K in keyof O & keyof D]: t.TypeOf<O[K]> };

/** An object codec built by {@link Obj}: `props` lets the OpenAPI generator list its members. */
export interface ObjCodec<A> extends t.Type<A, unknown, unknown> {
  readonly props: Props;
  readonly requiredKeys: ReadonlyArray<string>;
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u);

const MODEL_TYPE: FailureInfo = { type: 'model_attributes_type', msg: 'Input should be a valid dictionary or object to extract fields from' };

/**
 * An object with required and optional members. Unknown keys are dropped (tolerated, never
 * rejected, as `t.exact` does). A required member that is absent is reported as `missing` by the
 * reporter; an optional member that is absent stays absent, or takes its value from `defaults`.
 * One pass over the declared members: io-ts's exact(intersection(type, partial)) does the same in
 * three, and this codec validates every span of every ingest request.
 */
/**
 * A codec whose decoding gives back its input unchanged when its type guard holds (io-ts' own
 * primitives, and unions and arrays of them). For these, Obj checks `is` first and builds the error
 * context only when the value fails: on a 500-span ingest that saves thousands of allocations.
 */
const decodesToItself = (c: t.Mixed): boolean => {
  switch ((c as { readonly _tag?: string })._tag) {
    case 'StringType':
    case 'NumberType':
    case 'BooleanType':
    case 'NullType':
    case 'UnknownType':
      return true;
    case 'UnionType':
      return (c as t.UnionType<t.Mixed[]>).types.every(decodesToItself);
    case 'ArrayType':
      return decodesToItself((c as t.ArrayType<t.Mixed>).type);
    default:
      return false;
  }
};

export const Obj = <R extends Props, O extends Props = {}, D extends Defaults<O> = {}>(
  name: string,
  required: R,
  optional?: O,
  defaults?: D,
): ObjCodec<ObjOf<R, O, D>> => {
  const req = Object.entries(required);
  const opt = Object.entries(optional ?? {}).map(([key, member]) => [key, member, decodesToItself(member)] as const);
  const dflt = Object.entries(defaults ?? {}) as Array<[string, unknown]>;
  const codec = new t.Type<ObjOf<R, O, D>, unknown, unknown>(
    name,
    (u): u is ObjOf<R, O, D> => isRecord(u),
    (u, c) => {
      if (!isRecord(u)) return fail(u, c, MODEL_TYPE);
      const out: Record<string, unknown> = {};
      const errors: t.ValidationError[] = [];
      for (const [key, member] of req) {
        if (errors.length >= MAX_DECODE_ERRORS) break;
        const r = member.validate(u[key], [...c, { key, type: member, actual: u[key] }]);
        if (r._tag === 'Left') gather(errors, r.left);
        else out[key] = r.right;
      }
      for (const [key, member, itself] of opt) {
        if (errors.length >= MAX_DECODE_ERRORS) break;
        const v = u[key];
        if (v === undefined) continue;
        if (itself && member.is(v)) {
          out[key] = v;
          continue;
        }
        const r = member.validate(v, [...c, { key, type: member, actual: v }]);
        if (r._tag === 'Left') gather(errors, r.left);
        else out[key] = r.right;
      }
      if (errors.length > 0) return t.failures(errors);
      // Defaults are copied so that a decoded value never shares a mutable default with another.
      for (const [key, value] of dflt) if (!(key in out)) out[key] = Array.isArray(value) ? [...value] : value;
      return t.success(out as ObjOf<R, O, D>);
    },
    (a) => a,
  );
  const fullCodec = Object.assign(codec, {
    props: { ...required, ...(optional ?? {}) } as Props,
    requiredKeys: req.map(([k]) => k),
  });
  const defaultOf = new Map(dflt);
  return describeCodec(fullCodec, (toSchema) => ({
    type: 'object',
    properties: Object.fromEntries(
      [...req, ...opt.map(([k, v]) => [k, v] as const)].map(([k, v]) => [k, defaultOf.has(k) ? { ...toSchema(v), default: defaultOf.get(k) } : toSchema(v)]),
    ),
    ...(req.length > 0 ? { required: req.map(([k]) => k) } : {}),
  }));
};

/**
 * A rule across members, checked after the members decoded (as a pydantic `model_validator(mode=
 * 'after')`): `check` returns why the value is refused, or undefined. The failure is reported at
 * the object itself, with the object as sent as `input`. `rule`, the rule in words, becomes the
 * schema's `description` where JSON Schema cannot say the rule itself.
 */
export const Checked = <A, O>(
  codec: t.Type<A, O, unknown>,
  check: (value: A, input: unknown) => FailureInfo | undefined,
  name: string = codec.name,
  rule?: string,
): t.Type<A, O, unknown> & { readonly props?: Props } => {
  const checked = new t.Type<A, O, unknown>(
    name,
    codec.is,
    (u, c) =>
      E.chain((a: A) => {
        const why = check(a, u);
        return why ? fail(u, c, why) : t.success(a);
      })(codec.validate(u, c)),
    codec.encode,
  );
  const props = (codec as { props?: Props }).props;
  return describeCodec(props ? Object.assign(checked, { props }) : checked, (toSchema) =>
    rule === undefined ? toSchema(codec) : { ...toSchema(codec), description: rule },
  );
};

/** Decodes with `codec`, then reshapes the value (the failure path is untouched). */
export const Mapped = <A, B, O>(codec: t.Type<A, O, unknown>, f: (a: A) => B, name: string = codec.name): t.Type<B, unknown, unknown> =>
  describeCodec(
    new t.Type<B, unknown, unknown>(name, (u): u is B => codec.is(u), (u, c) => E.map(f)(codec.validate(u, c)), (b) => b),
    (toSchema) => toSchema(codec),
  );


// ---------------------------------------------------------------------------------------------
// Bounded error gathering

/** Adds errors one at a time (a spread of a million arguments overflows the stack), up to MAX_DECODE_ERRORS. */
const gather = (errors: t.ValidationError[], more: t.Errors): void => {
  for (const e of more) {
    if (errors.length >= MAX_DECODE_ERRORS) return;
    errors.push(e);
  }
};

/** `t.array` (the same ArrayType, for documentation and reporting) that stops at MAX_DECODE_ERRORS errors. */
export const Arr = <C extends t.Mixed>(item: C, name?: string): t.ArrayType<C, Array<t.TypeOf<C>>, Array<t.OutputOf<C>>, unknown> => {
  const array = t.array(item, name);
  return new t.ArrayType(
    array.name,
    array.is,
    (u, c) => {
      if (!Array.isArray(u)) return array.validate(u, c);
      const errors: t.ValidationError[] = [];
      let out: unknown[] = u;
      for (let i = 0; i < u.length && errors.length < MAX_DECODE_ERRORS; i++) {
        const r = item.validate(u[i], t.appendContext(c, String(i), item, u[i]));
        if (r._tag === 'Left') gather(errors, r.left);
        else if (r.right !== u[i]) {
          if (out === u) out = u.slice();
          out[i] = r.right;
        }
      }
      return errors.length > 0 ? t.failures(errors) : t.success(out as Array<t.TypeOf<C>>);
    },
    array.encode,
    item,
  );
};

/** `t.record` of string keys (the same DictionaryType) that stops at MAX_DECODE_ERRORS errors; `keyCodec`, when given, validates each key. */
export const Rec = <C extends t.Mixed>(value: C, keyCodec?: t.Decoder<unknown, string>): t.RecordC<t.StringC, C> => {
  const record = t.record(t.string, value);
  return new t.DictionaryType(
    record.name,
    record.is,
    (u, c) => {
      if (!isRecord(u)) return record.validate(u, c);
      const errors: t.ValidationError[] = [];
      // As io-ts does: the input itself unless a value decodes to another, then a copy.
      let out: Record<string, unknown> = u;
      for (const key of Object.keys(u)) {
        if (errors.length >= MAX_DECODE_ERRORS) break;
        // A refused key is reported at `[…, key, '[key]']`, as pydantic reports a dict's keys: under the
        // key codec, not the value's, whose union branches the reporter passes over.
        const k = keyCodec?.validate(key, t.appendContext(t.appendContext(c, key, keyCodec, u[key]), '[key]', keyCodec, key));
        if (k?._tag === 'Left') {
          gather(errors, k.left);
          continue;
        }
        const r = value.validate(u[key], t.appendContext(c, key, value, u[key]));
        if (r._tag === 'Left') gather(errors, r.left);
        else if (r.right !== u[key]) {
          if (out === u) out = { ...u };
          out[key] = r.right;
        }
      }
      return errors.length > 0 ? t.failures(errors) : t.success(out as Record<string, t.TypeOf<C>>);
    },
    record.encode,
    t.string,
    value,
  ) as unknown as t.RecordC<t.StringC, C>;
};

/**
 * A list of at most `max` items: `too_long` (ctx max_length, actual_length) before any item is looked
 * at, so an oversized list costs nothing to refuse; then each item as `t.array` validates it.
 */
export const List = <C extends t.Mixed>(item: C, opts: { readonly max: number; readonly name?: string }) => {
  const array = Arr(item);
  return describeCodec(new t.Type<Array<t.TypeOf<C>>, Array<t.OutputOf<C>>, unknown>(
    opts.name ?? `List<${item.name}>`,
    array.is,
    (u, c) =>
      Array.isArray(u) && u.length > opts.max
        ? fail(u, c, {
            type: 'too_long',
            msg: `List should have at most ${plural(opts.max, 'item')} after validation, not ${u.length}`,
            ctx: { field_type: 'List', max_length: opts.max, actual_length: u.length },
          })
        : array.validate(u, t.appendContext(c, '', array, u)),
    array.encode,
  ), (toSchema) => ({ type: 'array', items: toSchema(item), maxItems: opts.max }));
};

/**
 * One item, or a list of at most `max`: decided by the input's shape, so a list is reported as a list
 * (`too_long`, an item's own error) and anything else as the item would be.
 */
export const OneOrList = <C extends t.Mixed>(item: C, opts: { readonly max: number; readonly name?: string }) => {
  const list = List(item, opts);
  return describeCodec(new t.Type<t.TypeOf<C> | Array<t.TypeOf<C>>, unknown, unknown>(
    opts.name ?? `OneOrList<${item.name}>`,
    (u): u is t.TypeOf<C> | Array<t.TypeOf<C>> => item.is(u) || list.is(u),
    (u, c) => (Array.isArray(u) ? list.validate(u, t.appendContext(c, '', list, u)) : item.validate(u, t.appendContext(c, '', item, u))),
    t.identity,
  ), (toSchema) => ({ anyOf: [toSchema(item), toSchema(list)] }));
};

// ---------------------------------------------------------------------------------------------
// Response fields: what the document says of them beyond their TypeScript type

/** A codec for an answer's field: its TypeScript type as `is` says, its JSON Schema as given. */
const outField = <A>(name: string, is: (u: unknown) => u is A, schema: JsonSchema) =>
  describeCodec(new t.Type<A, A, unknown>(name, is, (u, c) => (is(u) ? t.success(u) : t.failure(u, c)), t.identity), schema);
const isString = (u: unknown): u is string => typeof u === 'string';

/** An integer in an answer (JSON Schema `integer`; a number to TypeScript). */
export const IntegerOut = outField('IntegerOut', (u): u is number => Number.isInteger(u), { type: 'integer' });
/** A timestamp in an answer: ISO 8601 in UTC (JSON Schema `date-time`; a string to TypeScript). */
export const DateTimeOut = outField('DateTimeOut', isString, { type: 'string', format: 'date-time' });
/** An id in an answer (JSON Schema `uuid`; a string to TypeScript). */
export const UuidOut = outField('UuidOut', isString, { type: 'string', format: 'uuid' });
