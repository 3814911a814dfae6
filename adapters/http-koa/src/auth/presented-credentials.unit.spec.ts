import { presentedCredentials } from './presented-credentials';

const basic = (value: string) => presentedCredentials((name) => (name === 'authorization' ? `Basic ${value}` : undefined));
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('HTTP Basic credentials', () => {
  it('are read from standard base64, padded or not needing it', () => {
    expect(basic(b64('a@example.com:secret-1'))).toEqual({ scheme: 'basic', email: 'a@example.com', password: 'secret-1' });
    expect(basic(b64('a@example.com:pw:with:colons'))).toEqual({ scheme: 'basic', email: 'a@example.com', password: 'pw:with:colons' });
  });

  it('are malformed unless the whole value is base64: no skipped characters, no URL alphabet, no missing padding', () => {
    const good = b64('a@example.com:secret?>>');
    expect(good).toMatch(/[+/=]/);
    for (const value of [`!!!${good}`, `${good.slice(0, 4)} ${good.slice(4)}`, good.replace(/\+/g, '-').replace(/\//g, '_'), good.replace(/=+$/, ''), '', b64('no-colon')])
      expect([value, basic(value)]).toEqual([value, 'malformed']);
  });
});
