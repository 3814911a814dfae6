// A record as stored in MongoDB and read back, without a server: through BSON, as the driver sends and
// receives documents.
import { type Json, type LogRecord, nestsDeeperThan, textOf } from '@tracelight/domain';
import { aProject, aRecord, aRun, aUser } from '@tracelight/testkit';
import { BSON } from 'mongodb';
import { CorruptDocument } from '../shared/run';
import { leadingIndex, metricTextCondition, recordFromDocument, recordToDocument, storedSize } from './mongo-log-record.repository';

const run = aRun(aProject(aUser().id));
/** As the driver writes (checkKeys off) and reads a cursor's documents (its default BSON options, UTF-8 validated). */
const WRITE = { checkKeys: false, serializeFunctions: false, ignoreUndefined: false } as const;
const READ = { promoteLongs: true, promoteValues: true, promoteBuffers: false, bsonRegExp: false, useBigInt64: false, validation: { utf8: true } } as const;
const throughBson = (d: object) => BSON.deserialize(BSON.serialize(d, WRITE), READ);
/** The document as written before the JSON form: an input or output other than a string as BSON, beside its text. */
const beforeJsonForm = (record: LogRecord) => {
  const { inputJson: _i, outputJson: _o, ...rest } = recordToDocument(record) as Record<string, unknown>;
  return {
    ...rest,
    ...(typeof record.input === 'string' ? {} : { input: record.input }),
    ...(typeof record.output === 'string' ? {} : { output: record.output }),
    inputText: textOf(record.input),
    outputText: textOf(record.output),
  };
};
const roundTrip = (input: Json, output: Json) => {
  const record = aRecord(run, { input, output });
  return [recordFromDocument(throughBson(recordToDocument(record))), record] as const;
};

describe('a log record’s document', () => {
  it.each([
    ['strings', 'a prompt', 'an answer'],
    ['JSON values', { messages: [{ role: 'user', content: 'hi' }] }, [1, 'two', { three: 3 }]],
    ['a number and null', 42, null],
    ['empty strings', '', ''],
    ['false and an empty object', false, {}],
  ])('comes back as it was sent, input and output %s', (_, input, output) => {
    const [read, record] = roundTrip(input, output);
    expect(read).toEqual(record);
  });

  it.each<[string, Json]>([
    ['a DBRef’s shape', { $ref: 'users', $id: 1 }],
    ['a DBRef’s shape with $db and another member', { $ref: 'users', $id: 'u1', $db: 'app', note: 'x' }],
    ['a DBRef’s shape deep inside', [{ doc: { $ref: 'users', $id: { any: 'thing' } } }]],
    ['keys with $ and . anywhere', { $set: { 'a.b': 1 }, nested: [{ $where: 'x', '.': '$' }] }],
    ['a NUL in a key', { 'a\u0000b': 1 }],
    ['a member named _bsontype', { _bsontype: 'ObjectId', id: 'x' }],
  ])('keeps a JSON input or output holding %s as it was sent', (_, value) => {
    const [read, record] = roundTrip(value, { wrapped: value });
    expect(read).toEqual(record);
    expect(JSON.stringify(read.input)).toBe(JSON.stringify(value));
  });

  it('keeps a JSON input nested as deep as a request may send it, in a document of two levels', () => {
    let deep: Json = 'leaf';
    for (let i = 0; i < 100; i++) deep = i % 2 ? [deep] : { v: deep };
    const [read, record] = roundTrip(deep, null);
    expect(read).toEqual(record);
    expect(nestsDeeperThan(throughBson(recordToDocument(record)), 2)).toBe(false);
  });

  it.each<[string, Json, Json]>([
    ['lone halves of surrogate pairs', 'a\uD800b', '\uDC00'],
    ['a lone half at either end, and whole pairs beside it', '\uDBFF😀', '😀\uD83D'],
    ['a lone half inside a JSON value', { text: 'a\uD800b' }, ['\uDFFF']],
  ])('keeps strings with %s as they were sent', (_, input, output) => {
    const [read, record] = roundTrip(input, output);
    expect(read).toEqual(record);
  });

  it.each<[string, Json]>([
    ['a string', 'Hello\n"world"\\'],
    ['a JSON value', { messages: [{ role: 'user', content: 'Hello\n"world"' }] }],
    ['null', null],
    ['a string with a lone surrogate', 'a\uD800b'],
    ['a JSON value with a lone surrogate', ['a\uD800b']],
  ])('gives searches the text they saw before for %s (what SQLite’s input_text holds)', (_, value) => {
    const stored = throughBson(recordToDocument(aRecord(run, { input: value, output: value })));
    const before = throughBson({ text: textOf(value) })['text'];
    expect(stored['inputText']).toBe(before);
    expect(stored['outputText']).toBe(before);
  });

  it.each<[string, Record<string, string>]>([
    ['a DBRef’s shape', { $ref: 'users', $id: 'u1' }],
    ['a DBRef’s shape with a dotted $ref, $db and another member', { note: 'x', $ref: 'app.users', $id: 'u1', $db: 'other' }],
    ['a NUL in a key and a member named _bsontype', { 'a\u0000b': '1', _bsontype: 'ObjectId' }],
    ['half of a surrogate pair', { cut: 'a\uD800b' }],
  ])('keeps user and dataset metadata holding %s as they were sent', (_, metadata) => {
    const record = aRecord(run, { userMetadata: metadata, datasetMetadata: metadata });
    const read = recordFromDocument(throughBson(recordToDocument(record)));
    expect(read).toEqual(record);
    expect(JSON.stringify([read.userMetadata, read.datasetMetadata])).toBe(JSON.stringify([metadata, metadata]));
  });

  it('keeps metrics whatever their names: _bsontype (which BSON takes for a BSON value), __proto__, $, a dot, % and NUL', () => {
    const metrics = JSON.parse('{"_bsontype":1,"__proto__":2,"$cost":3,"v1.2 judge":null,"100%":4,"a\\u0000b":5,"%5Fbsontype":6}') as Record<string, number | null>;
    const record = aRecord(run, { metrics });
    const read = recordFromDocument(throughBson(recordToDocument(record)));
    expect(Object.keys(read.metrics)).toEqual(Object.keys(metrics));
    expect(JSON.stringify(read.metrics)).toBe(JSON.stringify(metrics));
    expect(read).toEqual(record);
  });

  it('keeps the OTLP root key of a trace record made from a root span, and reads a document without one as a record without one', () => {
    const record = aRecord(run, { otelRootKey: '01700000000000000000/1111111111111111' });
    expect(recordFromDocument(throughBson(recordToDocument(record)))).toEqual(record);
    expect(recordFromDocument(throughBson(recordToDocument(aRecord(run))))).not.toHaveProperty('otelRootKey');
  });

  it('stores an input or output once, as its search copy: a string as it is, any other value as its JSON text', () => {
    const prompt = 'p'.repeat(100_000);
    const stored = throughBson(recordToDocument(aRecord(run, { input: prompt, output: { text: prompt } })));
    expect(Object.keys(stored)).not.toContain('input');
    expect(stored['inputText']).toBe(prompt);
    expect(Object.keys(stored)).not.toContain('output');
    expect(stored['outputText']).toBe(JSON.stringify({ text: prompt }));
    expect(BSON.calculateObjectSize(stored)).toBeLessThan(2.1 * prompt.length);
  });

  it('counts a record against the page budget once, whatever the form it is stored in', () => {
    const text = 'p'.repeat(100_000);
    const sizeOf = (d: object) => storedSize(throughBson(d));
    const json = aRecord(run, { input: 'q', output: { text } });
    const once = sizeOf(recordToDocument(json));
    expect(once).toBe(BSON.calculateObjectSize(throughBson(recordToDocument(json))));
    expect(Math.abs(sizeOf(beforeJsonForm(json)) - once)).toBeLessThan(100);
    const cut = aRecord(run, { input: 'q', output: `${text}\uD800` });
    expect(Math.abs(sizeOf(recordToDocument(cut)) - once)).toBeLessThan(100);
    expect(Math.abs(sizeOf({ ...recordToDocument(aRecord(run, { input: 'q', output: text })), output: text }) - once)).toBeLessThan(100);
  });

  it('marks what it stores as JSON text, and reads a marked text that is not JSON as a corrupt document, not a crash', () => {
    const stored = throughBson(recordToDocument(aRecord(run, { input: { a: 1 }, output: 'a\uD800' })));
    expect([stored['inputText'], stored['inputJson']]).toEqual(['{"a":1}', true]);
    expect([stored['outputText'], stored['outputJson']]).toEqual(['a\uFFFD', '"a\\ud800"']);
    expect(() => recordFromDocument({ ...stored, inputText: '{"a":' })).toThrow(CorruptDocument);
    expect(() => recordFromDocument({ ...stored, outputJson: 'a' })).toThrow(CorruptDocument);
    expect(() => recordFromDocument({ ...stored, inputText: null })).toThrow(CorruptDocument);
  });

  describe('written before', () => {
    it('reads a document with a string input stored in both fields', () => {
      const record = aRecord(run, { input: 'a prompt', output: 'an answer' });
      const before = { ...recordToDocument(record), input: record.input, output: record.output };
      expect(recordFromDocument(throughBson(before))).toEqual(record);
    });

    it('reads a document with a JSON value beside its text, a DBRef’s shape and a lone surrogate in it too', () => {
      for (const value of [{ messages: [{ role: 'user', content: 'hi' }] }, [1, { $ref: 'users', $id: 1 }], { text: 'a\uD800b' }, 42, false] as Json[]) {
        const record = aRecord(run, { input: value, output: { wrapped: value } });
        expect(recordFromDocument(throughBson(beforeJsonForm(record)))).toEqual(record);
      }
    });

    it('reads a document with a null input stored as null', () => {
      const record = aRecord(run, { input: null, output: null });
      expect(throughBson(beforeJsonForm(record))).toMatchObject({ input: null, output: null });
      expect(recordFromDocument(throughBson(beforeJsonForm(record)))).toEqual(record);
    });

    it('reads a document with metadata stored as BSON, one shaped like a DBRef too (its members in another order)', () => {
      for (const metadata of [{ customer: 'acme' }, {}, { note: 'x', $ref: 'users', $id: 'u1', $db: 'app' }] as Array<Record<string, string>>) {
        const record = aRecord(run, { userMetadata: metadata, datasetMetadata: metadata });
        const before = { ...recordToDocument(record), userMetadata: metadata, datasetMetadata: metadata };
        expect(recordFromDocument(throughBson(before))).toEqual(record);
      }
    });

    it('reads a document without recordId (of the form before migration 5)', () => {
      const record = aRecord(run);
      const { recordId: _r, ...rest } = recordToDocument(record);
      expect(recordFromDocument(throughBson({ ...rest, _id: record.id }))).toEqual(record);
    });
  });
});

describe('a text filter on a metric', () => {
  /** Every string in an expression that starts with `$`, outside `$literal`s: what the server reads as a field path or variable. */
  const pathsIn = (e: unknown): string[] => {
    if (typeof e === 'string') return e.startsWith('$') ? [e] : [];
    if (Array.isArray(e)) return e.flatMap(pathsIn);
    if (typeof e === 'object' && e !== null) return Object.entries(e).flatMap(([k, v]) => (k === '$literal' ? [] : pathsIn(v)));
    return [];
  };

  it.each(['eq', 'ne', 'one_of', 'not_in', 'contains'])('%s: the filter’s values are never read as field paths, whatever they hold', (operator) => {
    for (const ci of [false, true])
      for (const values of [['$name'], ['$$ROOT', '$', 'plain'], ['$metrics.other']]) {
        const filter = metricTextCondition('metrics.judge', operator, values, ci);
        expect([...new Set(pathsIn(filter))]).toEqual(['$metrics.judge']);
      }
  });
});

describe('the index a search is led by', () => {
  const id = (columnId: string, operator: 'eq' | 'ne' | 'one_of' | 'not_in' = 'eq') => ({ type: 'id' as const, columnId, operator, value: operator === 'eq' || operator === 'ne' ? 'a' : ['a', 'b'] });
  it.each([
    [[id('trace_id')], 'log_records_by_run_trace'],
    [[id('parent_id', 'one_of')], 'log_records_by_run_parent'],
    [[id('session_id')], 'log_records_by_run_session'],
    [[id('id')], 'log_records_by_run_id'],
    [[{ type: 'text' as const, columnId: 'name', operator: 'eq' as const, value: 'x', caseSensitive: false }, id('trace_id')], 'log_records_by_run_trace'],
    [[id('trace_id', 'ne')], undefined],
    [[id('trace_id', 'not_in')], undefined],
    [[id('project_id')], undefined],
    [[], undefined],
  ])('%j → %s', (filters, index) => {
    expect(leadingIndex(filters)).toBe(index);
  });
});
