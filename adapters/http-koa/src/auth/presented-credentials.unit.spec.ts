import { basicNameOf, presentedApiKeyPair, presentedCredentials } from './presented-credentials';

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

describe('Bearer credentials', () => {
  const bearer = (value: string) => presentedCredentials((name) => (name === 'authorization' ? `Bearer ${value}` : undefined));

  it('are a token when they are a JWT (dot-separated parts), and an API key otherwise, as OTLP exporters send one', () => {
    expect(bearer('eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl')).toEqual({ scheme: 'bearer', token: 'eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl' });
    expect(bearer('tl_AbC-123_xyz')).toEqual({ scheme: 'api_key', apiKey: 'tl_AbC-123_xyz' });
    expect(presentedCredentials((name) => (name === 'authorization' ? 'Bearer ' : undefined))).toBe('malformed');
    expect(presentedCredentials((name) => (name === 'authorization' ? 'Bearer' : undefined))).toBe('malformed');
  });
});

describe('HTTP Basic pairs of a name and an API key (Langfuse\'s publicKey:secretKey)', () => {
  const headers = (h: Record<string, string>) => (name: string) => h[name];

  it('present the API key as the credential, and the name apart from it', () => {
    const authorization = `Basic ${b64('my-project:tl_secret')}`;
    expect(presentedApiKeyPair(headers({ authorization }))).toEqual({ scheme: 'api_key', apiKey: 'tl_secret' });
    expect(basicNameOf(authorization)).toBe('my-project');
    expect(basicNameOf('Bearer tl_secret')).toBeUndefined();
    expect(basicNameOf(undefined)).toBeUndefined();
  });

  it('are malformed without a key, and leave every other scheme as it is everywhere', () => {
    expect(presentedApiKeyPair(headers({ authorization: `Basic ${b64('my-project:')}` }))).toBe('malformed');
    expect(presentedApiKeyPair(headers({ authorization: `Basic ${b64('no-colon')}` }))).toBe('malformed');
    expect(presentedApiKeyPair(headers({ authorization: 'Bearer tl_key' }))).toEqual({ scheme: 'api_key', apiKey: 'tl_key' });
    expect(presentedApiKeyPair(headers({ 'service-api-key': 'tl_header', authorization: `Basic ${b64('p:tl_pair')}` }))).toEqual({ scheme: 'api_key', apiKey: 'tl_header' });
    expect(presentedApiKeyPair(headers({}))).toBeUndefined();
  });
});
