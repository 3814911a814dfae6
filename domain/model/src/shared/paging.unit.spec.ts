import { pageFromFound, pageFromOverfetch } from './paging';

describe('pageFromOverfetch', () => {
  it('points at the next offset when the extra row came back', () => {
    expect(pageFromOverfetch([1, 2, 3], { startingToken: 4, limit: 2 })).toEqual({
      items: [1, 2],
      startingToken: 4,
      limit: 2,
      nextStartingToken: 6,
    });
  });
  it('ends with null when it did not', () => {
    expect(pageFromOverfetch([1, 2], { startingToken: 4, limit: 2 }).nextStartingToken).toBeNull();
    expect(pageFromOverfetch([], { startingToken: 0, limit: 100 })).toEqual({ items: [], startingToken: 0, limit: 100, nextStartingToken: null });
  });
});

describe('pageFromFound', () => {
  it('starts the next page right after a page cut short by its size budget', () => {
    expect(pageFromFound([1, 2], true, { startingToken: 4, limit: 10 })).toEqual({ items: [1, 2], startingToken: 4, limit: 10, nextStartingToken: 6 });
  });
  it('ends with null when nothing follows', () => {
    expect(pageFromFound([1], false, { startingToken: 0, limit: 10 }).nextStartingToken).toBeNull();
  });
});
