import { startFailure, withoutPassword } from './start-failure';
import type { ServerConfig } from './config';

describe('withoutPassword', () => {
  it.each([
    ['an escaped password', 'mongodb://user:s3cr%2Ft@db.example.com:27017/app', 'mongodb://user:****@db.example.com:27017/app'],
    ['a password with an unescaped /', 'mongodb://user:SECRET/PW@localhost:1/db', 'mongodb://user:****@localhost:1/db'],
    ['a password with an unescaped @', 'mongodb://user:p@ssSECRET@db.example.com/app', 'mongodb://user:****@db.example.com/app'],
    ['an SRV URL', 'mongodb+srv://user:SEC/RET@cluster0.example.net/app?retryWrites=true', 'mongodb+srv://user:****@cluster0.example.net/app?retryWrites=true'],
    ['no password', 'mongodb://user@db.example.com/app', 'mongodb://user@db.example.com/app'],
    ['no credentials', 'mongodb://db.example.com:27017,db2.example.com:27017/app?replicaSet=rs0', 'mongodb://db.example.com:27017,db2.example.com:27017/app?replicaSet=rs0'],
  ])('shows a URL with %s without it', (_, url, shown) => {
    expect(withoutPassword(url)).toBe(shown);
  });
});

describe('startFailure', () => {
  it('names the MongoDB database without its password, in the URL and in the driver’s words', () => {
    const url = 'mongodb://user:SECRET/PW@localhost:1/db';
    const config = { database: { engine: 'mongodb', url } } as unknown as ServerConfig;
    // As the driver's MongoParseError is: an Error by that name (this app does not import the driver).
    const parse = Object.assign(new Error(`cannot parse ${url}: Password contains unescaped characters`), { name: 'MongoParseError' });
    const line = startFailure(parse, config);
    expect(line).toBe(
      'cannot use the MongoDB database at mongodb://user:****@localhost:1/db (MongoParseError: cannot parse mongodb://user:****@localhost:1/db: Password contains unescaped characters): check TRACELIGHT_DATABASE_URL and that the server answers (a replica set)',
    );
    expect(line).not.toContain('SECRET');
  });
});
