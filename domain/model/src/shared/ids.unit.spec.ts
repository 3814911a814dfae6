import { formerV7Id, rekeyedId, uuidVersion } from './ids';

describe('version-7 ids re-keyed to version 4', () => {
  const v7 = '0190f7a4-1b2c-7d3e-8f40-0123456789ab';
  it('sets the version nibble to 4 and nothing else, leaving every other text as it is', () => {
    expect(rekeyedId(v7)).toBe('0190f7a4-1b2c-4d3e-8f40-0123456789ab');
    expect(uuidVersion(rekeyedId(v7))).toBe(4);
    for (const other of ['0190f7a4-1b2c-4d3e-8f40-0123456789ab', '0190f7a4-1b2c-7d3e-cf40-0123456789ab', 'not-an-id', `${v7}x`, v7.toUpperCase()])
      expect(rekeyedId(other)).toBe(other);
  });
  it('gives back the former id of a re-keyed one, and none for an id of another version', () => {
    expect(formerV7Id(rekeyedId(v7))).toBe(v7);
    expect(formerV7Id(v7)).toBeUndefined();
    expect(uuidVersion('x')).toBeUndefined();
  });
});
