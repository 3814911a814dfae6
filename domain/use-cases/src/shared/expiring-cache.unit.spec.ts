import { ExpiringCache } from './expiring-cache';

describe('ExpiringCache', () => {
  it('answers until the entry expires, then forgets it', () => {
    const cache = new ExpiringCache<string>(1000);
    cache.set('k', 'v', 5000);
    expect(cache.get('k', 5000)).toBe('v');
    expect(cache.get('k', 5999)).toBe('v');
    expect(cache.get('k', 6000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps nothing with a TTL of 0', () => {
    const cache = new ExpiringCache<string>(0);
    cache.set('k', 'v', 0);
    expect(cache.get('k', 0)).toBeUndefined();
  });

  it('drops the entry stored longest ago at its bound', () => {
    const cache = new ExpiringCache<number>(1000, 2);
    cache.set('a', 1, 0);
    cache.set('b', 2, 1);
    cache.set('c', 3, 2);
    expect([cache.get('a', 3), cache.get('b', 3), cache.get('c', 3)]).toEqual([undefined, 2, 3]);
    // Storing a key again makes it the newest.
    cache.set('b', 20, 4);
    cache.set('d', 4, 5);
    expect([cache.get('b', 6), cache.get('c', 6), cache.get('d', 6)]).toEqual([20, undefined, 4]);
  });

  it('updates a value without extending its life, and never revives a missing key', () => {
    const cache = new ExpiringCache<string>(1000);
    cache.set('k', 'v', 0);
    cache.update('k', 'w');
    expect(cache.get('k', 999)).toBe('w');
    expect(cache.get('k', 1000)).toBeUndefined();
    cache.update('gone', 'x');
    expect(cache.get('gone', 0)).toBeUndefined();
  });

  it('deletes every entry that matches', () => {
    const cache = new ExpiringCache<{ id: string }>(1000);
    cache.set('h1', { id: 'a' }, 0);
    cache.set('h2', { id: 'b' }, 0);
    cache.set('h3', { id: 'a' }, 0);
    cache.deleteWhere((v) => v.id === 'a');
    expect([cache.get('h1', 1), cache.get('h2', 1), cache.get('h3', 1)]).toEqual([undefined, { id: 'b' }, undefined]);
  });

  it('keeps the total weight within its budget, oldest out first, and refuses a value heavier than all of it', () => {
    const cache = new ExpiringCache<string>(Number.POSITIVE_INFINITY, 100, { weigh: (v) => v.length, maxWeight: 10 });
    cache.set('a', 'aaaa', 0);
    cache.set('b', 'bbbb', 0);
    expect(cache.weight).toBe(8);
    cache.set('c', 'cccccc', 0);
    // 8 + 6 is over 10: 'a' goes, which is enough.
    expect([cache.get('a', 1), cache.get('b', 1), cache.get('c', 1)]).toEqual([undefined, 'bbbb', 'cccccc']);
    expect(cache.weight).toBe(10);
    cache.set('d', 'ddddddd', 0);
    // 7 more needs both older entries gone.
    expect([cache.get('b', 1), cache.get('c', 1), cache.get('d', 1)]).toEqual([undefined, undefined, 'ddddddd']);
    cache.set('huge', 'x'.repeat(11), 0);
    expect(cache.get('huge', 1)).toBeUndefined();
    expect(cache.get('d', 1)).toBe('ddddddd');
    cache.update('d', 'dd');
    cache.deleteWhere((v) => v === 'nothing');
    expect(cache.weight).toBe(2);
    cache.deleteWhere((v) => v === 'dd');
    expect([cache.size, cache.weight]).toEqual([0, 0]);
  });

  it('gives back the weight of an entry that expired or was stored again', () => {
    const cache = new ExpiringCache<string>(10, 100, { weigh: (v) => v.length, maxWeight: 10 });
    cache.set('k', 'vvvv', 0);
    cache.set('k', 'vv', 0);
    expect(cache.weight).toBe(2);
    expect(cache.get('k', 10)).toBeUndefined();
    expect(cache.weight).toBe(0);
  });
});
