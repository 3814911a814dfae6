import * as E from 'fp-ts/Either';
import * as t from 'io-ts';
import { TokenResponse } from '../identity/identity.codec';
import { decodeAt, decodeBody, decodePath, decodeQuery, decodeRequest } from './decode';
import { Int, NonEmptyString, Nullable, Obj, UuidString } from './primitives.codec';
import { MAX_JSON_DEPTH, mayOverflowNumbers, nestsDeeperThan, nonFiniteNumberIn, parseJson } from './json-body';
import { ECHO_BUDGET, ELIDED, jsonInvalid, reportValidationErrors, type ValidationError, valueError, withEchoedInput } from './validation-error';

const report = (codec: t.Decoder<unknown, unknown>, u: unknown, where: 'body' | 'query' | 'path' = 'body'): ValidationError[] => {
  const r = codec.decode(u);
  if (E.isRight(r)) throw new Error(`expected failure, got ${JSON.stringify(r.right)}`);
  return reportValidationErrors(r.left, where);
};

describe('reportValidationErrors with built-in io-ts codecs', () => {
  it('keeps member names under exact/strict wrappers, which strip unknown keys rather than reject them', () => {
    const C = t.exact(t.type({ a: t.string, b: t.type({ c: t.number }) }));
    expect(report(C, { a: 1, b: { c: 'x' }, unknown: true })).toEqual([
      { loc: ['body', 'a'], msg: 'Input should be a valid string', type: 'string_type', input: 1 },
      { loc: ['body', 'b', 'c'], msg: 'Input should be a valid number', type: 'float_type', input: 'x' },
    ]);
    expect(C.decode({ a: 'x', b: { c: 1 }, unknown: true })).toEqual(E.right({ a: 'x', b: { c: 1 } }));
    expect(report(t.strict({ a: t.string }), {})).toEqual([{ loc: ['body', 'a'], msg: 'Field required', type: 'missing', input: {} }]);
  });

  it('drops the branch numbers of intersections and unions', () => {
    const C = t.intersection([t.type({ x: t.number }), t.partial({ y: t.string })]);
    expect(report(C, { x: 'no', y: 2 }, 'query')).toEqual([
      { loc: ['query', 'x'], msg: 'Input should be a valid number', type: 'float_type', input: 'no' },
      { loc: ['query', 'y'], msg: 'Input should be a valid string', type: 'string_type', input: 2 },
    ]);
  });

  it('keeps array and tuple indexes as numbers', () => {
    const C = t.type({ xs: t.array(t.type({ id: t.string })), pair: t.tuple([t.number, t.number]) });
    expect(report(C, { xs: [{ id: 'a' }, {}], pair: [1, 'b'] })).toEqual([
      { loc: ['body', 'xs', 1, 'id'], msg: 'Field required', type: 'missing', input: {} },
      { loc: ['body', 'pair', 1], msg: 'Input should be a valid number', type: 'float_type', input: 'b' },
    ]);
  });

  it('reports a union that fails at one place once', () => {
    expect(report(t.type({ v: t.union([t.string, t.number]) }), { v: true })).toEqual([
      { loc: ['body', 'v'], msg: 'Input should be a valid string', type: 'string_type', input: true },
    ]);
  });

  it('names a literal the way pydantic does', () => {
    expect(report(TokenResponse, { access_token: 'x', token_type: 'basic' })).toEqual([
      { loc: ['body', 'token_type'], msg: "Input should be 'bearer'", type: 'literal_error', input: 'basic', ctx: { expected: "'bearer'" } },
    ]);
  });

  it('reports a top-level non-object at the part itself', () => {
    expect(report(t.type({ a: t.string }), 'x', 'path')).toEqual([
      { loc: ['path'], msg: 'Input should be a valid dictionary or object to extract fields from', type: 'model_attributes_type', input: 'x' },
    ]);
  });
});

describe('reportValidationErrors with the package codecs', () => {
  const Inner = Obj('Inner', { id: UuidString });
  const C = Obj('C', { req: Nullable(NonEmptyString) }, { inner: Nullable(Inner), list: t.array(Nullable(Inner)), n: Nullable(Int({ min: 1 })) });

  it('says missing for an absent required member even when it is nullable; input is the parent', () => {
    expect(report(C, { other: 1 })).toEqual([{ loc: ['body', 'req'], msg: 'Field required', type: 'missing', input: { other: 1 } }]);
  });

  it('a null where a value is required is not missing', () => {
    expect(report(Obj('R', { a: NonEmptyString }), { a: null })).toEqual([
      { loc: ['body', 'a'], msg: 'Input should be a valid string', type: 'string_type', input: null },
    ]);
  });

  it('a nullable member with a bad value: only the inner complaint, not "Input should be None"', () => {
    expect(report(C, { req: '', inner: 'x', n: 0 })).toEqual([
      { loc: ['body', 'req'], msg: 'String should have at least 1 character', type: 'string_too_short', input: '', ctx: { min_length: 1 } },
      { loc: ['body', 'inner'], msg: 'Input should be a valid dictionary or object to extract fields from', type: 'model_attributes_type', input: 'x' },
      { loc: ['body', 'n'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal', input: 0, ctx: { ge: 1 } },
    ]);
  });

  it('a nullable object with a bad member: the member, at its full location', () => {
    expect(report(C, { req: 'r', inner: { id: 'nope' }, list: [null, { id: 'abc' }, {}] })).toEqual([
      {
        loc: ['body', 'inner', 'id'],
        msg: 'Input should be a valid UUID, invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `n` at 1',
        type: 'uuid_parsing',
        input: 'nope',
        ctx: { error: 'invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `n` at 1' },
      },
      {
        loc: ['body', 'list', 1, 'id'],
        msg: 'Input should be a valid UUID, invalid length: expected length 32 for simple format, found 3',
        type: 'uuid_parsing',
        input: 'abc',
        ctx: { error: 'invalid length: expected length 32 for simple format, found 3' },
      },
      { loc: ['body', 'list', 2, 'id'], msg: 'Field required', type: 'missing', input: {} },
    ]);
  });
});

describe('entries built outside codecs', () => {
  it('valueError prefixes the sentence as pydantic does', () => {
    expect(valueError(['body'], 'something is off', { a: 1 })).toEqual({
      loc: ['body'],
      msg: 'Value error, something is off',
      type: 'value_error',
      input: { a: 1 },
      ctx: { error: 'something is off' },
    });
  });

  it('jsonInvalid: the position goes into loc', () => {
    expect(jsonInvalid(7, 'Expecting value')).toEqual({
      loc: ['body', 7],
      msg: 'JSON decode error',
      type: 'json_invalid',
      input: {},
      ctx: { error: 'Expecting value' },
    });
  });

  it('nonFiniteNumberIn: the first number JSON.parse read as ±Infinity, wherever it is, with its path', () => {
    const finite = { loc: ['body', 'threshold', 'buckets', 1], msg: 'Input should be a finite number', type: 'finite_number', input: 'Infinity' };
    expect(nonFiniteNumberIn(JSON.parse('{"name":"s","threshold":{"buckets":[1,1e400,-1e400]}}'))).toEqual(finite);
    expect(nonFiniteNumberIn(JSON.parse('[{"a":{"b":[-1e999]}}]'))).toEqual({ ...finite, loc: ['body', 0, 'a', 'b', 0], input: '-Infinity' });
    expect(nonFiniteNumberIn(JSON.parse('1e400'))).toEqual({ ...finite, loc: ['body'] });
    // Underflow is 0, as in every JSON reader; the largest double and 308-digit integers are finite.
    expect(nonFiniteNumberIn(JSON.parse('{"a":[1e-400,1.7976931348623157e308,"1e400",null,true]}'))).toBeUndefined();
    expect(nonFiniteNumberIn(JSON.parse(`[${'9'.repeat(308)}]`))).toBeUndefined();
    expect(nonFiniteNumberIn(JSON.parse(`[${'9'.repeat(309)}]`))).toEqual({ ...finite, loc: ['body', 0] });
    // The first in the text's order, as pydantic reports.
    expect(nonFiniteNumberIn(JSON.parse('{"a":{"x":1e400},"b":{"y":-1e400}}'))?.loc).toEqual(['body', 'a', 'x']);
    expect(nonFiniteNumberIn(JSON.parse('[[1e400],[2e400]]'))?.loc).toEqual(['body', 0, 0]);
    expect(nonFiniteNumberIn(JSON.parse('{"a":[1,{"b":1e400}],"c":-1e400}'))?.loc).toEqual(['body', 'a', 1, 'b']);
    // Walked to MAX_JSON_DEPTH levels, no deeper: a body nested past them is refused whole (tooDeep), and
    // a megabyte of [[[… with 1e400 at its heart is not walked (nor its path made) 500,000 levels down.
    const nested = (levels: number) => JSON.parse(`${'['.repeat(levels)}1e400${']'.repeat(levels)}`) as unknown;
    expect(nonFiniteNumberIn(nested(MAX_JSON_DEPTH))?.loc).toEqual(['body', ...Array.from({ length: MAX_JSON_DEPTH }, () => 0)]);
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(nonFiniteNumberIn(nested(MAX_JSON_DEPTH + 1))).toBeUndefined();
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
    expect(nonFiniteNumberIn(nested(500_000))).toBeUndefined();
  });

  it('mayOverflowNumbers: false only for text in which no number can be past a double\'s range', () => {
    const big = (digits: number, exponent = '') => `1${'0'.repeat(digits - 1)}${exponent}`;
    for (const text of ['1e400', '[1E+400]', '{"a": -1e0400}', '-2.5e308', ` \n${'9'.repeat(309)}`, `[0,${big(210, 'e99')}]`, `{"x":${big(300, 'e9')}}`, `[${big(210, '.5e99')}]`])
      expect([text, mayOverflowNumbers(text)]).toEqual([text, true]);
    // Ids and hex in strings are not numbers; a 209-digit number with a two-digit exponent stays below 1e308.
    for (const text of ['{"a":1e99}', '1e-400', '1.7976931348623157e3', '{"id":"4e1234"}', '{"h":"ab,1e99"}', `[${'9'.repeat(209)}e99]`, `"${'9'.repeat(400)}"`])
      expect([text.slice(0, 40), mayOverflowNumbers(text)]).toEqual([text.slice(0, 40), false]);
    // Digit runs in strings are not numbers, however many and however long.
    expect(mayOverflowNumbers(`[${Array.from({ length: 5_000 }, () => `"${'1'.repeat(208)}"`).join(',')}]`)).toBe(false);
    // Why 210: 2 and 209 zeros, e99, is 2e308, past the largest double (1.79e308), which JSON.parse reads as Infinity.
    expect(JSON.parse(`[2${'0'.repeat(209)}e99]`)[0]).toBe(Infinity);
    expect(mayOverflowNumbers(`[2${'0'.repeat(209)}e99]`)).toBe(true);
    expect(nonFiniteNumberIn(JSON.parse(`{"t":[2${'0'.repeat(209)}e99]}`))?.loc).toEqual(['body', 't', 0]);
  });

  it('parseJson: a value, or the single json_invalid entry', () => {
    expect(parseJson('{"a": [1]}')).toEqual(E.right({ a: [1] }));
    expect(parseJson('{"a": ]')).toEqual(E.left([jsonInvalid(6, 'Expecting value')]));
  });

  it.each([
    ['', 0, 'Expecting value'],
    ['{"a": ', 6, 'Expecting value'],
    ["{'a': 1}", 1, 'Expecting property name enclosed in double quotes'],
    ['{"a": 1,}', 8, 'Expecting property name enclosed in double quotes'],
    ['{"a" 1}', 5, "Expecting ':' delimiter"],
    ['[1 2]', 3, "Expecting ',' delimiter"],
    ['[1,]', 3, 'Expecting value'],
    ['{"a": 1} x', 9, 'Extra data'],
    ['"abc', 0, 'Unterminated string starting at'],
    ['"a\\qb"', 2, 'Invalid \\escape'],
    ['{"a": tru}', 6, 'Expecting value'],
  ])('parseJson(%j): position %d, %s (Python json wording)', (text, position, error) => {
    expect(parseJson(text)).toEqual(E.left([jsonInvalid(position, error)]));
  });

  it('parseJson: a malformed body nested past 100 levels is reported where it passed them, without exhausting the stack', () => {
    expect(parseJson('['.repeat(1_000_000))).toEqual(E.left([jsonInvalid(100, 'Nested deeper than 100 levels at')]));
    expect(parseJson(`${'['.repeat(100)}1${']'.repeat(99)}`)).toEqual(E.left([jsonInvalid(200, "Expecting ',' delimiter")]));
  });

  it('nestsDeeperThan counts levels of arrays and objects, bytes being a leaf', () => {
    const nest = (levels: number): unknown => {
      let v: unknown = 'leaf';
      for (let i = 0; i < levels; i++) v = i % 2 ? [v] : { v };
      return v;
    };
    expect(nestsDeeperThan(nest(100), MAX_JSON_DEPTH)).toBe(false);
    expect(nestsDeeperThan(nest(101), MAX_JSON_DEPTH)).toBe(true);
    expect(nestsDeeperThan(nest(1_000_000), MAX_JSON_DEPTH)).toBe(true);
    expect(nestsDeeperThan({ wide: Array.from({ length: 10_000 }, () => ({ a: [1] })) }, 4)).toBe(false);
    expect(nestsDeeperThan({ file: Buffer.alloc(1_000) }, 1)).toBe(false);
    expect(nestsDeeperThan('text', 0)).toBe(false);
  });
});

describe('decode helpers', () => {
  const Path = t.type({ id: UuidString });
  const Query = t.partial({ n: Int() });
  const Body = Obj('B', { name: NonEmptyString });
  const U = '0f8fad5b-d9cb-469f-a165-70867728950e';

  it('decodeBody / decodeQuery / decodePath prefix loc with their part', () => {
    expect(decodeBody(Body, { name: 'x' })).toEqual(E.right({ name: 'x' }));
    expect(decodeQuery(Query, { n: 'x' })).toEqual(E.left([expect.objectContaining({ loc: ['query', 'n'], type: 'int_parsing' })]));
    expect(decodePath(Path, { id: 'x' })).toEqual(E.left([expect.objectContaining({ loc: ['path', 'id'], type: 'uuid_parsing' })]));
    expect(decodeAt(Body, {}, 'body')).toEqual(E.left([{ loc: ['body', 'name'], msg: 'Field required', type: 'missing', input: {} }]));
  });

  it('decodeRequest gathers the failures of all three parts, path first', () => {
    expect(decodeRequest({ path: Path, query: Query, body: Body }, { path: { id: U }, query: {}, body: { name: 'n' } })).toEqual(
      E.right({ path: { id: U }, query: {}, body: { name: 'n' } }),
    );
    const r = decodeRequest({ path: Path, query: Query, body: Body }, { path: { id: 'x' }, query: { n: '1.5' }, body: {} });
    expect(E.isLeft(r) && r.left.map((e) => e.loc)).toEqual([['path', 'id'], ['query', 'n'], ['body', 'name']]);
  });
});

describe('what an entry echoes as its input', () => {
  const Gateway = t.strict({ token: NonEmptyString, endpoint: t.string });
  it('masks a secret at the place that failed, and secret members of an echoed object', () => {
    expect(report(Gateway, { token: ['gw-secret-1'], endpoint: 'x' })).toEqual([
      { loc: ['body', 'token'], msg: 'Input should be a valid string', type: 'string_type', input: '**********' },
    ]);
    expect(report(Gateway, { token: 'gw-secret-2' })).toEqual([
      { loc: ['body', 'endpoint'], msg: 'Field required', type: 'missing', input: { token: '**********' } },
    ]);
    const login = report(t.strict({ username: t.string, password: t.string }), { password: 'pw-secret', nested: [{ api_key: 'k' }] });
    expect(JSON.stringify(login)).not.toMatch(/pw-secret|"k"/);
    expect(login[0]!.input).toEqual({ password: '**********', nested: [{ api_key: '**********' }] });
  });

  it('masks a secret member however its name is spelt, and a credential whatever member holds it', () => {
    const names = ['apikey', 'apiKey', 'api-key', 'gateway_token', 'client_secret', 'private_key', 'Authorization', 'passwd', 'refreshToken'];
    const [entry] = report(t.strict({ a: t.string }), { ...Object.fromEntries(names.map((n) => [n, `v-${n}`])), prompt_tokens: 12, tokenizer: 'bpe', starting_token: 5 });
    expect(entry!.input).toEqual({ ...Object.fromEntries(names.map((n) => [n, '**********'])), prompt_tokens: 12, tokenizer: 'bpe', starting_token: 5 });
    const key = `tl_${'A'.repeat(43)}`;
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl';
    const [held] = report(t.strict({ a: t.string }), { note: key, nested: [jwt], plain: 'tl_short' });
    expect(held!.input).toEqual({ note: '**********', nested: ['**********'], plain: 'tl_short' });
    expect(report(t.strict({ x: t.number }), { x: key })[0]!.input).toBe('**********');
  });

  it('elides what lies deeper than 100 levels', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 5_000; i++) deep = [deep];
    const [entry] = report(t.strict({ a: t.string }), { a: deep });
    const text = JSON.stringify(entry!.input);
    expect(text.startsWith('['.repeat(100) + '"…"')).toBe(true);
    expect(text).not.toContain('bottom');
  });

  it('echoes an input of up to about 4 KiB of JSON whole', () => {
    const name = 'n'.repeat(ECHO_BUDGET);
    expect(report(t.strict({ name: t.number }), { name })[0]!.input).toBe(name);
    const record = { id: 'x', tags: Array.from({ length: 50 }, (_, i) => `tag-${i}`), meta: { a: 1, b: [true, null] } };
    expect(report(t.strict({ name: t.string }), record)[0]!.input).toEqual(record);
  });

  it('cuts a longer string, and leaves out the rest of a larger list or object, marking each cut', () => {
    const huge = 'é'.repeat(1_000) + 'x'.repeat(10_000_000);
    const [long] = report(t.strict({ name: t.number }), { name: huge });
    expect(long!.input).toBe(huge.slice(0, ECHO_BUDGET) + ELIDED);

    // A missing member at the top of a large body: its `input` is the body, echoed in part.
    const records = Array.from({ length: 10_000 }, (_, i) => ({ id: `record-${i}`, input: 'q'.repeat(100) }));
    const [missing] = report(t.strict({ name: t.string, records: t.unknown }), { records, note: 'after the list' });
    const echo = missing!.input as { records: Array<unknown>; note?: string; [ELIDED]?: string };
    const text = JSON.stringify(echo);
    expect(text.length).toBeGreaterThan(ECHO_BUDGET / 2);
    expect(text.length).toBeLessThan(ECHO_BUDGET + 200);
    expect(echo.records.slice(0, 3)).toEqual(records.slice(0, 3));
    expect(echo.records[echo.records.length - 1]).toBe(ELIDED);
    expect(echo.note).toBeUndefined();
    expect(echo[ELIDED]).toBe(ELIDED);
  });

  it('does not cut a string between the two halves of a surrogate pair', () => {
    const emoji = 'x' + '😀'.repeat(ECHO_BUDGET);
    const cut = withEchoedInput({ loc: ['body', 'a'], msg: 'm', type: 't', input: emoji }).input as string;
    expect(cut.endsWith(ELIDED)).toBe(true);
    expect(cut.length).toBe(ECHO_BUDGET + ELIDED.length - 1);
    // A lone half would make encodeURIComponent throw (URIError).
    expect(() => encodeURIComponent(cut)).not.toThrow();
  });

  it('echoes bytes (an uploaded part) by their size, not as a Node Buffer\'s JSON of one number a byte', () => {
    const input = { scoreable_node_types: { filename: 'n.json', mimeType: 'application/json', content: Buffer.from('["llm"]') }, note: new Uint8Array(3) };
    expect(withEchoedInput({ loc: ['body', 'file'], msg: 'Field required', type: 'missing', input }).input).toEqual({
      scoreable_node_types: { filename: 'n.json', mimeType: 'application/json', content: '<7 bytes>' },
      note: '<3 bytes>',
    });
  });

  it('echoes a value as JSON writes it: a Date as its ISO text', () => {
    const at = new Date('2026-01-02T03:04:05.000Z');
    expect(valueError(['body', 'expires_at'], 'in the past', { at }).input).toEqual({ at: '2026-01-02T03:04:05.000Z' });
  });

  it('bounds and masks the input of a rule entry as it does that of a codec', () => {
    const entry = valueError(['body'], 'give one of a or b', { a: 'x'.repeat(100_000), token: 'gw-secret-3' });
    expect(JSON.stringify(entry.input).length).toBeLessThan(ECHO_BUDGET + 200);
    expect(JSON.stringify(entry)).not.toContain('gw-secret-3');
  });
});
