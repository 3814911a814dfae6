import { forwardedProto } from './forwarded-proto';

describe('forwardedProto', () => {
  it('takes the entry the outermost trusted proxy wrote, not what a client wrote to its left', () => {
    expect(forwardedProto('http, https', 1)).toBe('https');
    expect(forwardedProto('https, http', 1)).toBe('http');
    // Two proxies: the outer one (a CDN) wrote the first of the last two.
    expect(forwardedProto('http, https, http', 2)).toBe('https');
  });

  it('takes the one entry of a proxy that sets the header whole, whatever the count', () => {
    expect(forwardedProto('https', 1)).toBe('https');
    expect(forwardedProto('HTTPS', 3)).toBe('https');
    expect(forwardedProto(' https ,', 1)).toBe('https');
  });

  it('says http for no header, an empty one, or a scheme it does not know', () => {
    expect(forwardedProto(undefined, 1)).toBe('http');
    expect(forwardedProto('', 1)).toBe('http');
    expect(forwardedProto(' , ', 1)).toBe('http');
    expect(forwardedProto('wss', 1)).toBe('http');
  });
});
