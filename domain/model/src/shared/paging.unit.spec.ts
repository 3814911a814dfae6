import { pageFromFound, takePage, takePageAsync } from './paging';

describe('pageFromFound', () => {
  it('starts the next page right after a page cut short by its size budget', () => {
    expect(pageFromFound({ items: [1, 2], more: true }, { startingToken: 4, limit: 10 })).toEqual({ items: [1, 2], startingToken: 4, limit: 10, nextStartingToken: 6 });
  });
  it('ends with null when nothing follows', () => {
    expect(pageFromFound({ items: [1], more: false }, { startingToken: 0, limit: 10 }).nextStartingToken).toBeNull();
  });
});

describe('takePage', () => {
  // Rows are their own size; decoding doubles them, to show only kept rows are decoded.
  const cut = (limit: number, maxBytes: number) => ({ limit, maxBytes, sizeOf: (n: number) => n });
  const decoded: number[] = [];
  const decode = (n: number) => {
    decoded.push(n);
    return n * 2;
  };

  it('ends at the limit, a row beyond it saying that more follow', () => {
    expect(takePage([1, 1, 1], cut(2, 100), decode)).toEqual({ items: [2, 2], more: true });
    expect(takePage([1, 1], cut(2, 100), decode)).toEqual({ items: [2, 2], more: false });
  });

  it('ends after the row that reaches the budget, and always holds one row', () => {
    decoded.length = 0;
    expect(takePage([4, 4, 4, 4], cut(10, 6), decode)).toEqual({ items: [8, 8], more: true });
    expect(decoded).toEqual([4, 4]);
    expect(takePage([50, 1], cut(10, 6), decode)).toEqual({ items: [100], more: true });
    expect(takePage([4, 4], cut(10, 6), decode)).toEqual({ items: [8, 8], more: false });
    expect(takePage([], cut(10, 6), decode)).toEqual({ items: [], more: false });
  });

  it('cuts rows read asynchronously by the same rule, and stops reading there', async () => {
    let read = 0;
    async function* rows() {
      for (const n of [4, 4, 4, 4]) {
        read += 1;
        yield n;
      }
    }
    expect(await takePageAsync(rows(), cut(10, 6), decode)).toEqual({ items: [8, 8], more: true });
    expect(read).toBe(3);
  });
});
