// How `run` answers what the driver throws, for failures that need no server: BSON refuses them
// before anything is sent.
import { BSON, MongoServerError } from 'mongodb';
import * as E from 'fp-ts/Either';
import { run } from './run';

const outcomeOf = (doc: Record<string, unknown>) => run(async () => BSON.serialize(doc))();

describe('run', () => {
  it('answers a JSON object BSON takes for a BSON value (a _bsontype member) as Invalid, which is not retried, not Unavailable', async () => {
    for (const input of [{ _bsontype: 'anything' }, { nested: [{ _bsontype: 'ObjectId', id: 'x' }] }])
      expect(await outcomeOf({ input })).toEqual(
        E.left({ _tag: 'Invalid', path: [], message: 'MongoDB cannot store a JSON object with a member named _bsontype (its driver takes such an object for a BSON value)' }),
      );
  });

  it('answers a NUL in a key as Invalid, and stores what BSON takes', async () => {
    expect(await outcomeOf({ input: { 'a\u0000b': 1 } })).toEqual(E.left(expect.objectContaining({ _tag: 'Invalid' })));
    expect(E.isRight(await outcomeOf({ input: { _bsontypo: 'x', $ref: 'r' } }))).toBe(true);
  });

  it('answers an update past the 16 MiB limit (17419, as MongoDB 7 names it) and a transaction too large for the cache as Invalid, not Unavailable', async () => {
    const refused = (error: Record<string, unknown>) =>
      run(async () => {
        throw new MongoServerError({ ok: 0, ...error } as never);
      })();
    expect(await refused({ code: 17419, codeName: 'Location17419', errmsg: 'Resulting document after update is larger than 16777216' })).toEqual(
      E.left({ _tag: 'Invalid', path: [], message: 'a record is larger than MongoDB’s 16 MiB document limit' }),
    );
    expect(await refused({ codeName: 'TransactionTooLargeForCache', errmsg: 'Transaction exceeded the cache size' })).toEqual(
      E.left(expect.objectContaining({ _tag: 'Invalid', path: [] })),
    );
    expect(await refused({ code: 91, codeName: 'ShutdownInProgress', errmsg: 'The server is in quiesce mode and will shut down' })).toEqual(
      E.left(expect.objectContaining({ _tag: 'Unavailable' })),
    );
  });

  it('answers no room on the server’s disk (OutOfDiskSpace) as StorageFull, which the black-box suites show on SQLite alone', async () => {
    const refused = run(async () => {
      throw new MongoServerError({ ok: 0, code: 14031, codeName: 'OutOfDiskSpace', errmsg: 'Both the dbpath and the journal have less than 500 MB free' } as never);
    });
    expect(await refused()).toEqual(E.left({ _tag: 'StorageFull', message: 'MongoDB: OutOfDiskSpace' }));
  });

  it('answers a document past the serializer’s 17 MiB buffer (its RangeError, thrown before anything is sent) as Invalid, not Unavailable', async () => {
    // A field after the large one, as a command always has: the write past the buffer's end throws.
    expect(await outcomeOf({ input: 'x'.repeat(17.5 * 1024 * 1024), ordered: true })).toEqual(
      E.left({ _tag: 'Invalid', path: [], message: 'a record is larger than MongoDB’s 16 MiB document limit' }),
    );
    // The same error from a Buffer read (a malformed reply) is not the request's doing.
    expect(await run(async () => Buffer.alloc(4).readInt32LE(8))()).toEqual(E.left(expect.objectContaining({ _tag: 'Unavailable' })));
  });

  it('answers a stored document that is not UTF-8 (BSON refuses to read it) as a corrupt document, not as the request’s fault', async () => {
    const stored = Buffer.from(BSON.serialize({ s: 'ab' }));
    stored[stored.indexOf('ab') + 1] = 0xff; // one byte of the string no longer UTF-8
    const read = await run(async () => BSON.deserialize(stored, { validation: { utf8: true } }))();
    expect(read).toEqual(E.left({ _tag: 'Unavailable', message: 'corrupt document: Invalid UTF-8 string in BSON document' }));
  });
});
