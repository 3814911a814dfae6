import { codePointLength, holdsLoneSurrogate, longerThan, prefixOf, shorterThan } from './text';

describe('prefixOf', () => {
  it('keeps text within the length whole, and cuts longer text to it', () => {
    expect(prefixOf('abc', 3)).toBe('abc');
    expect(prefixOf('abcdef', 3)).toBe('abc');
    expect(prefixOf('abc', 0)).toBe('');
  });

  it('leaves out a character outside the BMP that the cut would halve, and keeps one it does not', () => {
    expect(prefixOf('ab😀c', 3)).toBe('ab');
    expect(prefixOf('ab😀c', 4)).toBe('ab😀');
  });
});

describe('holdsLoneSurrogate', () => {
  it('finds half of a surrogate pair anywhere, alone or cut from its other half', () => {
    for (const s of ['\ud800', 'a\udc00', 'x\ud83d', '\ud83dx', '\ude00\ud83d']) expect(holdsLoneSurrogate(s)).toBe(true);
  });

  it('passes whole pairs, one-byte and two-byte text, and the empty string', () => {
    for (const s of ['', 'gpt-4o-mini', 'déjà vu €', '😀 ok', '\ud83d\ude00']) expect(holdsLoneSurrogate(s)).toBe(false);
  });
});

describe('codePointLength, shorterThan, longerThan', () => {
  it('count characters: a pair of surrogates is one, a lone half is one', () => {
    expect([codePointLength(''), codePointLength('abc'), codePointLength('😀😀'), codePointLength('a\ud800b'), codePointLength('\udc00\ud83d')]).toEqual([0, 3, 2, 3, 2]);
  });
  it('compare with a bound in characters, whatever the UTF-16 length', () => {
    const emoji = (n: number) => '😀'.repeat(n);
    expect([shorterThan(emoji(3), 4), shorterThan(emoji(4), 4), shorterThan(`${emoji(3)}a`, 4), shorterThan('abc', 4)]).toEqual([true, false, false, true]);
    expect([longerThan(emoji(255), 255), longerThan(emoji(256), 255), longerThan(`${emoji(254)}ab`, 255), longerThan('a'.repeat(256), 255)]).toEqual([false, true, true, true]);
  });
});
