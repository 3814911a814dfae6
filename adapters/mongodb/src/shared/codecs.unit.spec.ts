// Document mapping without a server: entity → document → entity is the identity, and a corrupt
// document is a typed error.
import { aCodeVersion, aLunaVersion, aScorer, aUser, anApiKey, anIntegration, anLlmVersion } from '@tracelight/testkit';
import { apiKeyFromDoc, integrationFromDoc, scorerFromDoc, scorerVersionFromDoc, scorerVersionToDoc, userFromDoc } from './codecs';
import { CorruptDocument, toDoc } from './run';

describe('document codecs', () => {
  it('round-trip every entity exactly', () => {
    const u = aUser();
    expect(userFromDoc(toDoc(u))).toEqual(u);
    const k = anApiKey(u.id, { expiresAt: new Date('2027-01-01T00:00:00.001Z') });
    expect(apiKeyFromDoc(toDoc(k))).toEqual(k);
    const i = anIntegration(u.id);
    expect(integrationFromDoc(toDoc(i))).toEqual(i);
    const s = aScorer(u.id);
    expect(scorerFromDoc(toDoc(s))).toEqual(s);
    const bare = aScorer(u.id, { defaults: {}, display: {} });
    expect(scorerFromDoc(toDoc(bare))).toEqual(bare);
    for (const v of [anLlmVersion(s, 1), aCodeVersion(s, 2), aLunaVersion(s, 3)]) {
      expect(scorerVersionFromDoc(scorerVersionToDoc(v))).toEqual(v);
    }
  });

  it('rejects a corrupt document with CorruptDocument', () => {
    const u = aUser();
    expect(() => userFromDoc({ ...toDoc(u), role: 'emperor' })).toThrow(CorruptDocument);
    expect(() => userFromDoc({ ...toDoc(u), createdAt: 'yesterday' })).toThrow(CorruptDocument);
    expect(() => userFromDoc(null)).toThrow(CorruptDocument);
  });
});
