import { prefixOf } from './text';

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
