import * as E from 'fp-ts/Either';
import * as t from 'io-ts';
import { SchemaBuilder } from './json-schema';
import { decodeAt } from './decode';
import {
  Arr,
  Bool,
  DateTimeWithOffset,
  Enum,
  HttpUrl,
  Int,
  IntFromQuery,
  List,
  Name,
  NonEmptyString,
  Nullable,
  Obj,
  OneOrList,
  Rec,
  Str,
  StrictBoolean,
  UuidString,
  Utf8Str,
  Utf8Text,
} from './primitives.codec';
import { MAX_DECODE_ERRORS, type ValidationError } from './validation-error';

const ok = <A>(codec: t.Decoder<unknown, A>, u: unknown): A => {
  const r = decodeAt(codec, u, 'body');
  if (E.isLeft(r)) throw new Error(`expected success, got ${JSON.stringify(r.left)}`);
  return r.right;
};
const errors = (codec: t.Decoder<unknown, unknown>, u: unknown, where: 'body' | 'query' | 'path' = 'body'): ValidationError[] => {
  const r = decodeAt(codec, u, where);
  if (E.isRight(r)) throw new Error(`expected failure, got ${JSON.stringify(r.right)}`);
  return r.left;
};
/** The one entry for `value` at `{"v": value}`. */
const at = (codec: t.Mixed, value: unknown) => errors(Obj('T', { v: codec }), { v: value });

describe('UuidString', () => {
  const U = '0f8fad5b-d9cb-469f-a165-70867728950e';
  it('accepts the forms pydantic accepts and gives the canonical lower-case form', () => {
    expect(ok(UuidString, U.toUpperCase())).toBe(U);
    expect(ok(UuidString, U.replace(/-/g, ''))).toBe(U);
    expect(ok(UuidString, `{${U}}`)).toBe(U);
    expect(ok(UuidString, `urn:uuid:${U}`)).toBe(U);
    expect(UuidString.is(U)).toBe(true);
    expect(UuidString.is(U.toUpperCase())).toBe(false);
  });

  const parsing = (input: string, error: string): ValidationError[] => [
    { loc: ['body', 'v'], msg: `Input should be a valid UUID, ${error}`, type: 'uuid_parsing', input, ctx: { error } },
  ];
  it.each([
    ['not-a-uuid', 'invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `n` at 1'],
    ['', 'invalid length: expected length 32 for simple format, found 0'],
    ['abc', 'invalid length: expected length 32 for simple format, found 3'],
    ['0f8fad5b-d9cb-469f-a165', 'invalid group count: expected 5, found 4'],
    ['0f8fad5-bd9cb-469f-a165-70867728950e', 'invalid group length in group 0: expected 8, found 7'],
    ['0f8fad5b-d9cb-469f-a165-70867728950e0', 'invalid group length in group 4: expected 12, found 13'],
    [' 0f8fad5b-d9cb-469f-a165-70867728950e', 'invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found ` ` at 1'],
    ['{0f8fad5b-d9cb-469f-a165-7086772895zz}', 'invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `z` at 36'],
  ])('refuses %j: uuid_parsing with the reason', (input, error) => {
    expect(at(UuidString, input)).toEqual(parsing(input, error));
  });

  it('refuses a non-string: uuid_type', () => {
    expect(at(UuidString, 42)).toEqual([{ loc: ['body', 'v'], msg: 'UUID input should be a string, bytes or UUID object', type: 'uuid_type', input: 42 }]);
  });
});

describe('DateTimeWithOffset', () => {
  it.each([
    ['2026-01-02T03:04:05Z', '2026-01-02T03:04:05.000Z'],
    ['2026-01-02T04:04:05+01:00', '2026-01-02T03:04:05.000Z'],
    ['2026-01-01T22:04:05.123456-05:00', '2026-01-02T03:04:05.123Z'],
    ['2026-01-02 03:04:05.1-0000', '2026-01-02T03:04:05.100Z'],
    ['2026-01-02t03:04z', '2026-01-02T03:04:00.000Z'],
    ['2024-02-29T00:00:00+0530', '2024-02-28T18:30:00.000Z'],
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
    ['9999-12-31T23:59:59+01:00', '9999-12-31T22:59:59.000Z'],
  ])('decodes %s to a Date and encodes it in UTC ISO form', (input, iso) => {
    const d = ok(DateTimeWithOffset, input);
    expect(d).toBeInstanceOf(Date);
    expect(DateTimeWithOffset.encode(d)).toBe(iso);
  });

  const parsing = (input: string, error: string): ValidationError[] => [
    { loc: ['body', 'v'], msg: `Input should be a valid datetime, ${error}`, type: 'datetime_parsing', input, ctx: { error } },
  ];
  it.each([
    ['tomorrow', 'input is too short'],
    ['not a date', 'invalid character in year'],
    ['2026/01/02T00:00:00Z', 'invalid date separator, expected `-`'],
    ['2026-13-01T00:00:00Z', 'month value is outside expected range of 1-12'],
    ['2026-02-29T00:00:00Z', 'day value is outside expected range'],
    ['2026-01-02X03:04:05Z', 'invalid datetime separator, expected `T`, `t`, `_` or space'],
    ['2026-01-02T25:00:00Z', 'hour value is outside expected range of 0-23'],
    ['2026-01-02T03:04:05+25:00', 'timezone offset must be less than 24 hours'],
    ['2026-01-02T03:04:05Zjunk', 'unexpected extra characters at the end of the input'],
    // Valid, but outside years 1..9999 once in UTC, where it would be answered as `+010000-…`.
    ['9999-12-31T23:59:59-01:00', 'year out of range once in UTC (1 to 9999)'],
    ['0001-01-01T00:00:00+01:00', 'year out of range once in UTC (1 to 9999)'],
  ])('refuses %j: datetime_parsing with the reason', (input, error) => {
    expect(at(DateTimeWithOffset, input)).toEqual(parsing(input, error));
  });

  it.each(['2026-01-02T03:04:05', '2026-01-02'])('refuses %j, which has no offset: timezone_aware', (input) => {
    expect(at(DateTimeWithOffset, input)).toEqual([{ loc: ['body', 'v'], msg: 'Input should have timezone info', type: 'timezone_aware', input }]);
  });

  it('refuses a number (no unix timestamps): datetime_type', () => {
    expect(at(DateTimeWithOffset, 1767323045)).toEqual([{ loc: ['body', 'v'], msg: 'Input should be a valid datetime', type: 'datetime_type', input: 1767323045 }]);
  });
});

describe('Bool and StrictBoolean', () => {
  it('Bool reads JSON booleans and the words pydantic reads', () => {
    expect([true, false, 1, 0, 'true', 'False', 'yes', 'off', 'y', 'N'].map((v) => ok(Bool, v))).toEqual([
      true, false, true, false, true, false, true, false, true, false,
    ]);
  });
  it('Bool: a string or number it cannot read is bool_parsing, anything else bool_type', () => {
    expect(at(Bool, 'maybe')).toEqual([{ loc: ['body', 'v'], msg: 'Input should be a valid boolean, unable to interpret input', type: 'bool_parsing', input: 'maybe' }]);
    expect(at(Bool, 2)).toEqual([{ loc: ['body', 'v'], msg: 'Input should be a valid boolean, unable to interpret input', type: 'bool_parsing', input: 2 }]);
    expect(at(Bool, null)).toEqual([{ loc: ['body', 'v'], msg: 'Input should be a valid boolean', type: 'bool_type', input: null }]);
  });
  it('StrictBoolean takes only true and false', () => {
    expect(ok(StrictBoolean, false)).toBe(false);
    expect(at(StrictBoolean, 'true')).toEqual([{ loc: ['body', 'v'], msg: 'Input should be a valid boolean', type: 'bool_type', input: 'true' }]);
  });
});

describe('strings', () => {
  it('NonEmptyString: string_type, string_too_short', () => {
    expect(ok(NonEmptyString, 'x')).toBe('x');
    expect(at(NonEmptyString, 5)).toEqual([{ loc: ['body', 'v'], msg: 'Input should be a valid string', type: 'string_type', input: 5 }]);
    expect(at(NonEmptyString, '')).toEqual([
      { loc: ['body', 'v'], msg: 'String should have at least 1 character', type: 'string_too_short', input: '', ctx: { min_length: 1 } },
    ]);
  });
  it('Str: lengths are counted in characters (code points), as pydantic counts, not UTF-16 units', () => {
    const emoji = (n: number) => '😀'.repeat(n);
    expect(ok(Str({ max: 255 }), emoji(255))).toBe(emoji(255));
    expect(at(Str({ max: 255 }), `${emoji(254)}ab`)).toEqual([expect.objectContaining({ type: 'string_too_long' })]);
    expect(at(Str({ max: 255 }), emoji(256))).toEqual([expect.objectContaining({ type: 'string_too_long' })]);
    expect(ok(Str({ max: 3 }), `${emoji(2)}\ud800`)).toBe(`${emoji(2)}\ud800`);
    expect(at(Str({ min: 2 }), emoji(1))).toEqual([expect.objectContaining({ type: 'string_too_short', ctx: { min_length: 2 } })]);
    expect(ok(Str({ min: 2 }), emoji(2))).toBe(emoji(2));
    expect(ok(Str({ min: 2 }), `${emoji(1)}a`)).toBe(`${emoji(1)}a`);
  });
  it('Str: string_too_long, string_pattern_mismatch', () => {
    expect(at(Str({ max: 2 }), 'abc')).toEqual([
      { loc: ['body', 'v'], msg: 'String should have at most 2 characters', type: 'string_too_long', input: 'abc', ctx: { max_length: 2 } },
    ]);
    expect(at(Str({ pattern: /^a+$/ }), 'b')).toEqual([
      { loc: ['body', 'v'], msg: "String should match pattern '^a+$'", type: 'string_pattern_mismatch', input: 'b', ctx: { pattern: '^a+$' } },
    ]);
  });
});

describe('Int', () => {
  it('accepts integers, integral floats and integer strings', () => {
    expect([3, 2.0, '7', ' -4 '].map((v) => ok(Int(), v))).toEqual([3, 2, 7, -4]);
  });
  it.each([
    [2.5, 'int_from_float', 'Input should be a valid integer, got a number with a fractional part'],
    ['x', 'int_parsing', 'Input should be a valid integer, unable to parse string as an integer'],
    ['1.5', 'int_parsing', 'Input should be a valid integer, unable to parse string as an integer'],
    [true, 'int_type', 'Input should be a valid integer'],
    [null, 'int_type', 'Input should be a valid integer'],
    [2 ** 60, 'int_parsing_size', 'Unable to parse input string as an integer, exceeded maximum size'],
  ])('refuses %j: %s', (input, type, msg) => {
    expect(at(Int(), input)).toEqual([{ loc: ['body', 'v'], msg, type, input }]);
  });
  it('bounds: greater_than_equal and less_than_equal with ctx', () => {
    expect(at(Int({ min: 1, max: 10 }), 0)).toEqual([
      { loc: ['body', 'v'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal', input: 0, ctx: { ge: 1 } },
    ]);
    expect(at(Int({ min: 1, max: 10 }), 11)).toEqual([
      { loc: ['body', 'v'], msg: 'Input should be less than or equal to 10', type: 'less_than_equal', input: 11, ctx: { le: 10 } },
    ]);
  });
});

describe('IntFromQuery', () => {
  const Q = Obj('Q', { n: IntFromQuery({ default: 5, min: 0, max: 9 }) });
  it('absent gives the default; the last of repeated values wins', () => {
    expect(ok(Q, {})).toEqual({ n: 5 });
    expect(ok(Q, { n: '3' })).toEqual({ n: 3 });
    expect(ok(Q, { n: ['1', '8'] })).toEqual({ n: 8 });
  });
  it('reports the text as input', () => {
    expect(errors(Q, { n: 'abc' }, 'query')).toEqual([
      { loc: ['query', 'n'], msg: 'Input should be a valid integer, unable to parse string as an integer', type: 'int_parsing', input: 'abc' },
    ]);
    expect(errors(Q, { n: ['1', '10'] }, 'query')).toEqual([
      { loc: ['query', 'n'], msg: 'Input should be less than or equal to 9', type: 'less_than_equal', input: '10', ctx: { le: 9 } },
    ]);
  });
  it('encodes back to text', () => {
    expect(IntFromQuery({ default: 0 }).encode(12)).toBe('12');
  });
});

describe('HttpUrl', () => {
  it('accepts absolute http and https URLs as sent', () => {
    expect(ok(HttpUrl, 'https://gw.example.com/relay')).toBe('https://gw.example.com/relay');
    expect(ok(HttpUrl, 'http://127.0.0.1:8080/x?y=1')).toBe('http://127.0.0.1:8080/x?y=1');
    expect(ok(HttpUrl, 'HTTPS://GW.example.com')).toBe('HTTPS://GW.example.com');
    expect(ok(HttpUrl, 'https://[::1]:8443/r')).toBe('https://[::1]:8443/r');
  });
  const parsing = (input: string, error: string): ValidationError[] => [
    { loc: ['body', 'v'], msg: `Input should be a valid URL, ${error}`, type: 'url_parsing', input, ctx: { error } },
  ];
  it.each([
    ['gw.example.com/relay', 'relative URL without a base'],
    ['', 'input is empty'],
    ['http://', 'empty host'],
    ['https://gw.example.com:99999999/x', 'invalid port number'],
    ['https://gw.example.com/cut\ud83d', 'invalid character: half of a surrogate pair (an emoji cut in two) is not part of a URL'],
    // What WHATWG's parser reads as https://relay/… and other parsers otherwise: written out, or refused.
    ['https:///relay', 'expected the scheme, then // and the host (https://host/path), and no backslash'],
    ['https:gw.example.com/r', 'expected the scheme, then // and the host (https://host/path), and no backslash'],
    ['https:\\\\gw.example.com\\r', 'expected the scheme, then // and the host (https://host/path), and no backslash'],
    ['https://gw.example.com\\relay', 'expected the scheme, then // and the host (https://host/path), and no backslash'],
    ['HTTPS:/gw.example.com/r', 'expected the scheme, then // and the host (https://host/path), and no backslash'],
  ])('refuses %j: url_parsing', (input, error) => {
    expect(at(HttpUrl, input)).toEqual(parsing(input, error));
  });
  it('refuses other schemes, non-strings and over-long URLs', () => {
    expect(at(HttpUrl, 'ftp://files.example.com')).toEqual([
      { loc: ['body', 'v'], msg: "URL scheme should be 'http' or 'https'", type: 'url_scheme', input: 'ftp://files.example.com', ctx: { expected_schemes: "'http' or 'https'" } },
    ]);
    expect(at(HttpUrl, 7)).toEqual([{ loc: ['body', 'v'], msg: 'URL input should be a string or URL', type: 'url_type', input: 7 }]);
    const long = `https://example.com/${'a'.repeat(2100)}`;
    expect(at(HttpUrl, long)).toEqual([
      { loc: ['body', 'v'], msg: 'URL should have at most 2083 characters', type: 'url_too_long', input: long, ctx: { max_length: 2083 } },
    ]);
  });
  it('refuses credentials in the URL, echoing it with them masked; its schema pattern says the same', () => {
    const msg = 'Value error, a URL must not carry credentials (user:password@): a credential goes in its own field';
    for (const url of ['https://user:GW-SECRET@gw.example.com/relay?x=1', 'https://GW-SECRET@gw.example.com/relay', 'https://u:GW@SECRET@gw.example.com/relay'])
      expect(at(HttpUrl, url)).toEqual([{ loc: ['body', 'v'], msg, type: 'value_error', input: expect.stringMatching(/^https:\/\/\*{10}@gw\.example\.com\/relay/) }]);
    const pattern = new RegExp(new SchemaBuilder().schemaOf(HttpUrl)['pattern'] as string);
    expect(['https://gw.example.com', 'https://gw.example.com/a@b', 'http://h:1/?q=@'].every((u) => pattern.test(u))).toBe(true);
    expect(['https://u:p@gw.example.com/', 'https://u@h'].some((u) => pattern.test(u))).toBe(false);
    // An empty userinfo is userinfo too (WHATWG drops it, other parsers keep it); and the pattern refuses what the codec does.
    for (const url of ['https://@gw.example.com/relay', 'https://:@gw.example.com/relay'])
      expect([url, at(HttpUrl, url)]).toEqual([url, [{ loc: ['body', 'v'], msg, type: 'value_error', input: 'https://**********@gw.example.com/relay' }]]);
    for (const url of ['https:///relay', 'https://gw.example.com\\relay', 'https://@gw.example.com/', 'https://'])
      expect([url, pattern.test(url)]).toEqual([url, false]);
    for (const url of ['https://gw.example.com/relay', 'HTTPS://[::1]:8443/r?x=1#f', 'http://h.example.com./p'])
      expect([url, pattern.test(url), ok(HttpUrl, url)]).toEqual([url, true, url]);
    expect(ok(HttpUrl, 'https://gw.example.com/a@b')).toBe('https://gw.example.com/a@b');
  });
});

describe('Enum and Nullable', () => {
  const Color = Enum(['red', 'green', 'blue'] as const);
  it('enum lists the alternatives as pydantic does', () => {
    expect(at(Color, 'pink')).toEqual([
      { loc: ['body', 'v'], msg: "Input should be 'red', 'green' or 'blue'", type: 'enum', input: 'pink', ctx: { expected: "'red', 'green' or 'blue'" } },
    ]);
    expect(at(Enum(['only'] as const), 1)).toEqual([
      { loc: ['body', 'v'], msg: "Input should be 'only'", type: 'enum', input: 1, ctx: { expected: "'only'" } },
    ]);
  });
  it('Nullable takes null and reports a bad value once, in the words of the inner codec', () => {
    expect(ok(Obj('T', { v: Nullable(Color) }), { v: null })).toEqual({ v: null });
    expect(at(Nullable(Color), 'pink')).toEqual(at(Color, 'pink'));
  });
});

describe('Obj', () => {
  const O = Obj('O', { a: NonEmptyString }, { b: Int(), c: Bool }, { c: false });
  it('drops unknown keys, keeps absent optional members absent and fills defaults', () => {
    expect(ok(O, { a: 'x', extra: 1 })).toEqual({ a: 'x', c: false });
    expect(ok(O, { a: 'x', b: 2, c: true })).toEqual({ a: 'x', b: 2, c: true });
  });
  it('reports every bad member, required ones first', () => {
    expect(errors(O, { b: 'x' })).toEqual([
      { loc: ['body', 'a'], msg: 'Field required', type: 'missing', input: { b: 'x' } },
      { loc: ['body', 'b'], msg: 'Input should be a valid integer, unable to parse string as an integer', type: 'int_parsing', input: 'x' },
    ]);
  });
  it('refuses a non-object at its own location', () => {
    expect(errors(O, [1])).toEqual([
      { loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', type: 'model_attributes_type', input: [1] },
    ]);
  });
  it('never shares a default array between decoded values', () => {
    const L = Obj('L', {}, { tags: Nullable(NonEmptyString) as t.Mixed }, { tags: [] as unknown });
    const first = ok(L, {}) as { tags: string[] };
    first.tags.push('mutated');
    expect(ok(L, {})).toEqual({ tags: [] });
  });
  it('lists its members for the OpenAPI generator', () => {
    expect(Object.keys(O.props)).toEqual(['a', 'b', 'c']);
    expect(O.requiredKeys).toEqual(['a']);
  });
});

describe('List and OneOrList', () => {
  const L = List(UuidString, { max: 2 });
  const U = '0f8fad5b-d9cb-469f-a165-70867728950e';
  it('accept up to max items, each decoded as the item codec decodes it', () => {
    expect(ok(L, [U.toUpperCase(), U])).toEqual([U, U]);
    expect(ok(OneOrList(UuidString, { max: 2 }), U.toUpperCase())).toBe(U);
  });

  it('refuse a longer list with too_long, before looking at any item', () => {
    expect(at(L, ['x', 'y', 'z'])).toEqual([
      { loc: ['body', 'v'], msg: 'List should have at most 2 items after validation, not 3', type: 'too_long', input: ['x', 'y', 'z'], ctx: { field_type: 'List', max_length: 2, actual_length: 3 } },
    ]);
    expect(at(OneOrList(t.string, { max: 1 }), ['a', 'b'])[0]).toMatchObject({ loc: ['body', 'v'], type: 'too_long' });
  });

  it('point at a bad item by its index, as a number', () => {
    expect(at(L, [U, 5])).toEqual([{ loc: ['body', 'v', 1], msg: 'UUID input should be a string, bytes or UUID object', type: 'uuid_type', input: 5 }]);
    expect(at(OneOrList(t.string, { max: 3 }), ['a', 7])).toEqual([{ loc: ['body', 'v', 1], msg: 'Input should be a valid string', type: 'string_type', input: 7 }]);
  });

  it('report a value that is neither as the item would, and a non-list as list_type', () => {
    expect(at(OneOrList(t.string, { max: 3 }), 7)).toEqual([{ loc: ['body', 'v'], msg: 'Input should be a valid string', type: 'string_type', input: 7 }]);
    expect(at(L, 'x')).toEqual([{ loc: ['body', 'v'], msg: 'Input should be a valid list', type: 'list_type', input: 'x' }]);
  });
});

describe('Name', () => {
  it('takes any printable text up to 255 characters: emoji, right-to-left marks, slashes, quotes', () => {
    for (const name of ['chatbot', 'prod / eu', '🚀 launch', 'مشروع\u200f', 'say "hi"', ' padded ', 'x'.repeat(255)])
      expect(Name.decode(name)).toEqual(E.right(name));
  });

  it('refuses control characters, line and paragraph separators, and unpaired surrogates', () => {
    for (const name of ['line\nbreak', 'nul\u0000', 'tab\there', 'del\u007f', 'sep\u2028', 'half\ud800', 'half\udfff-x', ''])
      expect(E.isLeft(Name.decode(name))).toBe(true);
    expect(at(Name, 'a\nb')).toEqual([
      { loc: ['body', 'v'], msg: expect.stringMatching(/^String should match pattern/), type: 'string_pattern_mismatch', input: 'a\nb', ctx: { pattern: expect.any(String) } },
    ]);
  });
});

describe('Utf8Text and Utf8Str', () => {
  const UNICODE = { type: 'string_unicode', msg: 'Input should be a valid string, unable to parse raw data as a unicode string: it holds half of a surrogate pair' };

  it('take any string with no half of a surrogate pair: whole pairs, U+FFFD itself, controls, the empty string', () => {
    for (const text of ['', 'plain', 'whole 😀', '\uFFFD', 'line\nbreak\u0000']) expect(Utf8Text.decode(text)).toEqual(E.right(text));
  });

  it('refuse half of a surrogate pair, either half, anywhere, before any bound is checked', () => {
    for (const text of ['\uD800', 'a\uDBFFb', '\uDC00x', '😀\uD83D']) expect(at(Utf8Text, text)).toEqual([{ loc: ['body', 'v'], ...UNICODE, input: text }]);
    const Tag = Utf8Str({ min: 1, max: 3, name: 'Tag' });
    expect(at(Tag, 'toolong\uD800')).toEqual([{ loc: ['body', 'v'], ...UNICODE, input: 'toolong\uD800' }]);
    expect(at(Tag, 'four')).toEqual([expect.objectContaining({ type: 'string_too_long', ctx: { max_length: 3 } })]);
    expect(at(Tag, 4)).toEqual([expect.objectContaining({ type: 'string_type' })]);
    expect(Tag.is('ab')).toBe(true);
    expect(Tag.is('\uD800')).toBe(false);
  });

  it('describe the string as Str does', () => {
    const b = new SchemaBuilder();
    expect(b.schemaOf(Utf8Str({ min: 1, max: 3 }))).toEqual(b.schemaOf(Str({ min: 1, max: 3 })));
  });
});

describe('Arr and Rec: t.array and t.record that stop at MAX_DECODE_ERRORS', () => {
  const Trimmed = new t.Type<string, string, unknown>('Trimmed', t.string.is, (u, c) => (typeof u === 'string' ? t.success(u.trim()) : t.failure(u, c)), t.identity);

  /** A decoding's outcome with each error as its value and path of keys. */
  const outcome = (r: t.Validation<unknown>) => E.mapLeft((errors: t.Errors) => errors.map((e) => ({ value: e.value, path: e.context.map((x) => x.key) })))(r);

  it('decode as t.array and t.record do, the input kept unless an item decodes to another value', () => {
    for (const u of [[], [' a', 'b'], ['a', 'b'], [1, 'b', 2], 'no', null])
      expect(outcome(Arr(Trimmed).decode(u))).toEqual(outcome(t.array(Trimmed).decode(u)));
    for (const u of [{}, { a: ' a', b: 'b' }, { a: 1, b: 2 }, [], 'no'])
      expect(outcome(Rec(Trimmed).decode(u))).toEqual(outcome(t.record(t.string, Trimmed).decode(u)));
    const same = ['a', 'b'];
    expect(Arr(Trimmed).decode(same)).toEqual({ _tag: 'Right', right: same });
    expect((Arr(Trimmed).decode(same) as { right: unknown }).right).toBe(same);
    expect(Arr(Trimmed)._tag).toBe('ArrayType');
    expect(Rec(Trimmed)._tag).toBe('DictionaryType');
  });

  it('validate each key by the key codec given, reporting a refused key at […, key, "[key]"] with the key as input', () => {
    const Metrics = Rec(t.number, Utf8Text);
    expect(ok(Metrics, { 'v1.2 judge': 1, '😀': 2 })).toEqual({ 'v1.2 judge': 1, '😀': 2 });
    expect(at(Metrics, { ok: 1, 'cut\uD800': 2, bad: 'x' })).toEqual([
      expect.objectContaining({ loc: ['body', 'v', 'cut\uD800', '[key]'], type: 'string_unicode', input: 'cut\uD800' }),
      expect.objectContaining({ loc: ['body', 'v', 'bad'], type: 'float_type', input: 'x' }),
    ]);
    // Whatever the value's codec: a union's branches do not hide the key's place.
    expect(at(Rec(Nullable(t.number), Utf8Text), { 'cut\uD800': null })).toEqual([
      expect.objectContaining({ loc: ['body', 'v', 'cut\uD800', '[key]'], type: 'string_unicode', input: 'cut\uD800' }),
    ]);
  });

  it('gather at most MAX_DECODE_ERRORS errors, however many items fail', () => {
    const many = Array.from({ length: 100_000 }, (_, i) => i);
    const list = Arr(t.string).decode(many);
    expect(list._tag === 'Left' && list.left.length).toBe(MAX_DECODE_ERRORS);
    const record = Rec(t.string).decode(Object.fromEntries(many.map((i) => [`k${i}`, i])));
    expect(record._tag === 'Left' && record.left.length).toBe(MAX_DECODE_ERRORS);
    // An object of such members stops there too.
    const obj = Obj('Two', { a: Arr(t.string), b: Arr(t.string) }).decode({ a: many, b: many });
    expect(obj._tag === 'Left' && obj.left.length).toBe(MAX_DECODE_ERRORS);
  });
});
