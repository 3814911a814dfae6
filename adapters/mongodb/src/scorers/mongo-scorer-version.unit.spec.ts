// A scorer version as stored in MongoDB and read back, without a server: through BSON, as the driver
// sends and receives documents.
import { type ScorerVersion, versionKind } from '@tracelight/domain';
import { aCodeVersion, aLunaVersion, aScorer, aUser, anLlmVersion } from '@tracelight/testkit';
import { BSON } from 'mongodb';
import { scorerVersionFromDoc, scorerVersionToDoc } from '../shared/codecs';
import { CorruptDocument, toDoc } from '../shared/run';

const scorer = aScorer(aUser().id);
/** As the driver writes (checkKeys off) and reads a cursor's documents (its default BSON options, UTF-8 validated). */
const WRITE = { checkKeys: false, serializeFunctions: false, ignoreUndefined: false } as const;
const READ = { promoteLongs: true, promoteValues: true, promoteBuffers: false, bsonRegExp: false, useBigInt64: false, validation: { utf8: true } } as const;
const throughBson = (d: object) => BSON.deserialize(BSON.serialize(d, WRITE), READ);
const roundTrip = (v: ScorerVersion) => scorerVersionFromDoc(throughBson(scorerVersionToDoc(v)));
/** The document as written before the JSON form: the version's fields as BSON. */
const beforeTextForm = (v: ScorerVersion) => ({ ...toDoc(v), kind: versionKind(v) });

const withResponseSchema = (responseSchema: Record<string, unknown>): ScorerVersion => {
  const v = anLlmVersion(scorer, 1);
  const template = { ...v.chainPollTemplate!, responseSchema };
  return { ...v, chainPollTemplate: template, generatedScorer: { ...v.generatedScorer!, chainPollTemplate: template } };
};
const withVocabulary = (classNameToVocabIx: Record<string, unknown>): ScorerVersion => {
  const v = aLunaVersion(scorer, 1);
  return { ...v, finetunedScorer: { ...v.finetunedScorer!, classNameToVocabIx } };
};

const SHAPES: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ['a DBRef’s shape', { $ref: 'users', $id: 1 }],
  ['a DBRef’s shape with a dotted $ref, $db and another member', { note: 'x', $ref: 'app.users', $id: 'u1', $db: 'other' }],
  ['a DBRef’s shape deep inside', { type: 'object', properties: { ref: { anyOf: [{ $ref: '#/defs/a', $id: 'a' }] } } }],
  ['a NUL in a key', { 'a\u0000b': 1 }],
  ['a member named _bsontype', { _bsontype: 'ObjectId', id: 'x' }],
  ['half of a surrogate pair in a key and a value', { 'cut\uDC00': 'a\uD800b' }],
];

describe('a scorer version’s document', () => {
  it.each([
    ['an LLM version', anLlmVersion(scorer, 1)],
    ['a code version', aCodeVersion(scorer, 2)],
    ['a luna version', aLunaVersion(scorer, 3)],
  ])('comes back as it was stored: %s', (_, v) => {
    expect(roundTrip(v)).toEqual(v);
  });

  it.each(SHAPES)('keeps a response schema holding %s as it was sent', (_, schema) => {
    const v = withResponseSchema(schema);
    const read = roundTrip(v);
    expect(read).toEqual(v);
    expect(JSON.stringify(read.chainPollTemplate?.responseSchema)).toBe(JSON.stringify(schema));
    expect(JSON.stringify(read.generatedScorer?.chainPollTemplate.responseSchema)).toBe(JSON.stringify(schema));
  });

  it.each(SHAPES)('keeps a luna version’s class_name_to_vocab_ix holding %s as it was sent', (_, vocabulary) => {
    const v = withVocabulary(vocabulary);
    const read = roundTrip(v);
    expect(read).toEqual(v);
    expect(JSON.stringify(read.finetunedScorer?.classNameToVocabIx)).toBe(JSON.stringify(vocabulary));
  });

  it('keeps half of a surrogate pair in its texts (prompts, instructions, code, names) as it was sent', () => {
    const cut = 'cut \uD83D in half';
    const llm = anLlmVersion(scorer, 1);
    const template = { ...llm.chainPollTemplate!, template: cut, metricFewShotExamples: [{ generationPromptAndResponse: cut, evaluatingResponse: '\uDFFF' }] };
    const code = aCodeVersion(scorer, 2);
    const luna = aLunaVersion(scorer, 3);
    const versions: ScorerVersion[] = [
      { ...llm, modelName: cut, chainPollTemplate: template, generatedScorer: { ...llm.generatedScorer!, instructions: cut, userPrompt: cut, chainPollTemplate: template } },
      { ...code, registeredScorer: { ...code.registeredScorer!, code: `# ${cut}\n` } },
      { ...luna, finetunedScorer: { ...luna.finetunedScorer!, prompt: cut } },
    ];
    for (const v of versions) expect(roundTrip(v)).toEqual(v);
  });

  it('is its JSON text, as SQLite’s scorer_versions.body, beside the fields its indexes and queries read', () => {
    const v = anLlmVersion(scorer, 4);
    const stored = throughBson(scorerVersionToDoc(v));
    expect(stored).toEqual({ _id: v.id, scorerId: v.scorerId, version: 4, kind: 'llm', body: JSON.stringify(v) });
    expect(throughBson(scorerVersionToDoc({ ...v, generatedScorer: null, chainPollTemplate: null }))['kind']).toBeNull();
  });

  it('reads a body that is not the JSON of a version as a corrupt document, not a crash', () => {
    const stored = throughBson(scorerVersionToDoc(aCodeVersion(scorer, 1)));
    expect(() => scorerVersionFromDoc({ ...stored, body: '{"id":' })).toThrow(CorruptDocument);
    expect(() => scorerVersionFromDoc({ ...stored, body: 42 })).toThrow(CorruptDocument);
    expect(() => scorerVersionFromDoc({ ...stored, body: '{"id":"x"}' })).toThrow(CorruptDocument);
  });

  describe('written before', () => {
    it('reads a version stored as BSON fields, each kind', () => {
      for (const v of [anLlmVersion(scorer, 1), aCodeVersion(scorer, 2), aLunaVersion(scorer, 3)]) expect(scorerVersionFromDoc(throughBson(beforeTextForm(v)))).toEqual(v);
    });

    it('reads a response schema or vocabulary shaped like a DBRef, which BSON gave back as one, as an object again', () => {
      for (const shape of [{ $ref: 'users', $id: 1 }, { note: 'x', $ref: 'users', $id: 'u1', $db: 'app' }, { properties: { r: [{ $ref: '#/a', $id: 'a' }] } }]) {
        for (const v of [withResponseSchema(shape), withVocabulary(shape)]) expect(scorerVersionFromDoc(throughBson(beforeTextForm(v)))).toEqual(v);
      }
    });
  });
});
