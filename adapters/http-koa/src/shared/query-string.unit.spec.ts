// The query string as routes read it: what Koa's ctx.query gives, in work linear in its parameters.
import { queryOf } from './query-string';
// Koa's own parser, the one ctx.query uses.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const koaSearchParams = require('koa/lib/search-params.js') as { parse: (s: string) => Record<string, unknown> };

describe('queryOf', () => {
  it('reads every query string as Koa’s ctx.query does', () => {
    for (const q of ['', 'a=1', 'a=1&a=2&b=', 'limit=2&limit=3&limit=4', '__proto__=x&constructor=y&toString=z', 'a&a&b=%20c+d', 'x=%E0%A4%A', 'a[]=1&a[]=2', '=v&&&', 'é=ü&%C3%A9=2']) {
      const ours = queryOf(q);
      const koa = koaSearchParams.parse(q);
      expect([q, ours, Object.getPrototypeOf(ours), Object.keys(ours)]).toEqual([q, koa, Object.getPrototypeOf(koa), Object.keys(koa)]);
    }
    expect(Object.getOwnPropertyDescriptor(queryOf('__proto__=x'), '__proto__')?.value).toBe('x');
  });

  it('visits each parameter a bounded number of times: 8,000 of them (a 16 KB query) are read in one pass', () => {
    // Every entry URLSearchParams hands out or looks through, counted: its iterators yield one entry a
    // step, and get/getAll/has look through them all.
    const proto = URLSearchParams.prototype as unknown as Record<string | symbol, (...a: unknown[]) => unknown>;
    const originals = new Map<string | symbol, (...a: unknown[]) => unknown>();
    let visits = 0;
    for (const name of ['entries', 'keys', 'values', Symbol.iterator] as const) {
      const original = proto[name]!;
      originals.set(name, original);
      proto[name] = function (this: URLSearchParams, ...a: unknown[]) {
        const inner = original.apply(this, a) as Iterator<unknown>;
        return { [Symbol.iterator]() { return this; }, next: () => { const step = inner.next(); if (!step.done) visits++; return step; } };
      };
    }
    for (const name of ['get', 'getAll', 'has'] as const) {
      const original = proto[name]!;
      originals.set(name, original);
      proto[name] = function (this: URLSearchParams, ...a: unknown[]) {
        visits += this.size;
        return original.apply(this, a);
      };
    }
    try {
      const query = queryOf(Array.from({ length: 8_000 }, (_, i) => `p${i % 4_000}=${i}`).join('&'));
      expect(Object.keys(query)).toHaveLength(4_000);
      expect(query['p0']).toEqual(['0', '4000']);
    } finally {
      for (const [name, original] of originals) proto[name] = original;
    }
    // Koa's parser looked each name up among all 8,000: 64 million visits.
    expect(visits).toBeLessThanOrEqual(2 * 8_000);
  });
});
