import { isValidThreshold } from './scorer';

describe('isValidThreshold', () => {
  const levels = (n: number) => Array.from({ length: n }, (_, i) => `level ${i}`);
  it('takes finite buckets in ascending order with one more display level than buckets', () => {
    expect(isValidThreshold({ buckets: [0.2, 0.5, 0.5, 0.9], displayValueLevels: levels(5), inverted: false })).toBe(true);
    expect(isValidThreshold({ buckets: [], displayValueLevels: levels(1), inverted: true })).toBe(true);
  });
  it('refuses buckets out of order, a level too many or too few, and a bucket that is not finite (an embedder calling the domain has no JSON reader to refuse it)', () => {
    expect(isValidThreshold({ buckets: [0.5, 0.2], displayValueLevels: levels(3), inverted: false })).toBe(false);
    expect(isValidThreshold({ buckets: [0.5], displayValueLevels: levels(3), inverted: false })).toBe(false);
    expect(isValidThreshold({ buckets: [0.5], displayValueLevels: levels(1), inverted: false })).toBe(false);
    for (const b of [Infinity, -Infinity, NaN]) expect([b, isValidThreshold({ buckets: [0, b], displayValueLevels: levels(3), inverted: false })]).toEqual([b, false]);
  });
});
