import { foldCase } from './search';

/** Every code point that has another case, as text. */
const casedCharacters = (): string[] => {
  const out: string[] = [];
  for (let cp = 0x80; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const c = String.fromCodePoint(cp);
    if (c.toUpperCase() !== c || c.toLowerCase() !== c) out.push(c);
  }
  return out;
};
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

describe('foldCase: the case classes of case-insensitive text filters', () => {
  it('puts two characters in one class exactly when Unicode simple case folding does (as /…/iu matches)', () => {
    const wrong: string[] = [];
    for (const c of casedCharacters()) {
      const same = new RegExp(`^${escape(c)}$`, 'iu');
      if (!same.test(foldCase(c))) wrong.push(`${c} folds to ${foldCase(c)}, not of its class`);
      for (const other of [c.toUpperCase(), c.toLowerCase()]) {
        if (other === c || [...other].length !== 1) continue;
        if ((foldCase(other) === foldCase(c)) !== same.test(other)) wrong.push(`${c} and ${other}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('folds text one character for one, ASCII or not', () => {
    expect(foldCase('Éclair ΟΔΟΣ ς Straße ẞ K')).toBe('éclair οδοσ σ straße ß k');
    expect(foldCase('HELLO\u0000World')).toBe('hello\u0000world');
    expect(foldCase('İı')).toBe('İı');
    expect(foldCase('𐐀𐐨')).toBe('𐐨𐐨'); // Deseret, beyond the BMP
  });
});
