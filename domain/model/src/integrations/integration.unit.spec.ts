import { GATEWAY_TOKEN } from './integration';

describe('GATEWAY_TOKEN', () => {
  it('takes what a header value carries as text: visible ASCII, spaces and tabs only between them', () => {
    for (const token of ['t', 'sk-live_0123456789', 'Bearer abc', 'a\tb', '!~'])
      expect([token, GATEWAY_TOKEN.test(token)]).toEqual([token, true]);
  });

  it('refuses control characters, anything beyond ASCII, blank or padded tokens', () => {
    for (const token of ['', ' ', '\t', 'a\r\nb', 'a\u0000b', 'a\u007fb', 'jéton', '\u200b', '\ud800', ' a', 'a '])
      expect([JSON.stringify(token), GATEWAY_TOKEN.test(token)]).toEqual([JSON.stringify(token), false]);
  });
});
