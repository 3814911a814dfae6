import { PendingCalls } from './pending-calls';

describe('PendingCalls', () => {
  it('hands back what waits for each call once, under the id add gave', () => {
    const calls = new PendingCalls<{ name: string }>();
    const a = calls.add({ name: 'a' });
    const b = calls.add({ name: 'b' });
    expect(a).not.toBe(b);
    expect(calls.size).toBe(2);
    expect(calls.take(b)).toEqual({ name: 'b' });
    expect(calls.take(b)).toBeUndefined();
    expect(calls.take(a)).toEqual({ name: 'a' });
    expect(calls.size).toBe(0);
  });

  it('gives the ids of answered calls out again, so they stay as few as the calls ever in flight together', () => {
    const calls = new PendingCalls<object>();
    const seen = new Set<number>();
    const inFlight: number[] = [];
    for (let i = 0; i < 10_000; i++) {
      inFlight.push(calls.add({ i }));
      if (inFlight.length > 5) calls.take(inFlight.shift()!);
      for (const id of inFlight) seen.add(id);
    }
    expect(calls.size).toBe(5);
    expect(Math.max(...seen)).toBeLessThan(6);
  });

  it('never gives an id that is pending to another call', () => {
    const calls = new PendingCalls<{ n: number }>();
    const ids = Array.from({ length: 50 }, (_, n) => calls.add({ n }));
    for (const id of ids.filter((_, n) => n % 3 === 0)) calls.take(id);
    const more = Array.from({ length: 30 }, (_, n) => calls.add({ n: 100 + n }));
    const pending = [...ids.filter((_, n) => n % 3 !== 0), ...more];
    expect(new Set(pending).size).toBe(pending.length);
    expect(calls.size).toBe(pending.length);
  });

  it('answers undefined for ids it never gave, and those do not disturb the pending calls', () => {
    const calls = new PendingCalls<object>();
    const id = calls.add({});
    for (const bad of [-1, 1.5, Number.NaN, 7, 2 ** 40]) expect(calls.take(bad)).toBeUndefined();
    expect(calls.size).toBe(1);
    expect(calls.add({})).not.toBe(id);
  });

  it('takeAll hands back every pending call and forgets them', () => {
    const calls = new PendingCalls<{ n: number }>();
    const ids = [1, 2, 3].map((n) => calls.add({ n }));
    calls.take(ids[1]!);
    expect(calls.takeAll().map((w) => w.n)).toEqual([1, 3]);
    expect(calls.size).toBe(0);
    expect(calls.take(ids[0]!)).toBeUndefined();
    expect(calls.add({ n: 4 })).toBe(0);
  });
});
