import * as E from 'fp-ts/Either';
import { decodedOk, detailOf } from '../shared/expect-decode';
import { GatewayIntegrationCreate, IntegrationRecord } from './integration.codec';

const good = { token: '<GATEWAY_TOKEN>', endpoint: 'https://gw.example.com/relay', use_case: 'SUPPORT_BOT_2' };

describe('GatewayIntegrationCreate', () => {
  it('decodes', () => {
    expect(decodedOk(GatewayIntegrationCreate, { ...good, name: 'ignored' })).toEqual(good);
  });
  it('reports the three fields missing from an empty body', () => {
    expect(detailOf(GatewayIntegrationCreate, {})).toEqual([
      { loc: ['body', 'token'], msg: 'Field required', type: 'missing', input: {} },
      { loc: ['body', 'endpoint'], msg: 'Field required', type: 'missing', input: {} },
      { loc: ['body', 'use_case'], msg: 'Field required', type: 'missing', input: {} },
    ]);
  });
  it('reports a lower-case use_case', () => {
    expect(detailOf(GatewayIntegrationCreate, { ...good, use_case: 'support' })).toEqual([
      {
        loc: ['body', 'use_case'],
        msg: "String should match pattern '^[A-Z][A-Z0-9_]*$'",
        type: 'string_pattern_mismatch',
        input: 'support',
        ctx: { pattern: '^[A-Z][A-Z0-9_]*$' },
      },
    ]);
  });
  it('reports a bad url, an ftp url and an empty token', () => {
    expect(detailOf(GatewayIntegrationCreate, { ...good, endpoint: 'gw.example.com/relay', token: '' })).toEqual([
      // The value at a secret's place is masked, whatever it is.
      { loc: ['body', 'token'], msg: 'String should have at least 1 character', type: 'string_too_short', input: '**********', ctx: { min_length: 1 } },
      {
        loc: ['body', 'endpoint'],
        msg: 'Input should be a valid URL, relative URL without a base',
        type: 'url_parsing',
        input: 'gw.example.com/relay',
        ctx: { error: 'relative URL without a base' },
      },
    ]);
    expect(detailOf(GatewayIntegrationCreate, { ...good, endpoint: 'ftp://gw.example.com' })).toEqual([
      {
        loc: ['body', 'endpoint'],
        msg: "URL scheme should be 'http' or 'https'",
        type: 'url_scheme',
        input: 'ftp://gw.example.com',
        ctx: { expected_schemes: "'http' or 'https'" },
      },
    ]);
  });
});

describe('GatewayIntegrationCreate endpoint', () => {
  it('takes a base URL, with a path or none', () => {
    for (const endpoint of ['https://gw.example.com', 'https://gw.example.com/', 'http://10.0.0.7:4000/v1', 'https://[2001:db8::1]/openai/v1'])
      expect(decodedOk(GatewayIntegrationCreate, { ...good, endpoint }).endpoint).toBe(endpoint);
  });

  it('refuses a query or a fragment, which would choose the path judges call', () => {
    for (const endpoint of ['http://127.0.0.1:23413/internal/admin/keys?q=', 'https://gw.example.com/v1?', 'https://gw.example.com/v1#x', 'https://gw.example.com?a=1'])
      expect(detailOf(GatewayIntegrationCreate, { ...good, endpoint })).toEqual([
        {
          loc: ['body', 'endpoint'],
          msg: 'Value error, the endpoint is a base URL (judges call {endpoint}/chat/completions): no query (?) or fragment (#)',
          type: 'value_error',
          input: endpoint,
          ctx: { error: 'the endpoint is a base URL (judges call {endpoint}/chat/completions): no query (?) or fragment (#)' },
        },
      ]);
  });
});

describe('GatewayIntegrationCreate token', () => {
  it('takes a token of visible ASCII up to 8,192 characters, spaces and tabs between them included', () => {
    for (const token of ['t', 'Bearer-ish token with spaces', 'a\tb', '~!@#$%^&*()_+{}|:"<>?`-=[]\\;\',./', 't'.repeat(8192)])
      expect(decodedOk(GatewayIntegrationCreate, { ...good, token }).token).toBe(token);
  });

  it('refuses a token with a control character, beyond ASCII, blank or padded, over 8,192 characters, or with half of a surrogate pair, its value masked', () => {
    for (const [token, type] of [
      ['a\nb', 'string_pattern_mismatch'],
      ['a\u0000b', 'string_pattern_mismatch'],
      ['\t', 'string_pattern_mismatch'],
      [' \u3000 ', 'string_pattern_mismatch'],
      // A header carries bytes (Latin-1 to its readers): beyond ASCII the token would not arrive as sent.
      ['jéton', 'string_pattern_mismatch'],
      ['\u200b', 'string_pattern_mismatch'],
      [' padded', 'string_pattern_mismatch'],
      ['padded ', 'string_pattern_mismatch'],
      ['t'.repeat(8193), 'string_too_long'],
      ['\udc00', 'string_unicode'],
    ] as const)
      expect([JSON.stringify(token).slice(0, 20), detailOf(GatewayIntegrationCreate, { ...good, token })]).toEqual([
        JSON.stringify(token).slice(0, 20),
        [expect.objectContaining({ loc: ['body', 'token'], type, input: '**********' })],
      ]);
  });
});

describe('GatewayIntegrationCreate endpoint', () => {
  it('refuses spaces and control characters, which a URL parser would drop or encode, so what is stored is what was read', () => {
    const why = 'invalid character: spaces and control characters are not part of a URL (write a space as %20)';
    for (const endpoint of ['\thttps://h.example/x\n', ' https://h.example/x', 'https://h.example/x ', 'https://h.example/a b', 'https://h.exa\u0000mple/', 'https://h.example/\u007f'])
      expect(detailOf(GatewayIntegrationCreate, { ...good, endpoint })).toEqual([
        { loc: ['body', 'endpoint'], msg: `Input should be a valid URL, ${why}`, type: 'url_parsing', input: endpoint, ctx: { error: why } },
      ]);
    expect(GatewayIntegrationCreate.decode({ ...good, endpoint: 'https://h.example/a%20b' })).toEqual(E.right({ ...good, endpoint: 'https://h.example/a%20b' }));
  });

  it('names a port past 65535 as the fault', () => {
    expect(detailOf(GatewayIntegrationCreate, { ...good, endpoint: 'https://h.example:65536/x' })).toEqual([
      expect.objectContaining({ type: 'url_parsing', ctx: { error: 'invalid port number' } }),
    ]);
    expect(GatewayIntegrationCreate.decode({ ...good, endpoint: 'https://h.example:65535/x' })).toEqual(E.right({ ...good, endpoint: 'https://h.example:65535/x' }));
  });
});

describe('IntegrationRecord', () => {
  it('describes the record, provider among the twelve', () => {
    const record = {
      id: 'i', name: 'gateway', provider: 'gateway', created_at: 't', updated_at: 't', created_by: 'u',
      permissions: [], is_selected: false, is_disabled: false, extra: { endpoint: good.endpoint, use_case: good.use_case },
    };
    expect(IntegrationRecord.is(record)).toBe(true);
    expect(IntegrationRecord.is({ ...record, provider: 'provider_01' })).toBe(false);
  });
});
