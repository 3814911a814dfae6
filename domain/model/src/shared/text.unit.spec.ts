import { holdsLoneSurrogate, prefixOf } from './text';

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
