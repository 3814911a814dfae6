// The usual form's quick reading of a date-time answers as the full parser does, for any text of that
// form, in range or not, and for texts near it.
import * as fc from 'fast-check';
import { parseDateTime, parseDateTimeFully } from './date-time';

const same = (s: string) => {
  const [quick, full] = [parseDateTime(s), parseDateTimeFully(s)];
  const plain = (p: typeof quick) => (p.ok ? { ok: true, at: p.date.getTime(), aware: p.aware, micros: p.micros } : p);
  expect(plain(quick)).toEqual(plain(full));
};

const digits = (n: number) => fc.string({ unit: fc.constantFrom(...'0123456789'.split('')), minLength: n, maxLength: n });
const usual = fc
  .tuple(
    fc.oneof(digits(4), fc.constantFrom('0000', '0099', '0100', '1970', '2000', '2024', '2100', '9999')),
    fc.oneof(digits(2), fc.constantFrom('00', '01', '02', '12', '13')),
    fc.oneof(digits(2), fc.constantFrom('00', '01', '28', '29', '30', '31', '32')),
    fc.oneof(digits(2), fc.constantFrom('00', '23', '24')),
    fc.oneof(digits(2), fc.constantFrom('00', '59', '60')),
    fc.oneof(digits(2), fc.constantFrom('00', '59', '60')),
    fc.oneof(fc.constant(''), fc.integer({ min: 1, max: 12 }).chain((n) => digits(n).map((d) => `.${d}`))),
    fc.oneof(fc.constant('Z'), fc.tuple(fc.constantFrom('+', '-'), fc.oneof(digits(2), fc.constantFrom('00', '23', '24')), fc.oneof(digits(2), fc.constantFrom('00', '59', '60'))).map(([s, h, m]) => `${s}${h}:${m}`)),
  )
  .map(([y, mo, d, h, mi, s, f, z]) => `${y}-${mo}-${d}T${h}:${mi}:${s}${f}${z}`);

describe('a date-time of the usual form, read quickly', () => {
  it('answers as the full parser for any such text, in range or not', () => {
    fc.assert(fc.property(usual, same), { numRuns: 2000 });
  });

  it('answers as the full parser for texts near the form (another separator, a cut, an extra character)', () => {
    const near = fc.tuple(usual, fc.nat(40), fc.constantFrom('', 't', 'z', ' ', ',', ':', '5', '+0000', 'x')).map(([s, at, put]) => s.slice(0, at % (s.length + 1)) + put + s.slice(at % (s.length + 1) + 1));
    fc.assert(fc.property(near, same), { numRuns: 2000 });
  });

  it('keeps milliseconds and microseconds apart, and truncates digits past them', () => {
    for (const [s, at, micros] of [
      ['2026-01-02T03:04:05Z', '2026-01-02T03:04:05.000Z', 0],
      ['2026-01-02T03:04:05.1Z', '2026-01-02T03:04:05.100Z', 0],
      ['2026-01-02T03:04:05.123456789Z', '2026-01-02T03:04:05.123Z', 456],
      ['2026-01-02T03:04:05.1234+02:00', '2026-01-02T01:04:05.123Z', 400],
    ] as const) {
      const p = parseDateTime(s);
      expect(p.ok && { at: p.date.toISOString(), micros: p.micros }).toEqual({ at, micros });
    }
  });
});
