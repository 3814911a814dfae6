// The record index's terms and queries, without a database.
import { foldCase } from '@tracelight/domain';
import * as fc from 'fast-check';
import { recordTerms } from './terms-index';
import { TermCollector, flagQuery, flagTerm, labelQuery, labelTerm, metricTextQuery, needleTerms, numberPlace, numberQuery, numberTerm, runTerm, tagQuery, tagTerm, textQuery } from './record-terms';

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

  it('are exactly the trigrams of the ASCII words, none across a separator (the scan shifts separators in, take leaves them out)', () => {
    const reference = (t: string): string[] =>
      [...new Set(t.toLowerCase().split(/[^a-z0-9]+/).flatMap((w) => Array.from({ length: Math.max(0, w.length - 2) }, (_, k) => w.slice(k, k + 3))))].sort();
    // Up to 150 characters: a text of 64 or more is read from a copy as bytes, a shorter one as a string.
    const text = fc.string({ unit: fc.constantFrom(...'abzAZ09 -_"\n.,:{}'.split('')), maxLength: 150, size: 'max' });
    fc.assert(fc.property(fc.array(text, { maxLength: 4 }), (ts) => expect(termsOf(...ts)).toEqual(reference(ts.join(' ')))));
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

describe('a number’s place', () => {
  it('orders as numbers do, and falls in the same place for the same number', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true }), fc.double({ noNaN: true }), (a, b) => {
        if (a < b) expect(numberPlace(a)).toBeLessThanOrEqual(numberPlace(b));
        if (a === b) expect(numberPlace(a)).toBe(numberPlace(b));
      }),
    );
  });

  it('is a quarter of an octave wide', () => {
    expect(numberPlace(400)).toBe(numberPlace(440));
    expect(numberPlace(400)).not.toBe(numberPlace(500));
    expect(numberPlace(-1)).toBeLessThan(numberPlace(0));
    expect(numberPlace(0)).toBeLessThan(numberPlace(Number.MIN_VALUE));
  });
});

describe('a number query', () => {
  /** Whether a term is among the alternatives of a query (whole, or by a prefix ending in *). */
  const covers = (query: string, term: string): boolean =>
    [...query.matchAll(/"([0-9a-z]+)"(\*?)/g)].slice(1).some(([, t, star]) => (star ? term.startsWith(t!) : term === t));

  it('covers the places from its low to its high bound, and no other', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true }), fc.double({ noNaN: true }), fc.double({ noNaN: true }), (x, y, v) => {
        const [low, high] = x <= y ? [x, y] : [y, x];
        const q = numberQuery('r', 'metrics/tokens', low, high);
        const inPlace = numberPlace(v) >= numberPlace(low) && numberPlace(v) <= numberPlace(high);
        expect(covers(q, numberTerm('metrics/tokens', v))).toBe(inPlace);
        // Another column's term is never covered.
        expect(covers(q, numberTerm('metrics/other', v))).toBe(false);
      }),
    );
  });

  it('takes one bound alone, and matches nothing for a reversed range', () => {
    expect(covers(numberQuery('r', 'status_code', 500, undefined), numberTerm('status_code', 503))).toBe(true);
    expect(covers(numberQuery('r', 'status_code', 500, undefined), numberTerm('status_code', 200))).toBe(false);
    expect(covers(numberQuery('r', 'status_code', undefined, 300), numberTerm('status_code', 200))).toBe(true);
    expect(numberQuery('r', 'status_code', 10, 1)).toBe('"rr" AND ("nothing")');
  });

  it('names few terms whatever the range: prefixes for whole blocks of places (at most 15 a digit at each end)', () => {
    fc.assert(
      fc.property(fc.option(fc.double({ noNaN: true })), fc.option(fc.double({ noNaN: true })), (a, b) => {
        const q = numberQuery('r', 'metrics/tokens', a ?? undefined, b ?? undefined);
        expect(q.match(/"[0-9a-z]+"/g)!.length - 1).toBeLessThanOrEqual(2 * 15 * 3 + 1);
      }),
    );
  });
});

describe('tags', () => {
  it('have a term each, exact (case and all), and a query for any of several', () => {
    expect(tagTerm('Prod')).not.toBe(tagTerm('prod'));
    expect(tagTerm('prod')).toMatch(/^g[0-9a-f]{16}$/);
    expect(tagQuery('r', ['a', 'b', 'a'])).toBe(`"rr" AND ("${tagTerm('a')}" OR "${tagTerm('b')}")`);
    expect(tagQuery('r', [])).toBe('"rr" AND ("nothing")');
  });
});

describe('a metric’s labels and booleans', () => {
  /** The terms and prefixes a query names, past the run's. */
  const alternatives = (query: string): string[] => [...query.matchAll(/"([0-9a-z]+)"(\*?)/g)].slice(1).map(([, t, star]) => `${t!}${star!}`);

  it('have a term each, the label case-folded, the metric named in it', () => {
    expect(labelTerm('judge', 'Toxic')).toBe(labelTerm('judge', 'TOXIC'));
    expect(labelTerm('judge', 'Σίσυφος')).toBe(labelTerm('judge', foldCase('ΣΊΣΥΦΟΣ')));
    expect(labelTerm('judge', 'toxic')).not.toBe(labelTerm('other', 'toxic'));
    expect(labelTerm('judge', 'toxic')).not.toBe(labelTerm('judge', 'toxi'));
    expect(labelTerm('judge', 'x'.repeat(5000))).toMatch(/^l[0-9a-f]{16}$/);
    expect(flagTerm('judge', true)).not.toBe(flagTerm('judge', false));
    expect(flagTerm('judge', true)).not.toBe(flagTerm('other', true));
  });

  it('are asked for by the filters on the metric: a label, any of several, a boolean', () => {
    expect(labelQuery('r', 'judge', ['a', 'B', 'a'])).toBe(`"rr" AND ("${labelTerm('judge', 'a')}" OR "${labelTerm('judge', 'B')}")`);
    expect(flagQuery('r', 'judge', false)).toBe(`"rr" AND ("${flagTerm('judge', false)}")`);
  });

  it('a text filter asks for the label, and for a number where the text is one, the places about it', () => {
    expect(alternatives(metricTextQuery('r', 'judge', ['Good']))).toEqual([labelTerm('judge', 'good')]);
    const covered = (query: string, term: string) => alternatives(query).some((a) => (a.endsWith('*') ? term.startsWith(a.slice(0, -1)) : term === a));
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (v) => {
        // The text SQLite gives a real: 15 significant digits.
        const text = String(Number(v.toPrecision(15)));
        const q = metricTextQuery('r', 'judge', [text, 'other']);
        expect(covered(q, numberTerm('metrics/judge', v))).toBe(true);
        expect(covered(q, labelTerm('judge', text))).toBe(true);
        expect(covered(q, numberTerm('metrics/other', v))).toBe(false);
      }),
    );
  });
});

describe('a record’s terms (the trigger’s tl_record_terms)', () => {
  it('are the same whether its tags’ and metrics’ JSON was met before or not (their terms are remembered by text)', () => {
    const values = ['["prod","tenant-7"]', '{"num_input_tokens":455,"tone":"calm","ok":true,"labels":["a","b"]}', 200, null, 0.5, null, 'a name'];
    const first = recordTerms('run-1', ...values).split(' ').sort();
    expect(first).toEqual(expect.arrayContaining([tagTerm('prod'), tagTerm('tenant-7'), numberTerm('metrics/num_input_tokens', 455), labelTerm('tone', 'calm'), flagTerm('ok', true), labelTerm('labels', 'b'), numberTerm('status_code', 200), numberTerm('temperature', 0.5), 'nam', 'ame']));
    expect(recordTerms('run-1', ...values).split(' ').sort()).toEqual(first);
    expect(recordTerms('run-1', '[]', '{}', null, null, null, null, 'a name').split(' ').sort()).toEqual([runTerm('run-1'), 'ame', 'nam'].sort());
  });
});
