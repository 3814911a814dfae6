import * as fs from 'node:fs';
import * as path from 'node:path';
import * as E from 'fp-ts/Either';
import { CONFIG_VARIABLES, loadConfig } from './config';

describe('the list of configuration variables', () => {
  it('is the configuration tables of docs/ (configuration.md, and the pages of features with variables of their own, in name order), row for row', () => {
    const root = path.resolve(__dirname, '../../..');
    const docs = fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => path.join(root, 'docs', f));
    // The README, the front page, links to the table rather than holding rows of it.
    const text = [path.join(root, 'README.md'), ...docs].map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    const rows = [...text.matchAll(/^\| `(TRACELIGHT_[A-Z0-9_]+)` \| (.*?) \| (.*) \|$/gm)].map((m) => [m[1], m[2], m[3]]);
    expect(rows).toEqual(CONFIG_VARIABLES.map((row) => [...row]));
  });

  it('names every variable the server reads, and no other', () => {
    // The server's sources and the configuration it shares with the admin CLI (the storage settings).
    const shared = path.resolve(__dirname, '../../../packages/config/src');
    const sources = [__dirname, shared]
      .flatMap((dir) => fs.readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts')).map((f) => path.join(dir, f)))
      .map((f) => fs.readFileSync(f, 'utf8').replace(/^\s*\[?'TRACELIGHT_[A-Z0-9_]+', '.*$/gm, ''))
      .join('\n');
    const read = [...new Set(sources.match(/TRACELIGHT_[A-Z0-9_]+/g))].sort();
    expect(read).toEqual(CONFIG_VARIABLES.map(([name]) => name).sort());
  });
});

describe('configuration from the environment', () => {
  it('lets judges call public addresses only unless networks are allowed, and reports a network it cannot read', () => {
    expect(loadConfig({})).toEqual(E.right(expect.objectContaining({ gatewayAllowedNetworks: [] })));
    expect(loadConfig({ TRACELIGHT_GATEWAY_ALLOWED_NETWORKS: ' 127.0.0.1/32, 10.20.0.0/16,fd00::/8,::1 ' })).toEqual(
      E.right(expect.objectContaining({ gatewayAllowedNetworks: ['127.0.0.1/32', '10.20.0.0/16', 'fd00::/8', '::1'] })),
    );
    const bad = loadConfig({ TRACELIGHT_GATEWAY_ALLOWED_NETWORKS: '10.0.0.0/33,localhost,true' });
    expect(bad).toEqual(
      E.left([
        'TRACELIGHT_GATEWAY_ALLOWED_NETWORKS must be comma-separated CIDRs or IP addresses (10.0.0.0/8, 127.0.0.1, fd00::/8), got "10.0.0.0/33", "localhost", "true"',
      ]),
    );
  });

  it('has the documented defaults: 127.0.0.1:8088, SQLite in ./.tracelight', () => {
    expect(loadConfig({})).toEqual(
      E.right(
        expect.objectContaining({
          host: '127.0.0.1',
          port: 8088,
          dataDir: path.resolve('.tracelight'),
          database: { engine: 'sqlite', path: path.resolve('.tracelight', 'tracelight.db') },
          sqliteSynchronous: 'FULL',
          sqliteWriter: 'thread',
          sqliteSearchThreads: 2,
          tokenTtlSeconds: 3600,
          bodyLimitBytes: 10 * 1024 * 1024,
          apiBodyLimitBytes: 1024 * 1024,
          rateLimitPerMinute: 6000,
          signInFailuresPerMinute: 30,
        }),
      ),
    );
  });

  it('chooses the engine from TRACELIGHT_DATABASE_URL alone', () => {
    expect(loadConfig({ TRACELIGHT_DATABASE_URL: 'mongodb://db1,db2/tl?replicaSet=rs0' })).toEqual(
      E.right(expect.objectContaining({ database: { engine: 'mongodb', url: 'mongodb://db1,db2/tl?replicaSet=rs0' } })),
    );
    expect(loadConfig({ TRACELIGHT_DATABASE_URL: 'mongodb+srv://cluster.example.com/tl' })).toEqual(E.right(expect.objectContaining({ database: expect.objectContaining({ engine: 'mongodb' }) })));
    expect(loadConfig({ TRACELIGHT_DATABASE_URL: 'sqlite:/var/lib/tl.db' })).toEqual(E.right(expect.objectContaining({ database: { engine: 'sqlite', path: '/var/lib/tl.db' } })));
  });

  it('reports every bad value at once, naming each variable', () => {
    const result = loadConfig({
      TRACELIGHT_PORT: 'eighty',
      TRACELIGHT_DATABASE_URL: 'postgres://x',
      TRACELIGHT_SQLITE_SYNCHRONOUS: 'OFF',
      TRACELIGHT_SQLITE_WRITER: 'process',
      TRACELIGHT_ADMIN_EMAIL: 'only-the-email@example.com',
      TRACELIGHT_TOKEN_TTL_SECONDS: '0',
      TRACELIGHT_BODY_LIMIT: '2gb',
      TRACELIGHT_TRUST_PROXY: 'yes',
      TRACELIGHT_RETENTION_DAYS: '0.5',
    });
    expect(E.isLeft(result)).toBe(true);
    const problems = E.isLeft(result) ? result.left.join('\n') : '';
    for (const name of ['TRACELIGHT_PORT', 'TRACELIGHT_DATABASE_URL', 'TRACELIGHT_SQLITE_SYNCHRONOUS', 'TRACELIGHT_SQLITE_WRITER', 'TRACELIGHT_ADMIN_PASSWORD', 'TRACELIGHT_TOKEN_TTL_SECONDS', 'TRACELIGHT_BODY_LIMIT', 'TRACELIGHT_TRUST_PROXY', 'TRACELIGHT_RETENTION_DAYS'])
      expect(problems).toContain(name);
  });

  it('reports an unusable secret key and first admin with the other problems, never repeating the secrets', () => {
    const result = loadConfig({
      TRACELIGHT_PORT: 'eighty',
      TRACELIGHT_SECRET_KEY: 'Sh0rtSecret',
      TRACELIGHT_ADMIN_EMAIL: 'not-an-email',
      TRACELIGHT_ADMIN_PASSWORD: 'Sh0rtPw',
    });
    const problems = E.isLeft(result) ? result.left : [];
    expect(problems).toEqual([
      'TRACELIGHT_SECRET_KEY must be at least 32 bytes (64 hex or 43 base64 characters, or a 32+ character passphrase)',
      'TRACELIGHT_ADMIN_EMAIL must be an email address, got "not-an-email"',
      'TRACELIGHT_ADMIN_PASSWORD must have at least 8 characters',
      'TRACELIGHT_PORT must be an integer from 0 to 65535, got "eighty"',
    ]);
    expect(problems.join('\n')).not.toMatch(/Sh0rt/);
    for (const key of ['ab'.repeat(32), 'A'.repeat(43), 'a passphrase of thirty-two chars.'])
      expect(loadConfig({ TRACELIGHT_SECRET_KEY: key, TRACELIGHT_ADMIN_EMAIL: ' Admin@Example.com', TRACELIGHT_ADMIN_PASSWORD: '8 chars!' })).toEqual(
        E.right(expect.objectContaining({ secretKey: key })),
      );
  });

  it('reports the key in use given as the previous one too with the other problems, never repeating it', () => {
    const key = 'cd'.repeat(32);
    const result = loadConfig({ TRACELIGHT_PORT: 'eighty', TRACELIGHT_SECRET_KEY: key, TRACELIGHT_PREVIOUS_SECRET_KEY: key });
    const problems = E.isLeft(result) ? result.left : [];
    expect(problems).toEqual([
      'TRACELIGHT_PREVIOUS_SECRET_KEY is the key in use: give the key being replaced there, and the new one as TRACELIGHT_SECRET_KEY (or in secret.key)',
      'TRACELIGHT_PORT must be an integer from 0 to 65535, got "eighty"',
    ]);
    expect(problems.join('\n')).not.toContain(key);
    expect(loadConfig({ TRACELIGHT_SECRET_KEY: key, TRACELIGHT_PREVIOUS_SECRET_KEY: 'ef'.repeat(32) })).toEqual(E.right(expect.objectContaining({ secretKey: key })));
  });

  it('takes a metrics token of at least 32 bearer-token characters, and reports a shorter or odd one without repeating it', () => {
    expect(loadConfig({})).toEqual(E.right(expect.objectContaining({ metricsToken: undefined })));
    for (const good of ['ab'.repeat(16), 'A-Z.a_z~0+9/'.repeat(3), `${'x'.repeat(32)}==`])
      expect(loadConfig({ TRACELIGHT_METRICS_TOKEN: good })).toEqual(E.right(expect.objectContaining({ metricsToken: good })));
    for (const bad of ['Sh0rtMetrics'.repeat(2), `Sp4ce in a token ${'x'.repeat(32)}`, `Qu0te"${'x'.repeat(32)}`, `${'x'.repeat(32)}=x`]) {
      const problems = E.isLeft(loadConfig({ TRACELIGHT_METRICS_TOKEN: bad })) ? (loadConfig({ TRACELIGHT_METRICS_TOKEN: bad }) as E.Left<string[]>).left : [];
      expect(problems).toEqual(['TRACELIGHT_METRICS_TOKEN must be at least 32 characters of A-Z, a-z, 0-9 and -._~+/ (a bearer token, e.g. from openssl rand -hex 32)']);
    }
  });

  it('never repeats a mistyped database URL, which may hold a password', () => {
    const result = loadConfig({ TRACELIGHT_DATABASE_URL: 'mongodb:/admin:S3cretDbPass@db1/tl' });
    const problems = E.isLeft(result) ? result.left.join('\n') : '';
    expect(problems).toContain('TRACELIGHT_DATABASE_URL must start with sqlite:, mongodb:// or mongodb+srv://, got one starting "mongodb:"');
    expect(problems).not.toContain('S3cret');
  });

  it('believes forwarding headers only when told to, from as many proxies as it is told', () => {
    expect(loadConfig({})).toEqual(E.right(expect.objectContaining({ trustedProxies: 0 })));
    expect(loadConfig({ TRACELIGHT_TRUST_PROXY: 'false' })).toEqual(E.right(expect.objectContaining({ trustedProxies: 0 })));
    expect(loadConfig({ TRACELIGHT_TRUST_PROXY: 'true' })).toEqual(E.right(expect.objectContaining({ trustedProxies: 1 })));
    expect(loadConfig({ TRACELIGHT_TRUST_PROXY: '2' })).toEqual(E.right(expect.objectContaining({ trustedProxies: 2 })));
    for (const bad of ['yes', '0', '17', '1.5'])
      expect(loadConfig({ TRACELIGHT_TRUST_PROXY: bad })).toEqual(
        E.left([`TRACELIGHT_TRUST_PROXY must be true, false or a number of proxies from 1 to 16, got ${JSON.stringify(bad)}`]),
      );
  });

  it('takes true or false for V8\'s allocation-site pretenuring, and reports anything else', () => {
    for (const good of ['true', 'false', '']) expect(E.isRight(loadConfig({ TRACELIGHT_V8_PRETENURING: good }))).toBe(true);
    for (const bad of ['yes', '1', 'TRUE'])
      expect(loadConfig({ TRACELIGHT_V8_PRETENURING: bad })).toEqual(E.left([`TRACELIGHT_V8_PRETENURING must be true or false, got ${JSON.stringify(bad)}`]));
  });

  it('bounds the bytes the offload workers hold: 128 MB unless told', () => {
    expect(loadConfig({})).toEqual(E.right(expect.objectContaining({ offloadQueueBytes: 128 * 1024 * 1024 })));
    expect(loadConfig({ TRACELIGHT_OFFLOAD_QUEUE_BYTES: '64mb' })).toEqual(E.right(expect.objectContaining({ offloadQueueBytes: 64 * 1024 * 1024 })));
    expect(loadConfig({ TRACELIGHT_OFFLOAD_QUEUE_BYTES: 'lots' })).toEqual(E.left(['TRACELIGHT_OFFLOAD_QUEUE_BYTES must look like 128mb or 512kb, got "lots"']));
  });

  it('bounds the log lines waiting to be written: 16 MB a stream unless told, never below 64 KiB', () => {
    expect(loadConfig({})).toEqual(E.right(expect.objectContaining({ logBufferBytes: 16 * 1024 * 1024 })));
    expect(loadConfig({ TRACELIGHT_LOG_BUFFER: '64kb' })).toEqual(E.right(expect.objectContaining({ logBufferBytes: 64 * 1024 })));
    for (const bad of ['32kb', 'lots', '1gb'])
      expect(loadConfig({ TRACELIGHT_LOG_BUFFER: bad })).toEqual(
        E.left([`TRACELIGHT_LOG_BUFFER must be a size of at least 64kb, like 16mb or 512kb, got ${JSON.stringify(bad)}`]),
      );
  });

  it('reads the body limit in bytes, kilobytes or megabytes', () => {
    const limit = (TRACELIGHT_BODY_LIMIT: string) => E.map((c: { bodyLimitBytes: number }) => c.bodyLimitBytes)(loadConfig({ TRACELIGHT_BODY_LIMIT }));
    expect(limit('1024')).toEqual(E.right(1024));
    expect(limit('2048b')).toEqual(E.right(2048));
    expect(limit('64kb')).toEqual(E.right(64 * 1024));
    expect(limit('16MB')).toEqual(E.right(16 * 1024 * 1024));
    expect(E.isLeft(limit('1.5mb'))).toBe(true);
  });

  it('refuses a body limit no sign-in fits in, and an API body limit above the body limit that bounds it', () => {
    // 0 is no "no limit" here: every body, a sign-in's included, would get 413.
    for (const bad of ['0', '0b', '10', '1023b'])
      for (const name of ['TRACELIGHT_BODY_LIMIT', 'TRACELIGHT_API_BODY_LIMIT'])
        expect(loadConfig({ [name]: bad })).toEqual(E.left([expect.stringMatching(new RegExp(`^${name} must be a size of at least 1kb, like .*, got "${bad}"$`))]));
    expect(loadConfig({ TRACELIGHT_API_BODY_LIMIT: '20mb' })).toEqual(
      E.left(['TRACELIGHT_API_BODY_LIMIT (20mb) must not be more than TRACELIGHT_BODY_LIMIT (10mb), which bounds every body']),
    );
    expect(loadConfig({ TRACELIGHT_API_BODY_LIMIT: '10mb' })).toEqual(E.right(expect.objectContaining({ apiBodyLimitBytes: 10 * 1024 * 1024 })));
    // Left to its default, the API limit is capped by a smaller body limit, as documented.
    expect(loadConfig({ TRACELIGHT_BODY_LIMIT: '512kb' })).toEqual(E.right(expect.objectContaining({ bodyLimitBytes: 512 * 1024 })));
  });

  it('reads integers as decimal digits only', () => {
    expect(loadConfig({ TRACELIGHT_PORT: '8080' })).toEqual(E.right(expect.objectContaining({ port: 8080 })));
    for (const bad of ['0x50', '1e3', ' 80', '80 ', '+80', '80.0', '0b1010'])
      expect(loadConfig({ TRACELIGHT_PORT: bad })).toEqual(E.left([`TRACELIGHT_PORT must be an integer from 0 to 65535, got ${JSON.stringify(bad)}`]));
  });

  it('reads the SQLite quota as a size, none by default', () => {
    const quota = (v?: string) => E.map((c: { sqliteMaxBytes: number | undefined }) => c.sqliteMaxBytes)(loadConfig(v === undefined ? {} : { TRACELIGHT_SQLITE_MAX_BYTES: v }));
    expect(quota()).toEqual(E.right(undefined));
    expect(quota('512mb')).toEqual(E.right(512 * 1024 * 1024));
    expect(quota('20gb')).toEqual(E.right(20 * 1024 ** 3));
    expect(quota('65536')).toEqual(E.right(65_536));
    for (const bad of ['1kb', 'lots', '1.5gb'])
      expect(E.mapLeft((p: ReadonlyArray<string>) => p.join())(quota(bad))).toEqual(E.left(expect.stringContaining('TRACELIGHT_SQLITE_MAX_BYTES must be a size of at least 64kb')));
  });

  it('bounds the stop: 10 s, clients given half of it unless told, a grace of at least the whole stop refused', () => {
    const stop = (env: Record<string, string>) => E.map((c: { shutdownTimeoutMs: number; shutdownClientGraceMs: number }) => [c.shutdownTimeoutMs, c.shutdownClientGraceMs])(loadConfig(env));
    expect(stop({})).toEqual(E.right([10_000, 5_000]));
    expect(stop({ TRACELIGHT_SHUTDOWN_TIMEOUT_MS: '25000' })).toEqual(E.right([25_000, 12_500]));
    expect(stop({ TRACELIGHT_SHUTDOWN_TIMEOUT_MS: '1001' })).toEqual(E.right([1_001, 500]));
    expect(stop({ TRACELIGHT_SHUTDOWN_CLIENT_GRACE_MS: '1000' })).toEqual(E.right([10_000, 1_000]));
    expect(stop({ TRACELIGHT_SHUTDOWN_CLIENT_GRACE_MS: '0' })).toEqual(E.right([10_000, 0]));
    expect(stop({ TRACELIGHT_SHUTDOWN_TIMEOUT_MS: '999' })).toEqual(E.left(['TRACELIGHT_SHUTDOWN_TIMEOUT_MS must be an integer from 1000 to 3600000, got "999"']));
    expect(stop({ TRACELIGHT_SHUTDOWN_TIMEOUT_MS: '4000', TRACELIGHT_SHUTDOWN_CLIENT_GRACE_MS: '4000' })).toEqual(
      E.left([
        'TRACELIGHT_SHUTDOWN_CLIENT_GRACE_MS (4000) must be less than TRACELIGHT_SHUTDOWN_TIMEOUT_MS (4000): clients are cut off after it so that the stop can end before it is forced',
      ]),
    );
    expect(stop({ TRACELIGHT_SHUTDOWN_CLIENT_GRACE_MS: 'soon' })).toEqual(E.left(['TRACELIGHT_SHUTDOWN_CLIENT_GRACE_MS must be an integer from 0 to 3600000, got "soon"']));
  });
});
