// How `run` answers what the driver throws, for failures that need no server: BSON refuses them
// before anything is sent.
import { BSON } from 'mongodb';
import * as E from 'fp-ts/Either';
import { run } from './run';

const outcomeOf = (doc: Record<string, unknown>) => run(async () => BSON.serialize(doc))();

describe('run', () => {
  it('answers a JSON object BSON takes for a BSON value (a _bsontype member) as Invalid, which is not retried, not Unavailable', async () => {
    for (const input of [{ _bsontype: 'anything' }, { nested: [{ _bsontype: 'ObjectId', id: 'x' }] }])
      expect(await outcomeOf({ input })).toEqual(
        E.left({ _tag: 'Invalid', path: ['body'], message: 'MongoDB cannot store a JSON object with a member named _bsontype (its driver takes such an object for a BSON value)' }),
      );
  });

  it('answers a NUL in a key as Invalid, and stores what BSON takes', async () => {
    expect(await outcomeOf({ input: { 'a\u0000b': 1 } })).toEqual(E.left(expect.objectContaining({ _tag: 'Invalid' })));
    expect(E.isRight(await outcomeOf({ input: { _bsontypo: 'x', $ref: 'r' } }))).toBe(true);
  });
});
