// JSON text in documents and JSON read back from BSON, without a server: through BSON, as the driver
// reads a cursor's documents.
import { BSON } from 'mongodb';
import { parsedJson, withoutDbRefs } from './json-text';
import { CorruptDocument } from './run';

const READ = { promoteLongs: true, promoteValues: true, promoteBuffers: false, bsonRegExp: false, useBigInt64: false, validation: { utf8: true } } as const;
const throughBson = (d: object) => BSON.deserialize(BSON.serialize(d, { checkKeys: false }), READ);

describe('JSON read back from BSON', () => {
  it('makes every DBRef the object it was written as, at any depth, inside its $id too', () => {
    const value = {
      top: { $ref: 'users', $id: 1 },
      list: [{ doc: { $ref: 'users', $id: { $ref: 'inner', $id: 'x' }, $db: 'app', note: [{ $ref: 'a', $id: null }] } }],
      plain: { $ref: 'no id' },
    };
    expect(throughBson(value)['top']).not.toEqual(value.top);
    expect(withoutDbRefs(throughBson(value))).toEqual(value);
  });

  it('gives a value with no DBRef back itself, and leaves dates and other values as they are', () => {
    const doc = throughBson({ at: new Date(0), list: [1, 'two', { three: null }] });
    expect(withoutDbRefs(doc)).toBe(doc);
    const at = new Date(0);
    expect((withoutDbRefs({ at, ref: throughBson({ r: { $ref: 'a', $id: 1 } })['r'] }) as { at: Date }).at).toBe(at);
  });
});

describe('JSON text in a document', () => {
  it('is parsed, and a field without text or with text that is not JSON is a corrupt document', () => {
    expect(parsedJson('{"$ref":"a","$id":"\\ud800"}', 'body')).toEqual({ $ref: 'a', $id: '\uD800' });
    expect(() => parsedJson('{"a":', 'body')).toThrow(CorruptDocument);
    expect(() => parsedJson(undefined, 'body')).toThrow(new CorruptDocument('body: no JSON text'));
  });
});
