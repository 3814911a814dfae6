import { decodedOk, detailOf } from '../shared/expect-decode';
import { ApiKeyCreateRequest, ApiKeyLoginRequest, CreateUserRequest, LoginRequest } from './identity.codec';

describe('LoginRequest and ApiKeyLoginRequest', () => {
  it('decode non-empty strings', () => {
    expect(decodedOk(LoginRequest, { username: 'a@example.com', password: 'secret', grant_type: 'password' })).toEqual({
      username: 'a@example.com',
      password: 'secret',
    });
    expect(decodedOk(ApiKeyLoginRequest, { api_key: 'tl_abc' })).toEqual({ api_key: 'tl_abc' });
  });
  it('report a missing field with the whole form as input', () => {
    expect(detailOf(LoginRequest, { username: 'a@example.com' })).toEqual([
      { loc: ['body', 'password'], msg: 'Field required', type: 'missing', input: { username: 'a@example.com' } },
    ]);
  });
  it('report a wrong type', () => {
    expect(detailOf(ApiKeyLoginRequest, { api_key: 5 })).toEqual([{ loc: ['body', 'api_key'], msg: 'Input should be a valid string', type: 'string_type', input: '**********' }]);
  });
  it('refuse credentials longer than any this server accepts, before they reach the password hash', () => {
    const long = 'x'.repeat(1025);
    expect(detailOf(LoginRequest, { username: 'a@example.com', password: long }).map((d) => [d.loc, d.type])).toEqual([[['body', 'password'], 'string_too_long']]);
    expect(detailOf(LoginRequest, { username: long, password: 'secret' }).map((d) => [d.loc, d.type])).toEqual([[['body', 'username'], 'string_too_long']]);
    expect(detailOf(ApiKeyLoginRequest, { api_key: long }).map((d) => [d.loc, d.type])).toEqual([[['body', 'api_key'], 'string_too_long']]);
    expect(decodedOk(LoginRequest, { username: 'a@example.com', password: 'x'.repeat(1024) }).password).toHaveLength(1024);
  });
});

describe('CreateUserRequest', () => {
  it('decodes', () => {
    expect(decodedOk(CreateUserRequest, { email: 'b@example.com', password: 'long enough', role: 'read_only' })).toEqual({
      email: 'b@example.com',
      password: 'long enough',
      role: 'read_only',
    });
  });
  it('reports a bad email, a short password and an unknown role', () => {
    expect(detailOf(CreateUserRequest, { email: 'nope', password: 'short', role: 'god' })).toEqual([
      {
        loc: ['body', 'email'],
        msg: 'value is not a valid email address: An email address must have an @-sign.',
        type: 'value_error',
        input: 'nope',
        ctx: { reason: 'An email address must have an @-sign.' },
      },
      { loc: ['body', 'password'], msg: 'String should have at least 8 characters', type: 'string_too_short', input: '**********', ctx: { min_length: 8 } },
      {
        loc: ['body', 'role'],
        msg: "Input should be 'admin', 'manager', 'user' or 'read_only'",
        type: 'enum',
        input: 'god',
        ctx: { expected: "'admin', 'manager', 'user' or 'read_only'" },
      },
    ]);
  });
  it('says why an address with an @ is still not one', () => {
    expect(detailOf(CreateUserRequest, { email: 'a@localhost', password: 'long enough' })[0]).toMatchObject({
      type: 'value_error',
      msg: 'value is not a valid email address: The part after the @-sign is not valid. It should have a period.',
    });
  });
  it('takes an address of up to 254 characters, the most mail can carry', () => {
    const at254 = `${'a'.repeat(64)}@${'b'.repeat(185)}.com`;
    expect(at254).toHaveLength(254);
    expect(decodedOk(CreateUserRequest, { email: at254, password: 'long enough' }).email).toBe(at254);
    expect(detailOf(CreateUserRequest, { email: `a${at254}`, password: 'long enough' })[0]).toMatchObject({
      loc: ['body', 'email'],
      type: 'value_error',
      msg: 'value is not a valid email address: The email address is too long (1 character too many).',
    });
  });
});

describe('ApiKeyCreateRequest', () => {
  it('decodes expires_at to a Date, or keeps null', () => {
    expect(decodedOk(ApiKeyCreateRequest, { description: 'ci', expires_at: '2027-01-01T00:00:00Z' })).toEqual({
      description: 'ci',
      expires_at: new Date('2027-01-01T00:00:00Z'),
    });
    expect(decodedOk(ApiKeyCreateRequest, { description: 'ci', expires_at: null })).toEqual({ description: 'ci', expires_at: null });
  });
  it('refuses half of a surrogate pair in the description (stored as text), and takes whole pairs', () => {
    expect(detailOf(ApiKeyCreateRequest, { description: 'laptop \ud83d' })).toEqual([
      expect.objectContaining({ loc: ['body', 'description'], type: 'string_unicode', input: 'laptop \ud83d' }),
    ]);
    expect(decodedOk(ApiKeyCreateRequest, { description: 'laptop 💻' })).toEqual({ description: 'laptop 💻' });
  });
  it('reports an empty description and a bad date-time', () => {
    expect(detailOf(ApiKeyCreateRequest, { description: '', expires_at: 'tomorrow' })).toEqual([
      { loc: ['body', 'description'], msg: 'String should have at least 1 character', type: 'string_too_short', input: '', ctx: { min_length: 1 } },
      {
        loc: ['body', 'expires_at'],
        msg: 'Input should be a valid datetime, input is too short',
        type: 'datetime_parsing',
        input: 'tomorrow',
        ctx: { error: 'input is too short' },
      },
    ]);
  });
});
