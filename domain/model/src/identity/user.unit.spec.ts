import * as O from 'fp-ts/Option';
import { MAX_PASSWORD_LENGTH, isEmail, newUserProblem, normaliseEmail } from './user';

describe('email addresses', () => {
  it('are stored and looked up NFKC-normalised, trimmed and lower-cased: a look-alike in other code points is the same address', () => {
    expect(normaliseEmail(' Admin@Example.com ')).toBe('admin@example.com');
    expect(normaliseEmail('Ａdmin@example.com')).toBe('admin@example.com');
    expect(normaliseEmail('ａｄｍｉｎ@ｅｘａｍｐｌｅ.com')).toBe('admin@example.com');
  });

  it('refuse invisible and control characters, which no address has and a look-alike would', () => {
    for (const invisible of ['\u200b', '\u200d', '\u202e', '\u00ad', '\u0000', '\u00a0', '\u2028'])
      expect([invisible, isEmail(normaliseEmail(`adm${invisible}in@example.com`))]).toEqual([invisible, false]);
    expect(isEmail(normaliseEmail('admin@example.com'))).toBe(true);
    expect(isEmail(normaliseEmail('jürgen.o\'neil+tag@bücher.example'))).toBe(true);
  });
});

describe('newUserProblem', () => {
  it('counts a password in characters, as the HTTP codec does: four emoji are four, eight are enough', () => {
    expect(O.isSome(newUserProblem({ email: 'a@example.com', password: '😀'.repeat(4) }))).toBe(true);
    expect(newUserProblem({ email: 'a@example.com', password: '😀'.repeat(8) })).toEqual(O.none);
    // At most MAX_PASSWORD_LENGTH, as a sign-in takes: 1,024 emoji are 2,048 UTF-16 units and still taken.
    expect(newUserProblem({ email: 'a@example.com', password: '😀'.repeat(MAX_PASSWORD_LENGTH) })).toEqual(O.none);
    expect(newUserProblem({ email: 'a@example.com', password: 'p'.repeat(MAX_PASSWORD_LENGTH + 1) })).toEqual(
      O.some(expect.objectContaining({ _tag: 'Invalid', path: ['password'], message: 'password must have at most 1024 characters' })),
    );
  });
});
