// How a failure of SQLite becomes a domain error.
import * as vm from 'node:vm';
import Database from 'better-sqlite3';
import { storageFailure } from './run';

describe('storageFailure', () => {
  it("gives SQLite's own message, also for an error of another realm (as better-sqlite3's are in every Jest test file but a worker's first)", () => {
    let thrown: unknown;
    try {
      new Database(':memory:').prepare('SELECT nothing_here');
    } catch (e) {
      thrown = e;
    }
    const otherRealm = vm.runInNewContext('Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" })');
    expect(otherRealm instanceof Error).toBe(false);
    expect([storageFailure(thrown), storageFailure(otherRealm)]).toEqual([
      expect.objectContaining({ _tag: 'Unavailable', message: 'no such column: nothing_here' }),
      expect.objectContaining({ _tag: 'Unavailable', message: 'database is locked' }),
    ]);
  });

  it('tells a full disk or quota by the code alone', () => {
    const full = vm.runInNewContext('Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" })');
    expect(storageFailure(full)).toEqual(expect.objectContaining({ _tag: 'StorageFull' }));
  });
});
