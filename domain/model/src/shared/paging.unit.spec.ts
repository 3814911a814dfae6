import { pageFromFound } from './paging';

describe('pageFromFound', () => {
  it('starts the next page right after a page cut short by its size budget', () => {
    expect(pageFromFound([1, 2], true, { startingToken: 4, limit: 10 })).toEqual({ items: [1, 2], startingToken: 4, limit: 10, nextStartingToken: 6 });
  });
  it('ends with null when nothing follows', () => {
    expect(pageFromFound([1], false, { startingToken: 0, limit: 10 }).nextStartingToken).toBeNull();
  });
});
