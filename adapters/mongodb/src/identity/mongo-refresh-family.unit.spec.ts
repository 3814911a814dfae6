// A refresh family as stored in MongoDB and read back, without a server: through BSON, as the driver
// sends and receives documents; and the rotation's compare-and-set as the filter and update it sends.
import { aRefreshFamily, aUser, at } from '@tracelight/testkit';
import { type ApiKeyId, asId } from '@tracelight/domain';
import { BSON } from 'mongodb';
import { randomUUID } from 'node:crypto';
import { refreshFamilyFromDoc } from '../shared/codecs';
import { refreshFamilyToDocument, rotation } from './mongo-refresh-family.repository';

const throughBson = (d: object) => BSON.deserialize(BSON.serialize(d));
const owner = aUser().id;

describe('a refresh family’s document', () => {
  it.each([
    ['as signed in', aRefreshFamily(owner)],
    ['rotated, begun with an API key, revoked', aRefreshFamily(owner, { generation: 12, rotatedAt: at('2026-05-05T01:02:03.004Z'), revokedAt: at('2026-05-05T01:02:04.005Z'), apiKeyId: asId<ApiKeyId>(randomUUID()) })],
  ])('comes back as it was stored, %s', (_, family) => {
    const stored = throughBson(refreshFamilyToDocument(family));
    expect(stored['_id']).toBe(family.id);
    expect(refreshFamilyFromDoc(stored)).toEqual(family);
  });

  it('is refused when it does not decode (a generation that is not a whole number)', () => {
    expect(() => refreshFamilyFromDoc(throughBson({ ...refreshFamilyToDocument(aRefreshFamily(owner)), generation: 1.5 }))).toThrow(/generation/);
  });
});

describe('a rotation', () => {
  it('matches the family only at the generation spent and not revoked, and moves it on by one', () => {
    const family = aRefreshFamily(owner, { generation: 3 });
    const when = at('2026-05-05T01:02:03.004Z');
    expect(rotation(family.id, 3, when)).toEqual({
      filter: { _id: family.id, generation: 3, revokedAt: null },
      update: { $inc: { generation: 1 }, $set: { rotatedAt: when } },
    });
  });
});
