import { REDACTED, scrubSecret, secretScrubber } from './secret-scrub';

// The token of the security review: characters URL encoding and base64 both change.
const TOKEN = 'sk-BOBSECRET-0123456789abcdef+/=xyz';
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const b64url = (s: string) => Buffer.from(s, 'utf8').toString('base64url');

describe('scrubSecret', () => {
  it('replaces the secret as written, every time it appears', () => {
    expect(scrubSecret(`a ${TOKEN} b ${TOKEN}`, TOKEN)).toBe(`a ${REDACTED} b ${REDACTED}`);
  });

  // The second: characters encodeURI and JSON escape too.
  const ODD = 'tok "50%" \\ {x}^y`z';
  const forms = (token: string): Array<[string, string]> => [
    ['encodeURIComponent', encodeURIComponent(token)],
    ['encodeURIComponent, lower-case escapes', encodeURIComponent(token).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())],
    ['encodeURI', encodeURI(token)],
    ['form encoding', new URLSearchParams({ k: token }).toString().slice(2)],
    ['in a JSON string', JSON.stringify(token).slice(1, -1)],
    ['base64', b64(token)],
    ['base64url', b64url(token)],
    ['base64 of Bearer token', b64(`Bearer ${token}`)],
    ['base64url of Bearer token', b64url(`Bearer ${token}`)],
    ['base64 of :token', b64(`:${token}`)],
    ['base64url of :token', b64url(`:${token}`)],
  ];
  it.each([...forms(TOKEN).map(([f, e]) => [f, TOKEN, e]), ...forms(ODD).map(([f, e]) => [`${f} (${ODD})`, ODD, e])].filter(([, token, e]) => e !== token))(
    'replaces it %s',
    (_form, token, encoded) => {
      const scrubbed = scrubSecret(`the gateway answered 401: bad key ${encoded}.`, token!);
      expect(scrubbed).toBe(`the gateway answered 401: bad key ${REDACTED}.`);
    },
  );

  it('replaces the secret inside a longer encoding, at each alignment (a Basic credential, a quoted header)', () => {
    for (const prefix of ['bob:', 'bob1:', 'bob12:', '{"authorization":"Bearer ']) {
      for (const encode of [b64, b64url]) {
        const encoded = encode(`${prefix}${TOKEN}"}`);
        const scrubbed = scrubSecret(`echo ${encoded} end`, TOKEN);
        expect(scrubbed).toContain(REDACTED);
        // What is left of the encoding is at most the groups that also hold the bytes around the token.
        const left = scrubbed.replace('echo ', '').replace(' end', '').replace(REDACTED, '');
        expect(left.length).toBeLessThanOrEqual(encode(prefix).length + 8);
        expect(Buffer.from(left, 'base64').toString('latin1')).not.toContain('BOBSECRET');
      }
    }
  });

  it('leaves text without the secret as it is, and any text for an empty secret', () => {
    const text = 'the gateway answered 500 (text/html) c2stQk9C';
    expect(scrubSecret(text, TOKEN)).toBe(text);
    expect(scrubSecret(text, '')).toBe(text);
  });

  it('does not scrub short runs of base64 that ordinary text holds, for a short secret', () => {
    // "abc" encodes to YWJj: scrubbing such runs would deface messages; the secret itself goes.
    expect(scrubSecret('YWJj says abc', 'abc')).toBe(`YWJj says ${REDACTED}`);
  });

  it('builds once per secret, to scrub many texts', () => {
    const scrub = secretScrubber(TOKEN);
    expect([`x${TOKEN}`, 'y', b64(TOKEN)].map(scrub)).toEqual([`x${REDACTED}`, 'y', REDACTED]);
  });
});
