// The text index's terms and queries, without a database.
import { foldCase } from '@tracelight/domain';
import * as fc from 'fast-check';
import { TermCollector, needleTerms, runTerm, textQuery } from './text-terms';

const termsOf = (...texts: Array<string | null>): string[] => {
  const c = new TermCollector();
  for (const t of texts) c.add(t);
  const out = c.take();
  return out === '' ? [] : out.split(' ').sort();
};

describe('the terms of some text', () => {
  it('are the distinct trigrams of its words, case-folded, none across a separator', () => {
    expect(termsOf('Hello, hello WORLD_ok')).toEqual(['ell', 'hel', 'llo', 'orl', 'rld', 'wor']);
    expect(termsOf('{"role":"user","content":"Where is ORD-123456?"}')).toEqual(
      ['123', '234', '345', '456', 'con', 'ent', 'ere', 'her', 'nte', 'ont', 'ord', 'ole', 'rol', 'ser', 'ten', 'use', 'whe'].sort(),
    );
  });

  it('fold words beyond ASCII by the domain’s rule, by code point', () => {
    expect(termsOf('Ünïcödé ΣΊΣΥΦΟΣ 😀ab')).toEqual(termsOf(foldCase('Ünïcödé ΣΊΣΥΦΟΣ 😀ab')));
    expect(termsOf('Café')).toEqual(['afé', 'caf']);
    expect(termsOf('naïve-x')).toEqual(['aïv', 'naï', 'ïve']);
  });

  it('are none for null, an empty text or words shorter than three characters', () => {
    expect(termsOf(null, '', 'a bc de f.g')).toEqual([]);
  });

  it('are gathered once over a group of texts, and start afresh after take', () => {
    const c = new TermCollector();
    c.add('abcd');
    c.add('bcde abcd');
    expect(c.take().split(' ').sort()).toEqual(['abc', 'bcd', 'cde']);
    c.add('abc');
    expect(c.take()).toBe('abc');
  });

  it('hold every term of any needle a text contains, whatever the case (the index finds every match)', () => {
    const text = fc.string({ unit: fc.constantFrom(...'abcAB é É-_ΣσςK'.split('')), maxLength: 30 });
    fc.assert(
      fc.property(text, fc.nat(), fc.nat(), (t, i, j) => {
        const folded = foldCase(t);
        const needle = folded.slice(Math.min(i, j) % (folded.length + 1), Math.max(i, j) % (folded.length + 1) || undefined);
        const held = new Set(termsOf(t));
        for (const term of needleTerms(needle)) expect(held.has(term)).toBe(true);
      }),
    );
  });
});

describe('the index query', () => {
  it('names the run and every term of a short needle', () => {
    expect(textQuery('0190b7a8-0000-7000-8000-00000000000A', ['Refund'])).toBe(`"r0190b7a800007000800000000000000a" AND (("ref" AND "efu" AND "fun" AND "und"))`);
    expect(runTerm('R-1')).toBe('rr1');
  });

  it('names eight terms spread over a long needle, the first and the last among them', () => {
    const q = textQuery('r', ['abcdefghijklmnopqrstuvwxyz'])!;
    const terms = q.match(/"[a-z]{3}"/g)!;
    expect(terms).toHaveLength(8);
    expect(terms[0]).toBe('"abc"');
    expect(terms[7]).toBe('"xyz"');
  });

  it('takes any of several needles', () => {
    expect(textQuery('r', ['abc', 'xyzw'])).toBe('"rr" AND (("abc") OR ("xyz" AND "yzw"))');
  });

  it('is none when a needle has no term: the search then reads the run', () => {
    expect(textQuery('r', ['ab'])).toBeNull();
    expect(textQuery('r', ['abc', 'a b c'])).toBeNull();
    expect(textQuery('r', ['--'])).toBeNull();
    expect(textQuery('r', [])).toBeNull();
  });
});
