import { type ApiKeyId, type RefreshFamilyId, type UserId, asId } from '@tracelight/domain';
import * as E from 'fp-ts/Either';
import * as O from 'fp-ts/Option';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AesGcmSecretSealer, pad, unpad } from './aes-gcm-secret-sealer';
import { CachingPasswordHasher } from './caching-password-hasher';
import type { CredentialsConfig } from './config';
import { HmacApiKeyMinter } from './hmac-api-key-minter';
import { JwtTokenSigner } from './jwt-token-signer';
import { deriveKey, loadOrCreateSecretKey } from './keys';
import { passwordCostSetting, ScryptPasswordHasher } from './scrypt-password-hasher';
import { TimeOrderedUuid4IdGenerator } from './system/time-ordered-uuid4-id-generator';
import { randomBytes } from './system/random-pool';

const config = (over: Partial<CredentialsConfig> = {}): CredentialsConfig => ({
  secretKey: crypto.randomBytes(32),
  tokenTtlSeconds: 3600,
  refreshTokenTtlSeconds: 86400,
  passwordCacheTtlSeconds: 60,
  ...over,
});
const USER = '0190f7a4-0000-7000-8000-000000000001' as UserId;

describe('ScryptPasswordHasher', () => {
  const hasher = new ScryptPasswordHasher();
  it('verifies the right password only', async () => {
    const hash = await hasher.hash('correct horse');
    expect(hash).not.toContain('correct horse');
    expect(await hasher.verify('correct horse', hash)).toBe(true);
    expect(await hasher.verify('wrong horse', hash)).toBe(false);
    expect(await hasher.hash('correct horse')).not.toBe(hash);
  });
  it('answers false for malformed hashes', async () => {
    for (const bad of ['', 'scrypt$1$2', 'bcrypt$a$b$c$d$e', 'scrypt$abc$8$1$AAAA$BBBB', 'scrypt$2097152$8$1$AAAA$BBBB']) {
      expect(await hasher.verify('x', bad)).toBe(false);
    }
  });
  it('hashes at the configured cost, verifies hashes of any cost, and asks for a new hash of another cost only', async () => {
    const cheaper = new ScryptPasswordHasher({ passwordCost: 14 });
    const old = await cheaper.hash('correct horse');
    expect(old.startsWith('scrypt$16384$8$1$')).toBe(true);
    expect((await hasher.hash('correct horse')).startsWith('scrypt$32768$8$1$')).toBe(true);
    expect(await hasher.verify('correct horse', old)).toBe(true);
    expect(hasher.needsRehash(old)).toBe(true);
    expect(cheaper.needsRehash(old)).toBe(false);
    expect(hasher.needsRehash(await hasher.hash('correct horse'))).toBe(false);
    expect(hasher.needsRehash('bcrypt$a$b$c$d$e')).toBe(true);
    expect(() => new ScryptPasswordHasher({ passwordCost: 19 })).toThrow(RangeError);
  });
  it('makes a failed check of a cheaper or unreadable hash as much work as one at the current cost, and adds nothing to others', async () => {
    const counting = (passwordCost: number) =>
      new (class extends ScryptPasswordHasher {
        checks: number[] = [];
        override verify(password: string, hash: string): Promise<boolean> {
          this.checks.push(Number(hash.split('$')[1]));
          return super.verify(password, hash);
        }
      })({ passwordCost });
    const at14 = await new ScryptPasswordHasher({ passwordCost: 14 }).hash('right');
    const at15 = await new ScryptPasswordHasher({ passwordCost: 15 }).hash('right');
    const h15 = counting(15);
    await h15.hardenRuntime('wrong', at14);
    expect(h15.checks).toEqual([16384]);
    h15.checks = [];
    await h15.hardenRuntime('wrong', at15);
    expect(h15.checks).toEqual([]);
    // One a cost higher than now takes longer already: nothing is added (docs/security.md says so).
    const h14 = counting(14);
    await h14.hardenRuntime('wrong', at15);
    expect(h14.checks).toEqual([]);
    // Three more at 2^14 for a hash at 2^14 when the cost is 16: four in all, as one at 2^16 takes.
    const h16 = counting(16);
    await h16.hardenRuntime('wrong', at14);
    expect(h16.checks).toEqual([16384, 16384, 16384]);
    // A hash that cannot be checked fails at once in verify: one check at the current cost instead.
    // A hash that cannot be checked (scrypt refuses its parameters, which verify now says at once), or
    // made with another r or p: one check at the current cost instead, never a loop on its N.
    const salt = at14.split('$')[4];
    const key = at14.split('$')[5];
    for (const odd of ['not a hash', `scrypt$-1$8$1$${salt}$${key}`, `scrypt$3$8$1$${salt}$${key}`, `scrypt$0.5$8$1$${salt}$${key}`, `scrypt$32767$8$1$${salt}$${key}`, `scrypt$32768$1$1$${salt}$${key}`]) {
      h15.checks = [];
      expect(await h15.verify('right', odd)).toBe(false);
      h15.checks = [];
      await h15.hardenRuntime('wrong', odd);
      expect([odd, h15.checks]).toEqual([odd, [32768]]);
    }
  });
  it('reads TRACELIGHT_PASSWORD_COST: 15 unset, 14 to 18, and says what is wrong otherwise', () => {
    expect(passwordCostSetting(undefined)).toEqual({ cost: 15 });
    expect(passwordCostSetting('')).toEqual({ cost: 15 });
    expect(passwordCostSetting('17')).toEqual({ cost: 17 });
    for (const bad of ['13', '19', '0x10', '1e1', ' 15', '15.0'])
      expect(passwordCostSetting(bad)).toEqual({ problem: `TRACELIGHT_PASSWORD_COST must be an integer from 14 to 18, got ${JSON.stringify(bad)}` });
  });
});

/** The real scrypt hasher, counting how often it actually runs. */
class CountingScrypt extends ScryptPasswordHasher {
  verifications = 0;
  override verify(password: string, hash: string): Promise<boolean> {
    this.verifications += 1;
    return super.verify(password, hash);
  }
}

describe('CachingPasswordHasher', () => {
  it('serves a repeated successful verification from memory, and never a different password', async () => {
    const scrypt = new CountingScrypt();
    const caching = new CachingPasswordHasher(scrypt, config());
    const hash = await caching.hash('s3cret-password');
    expect(await caching.verify('s3cret-password', hash)).toBe(true);
    expect(await caching.verify('s3cret-password', hash)).toBe(true);
    expect(scrypt.verifications).toBe(1);
    expect(await caching.verify('s3cret-passwore', hash)).toBe(false);
    expect(await caching.verify('s3cret-passwore', hash)).toBe(false);
    expect(scrypt.verifications).toBe(3);
    expect(await caching.verify('s3cret-password', await caching.hash('s3cret-password'))).toBe(true);
  });
  it('does not cache when the TTL is zero', async () => {
    const scrypt = new CountingScrypt();
    const caching = new CachingPasswordHasher(scrypt, config({ passwordCacheTtlSeconds: 0 }));
    const hash = await caching.hash('pw-pw-pw-pw');
    expect(await caching.verify('pw-pw-pw-pw', hash)).toBe(true);
    expect(await caching.verify('pw-pw-pw-pw', hash)).toBe(true);
    expect(scrypt.verifications).toBe(2);
  });
});

describe('HmacApiKeyMinter', () => {
  it('mints unique high-entropy keys whose hash depends on the server key', () => {
    const minter = new HmacApiKeyMinter(config());
    const keys = Array.from({ length: 100 }, () => minter.mint());
    expect(new Set(keys.map((k) => k.secret)).size).toBe(100);
    const k = keys[0]!;
    expect(k.secret).toMatch(/^tl_[A-Za-z0-9_-]{43}$/);
    expect(minter.hashOf(k.secret)).toBe(k.hash);
    expect(k.hash).not.toContain(k.secret);
    expect(new HmacApiKeyMinter(config()).hashOf(k.secret)).not.toBe(k.hash);
    expect(k.truncated).toBe(`${k.secret.slice(0, 7)}…${k.secret.slice(-4)}`);
    expect(minter.sameHash(k.hash, k.hash)).toBe(true);
    expect(minter.sameHash(k.hash, keys[1]!.hash)).toBe(false);
    expect(minter.sameHash(k.hash, 'short')).toBe(false);
  });

  it('hashes as HMAC-SHA256 under the key derived from the server key, so stored hashes outlive a restart', () => {
    const c = config();
    const secret = new HmacApiKeyMinter(c).mint().secret;
    const expected = crypto.createHmac('sha256', deriveKey(c.secretKey, 'api-key-hash')).update(secret, 'utf8').digest('hex');
    expect(new HmacApiKeyMinter(c).hashOf(secret)).toBe(expected);
    expect(new HmacApiKeyMinter({ ...c }).hashOf(secret)).toBe(expected);
  });
});

describe('JwtTokenSigner', () => {
  const signer = new JwtTokenSigner(config({ tokenTtlSeconds: 600 }));
  const now = new Date('2026-11-23T10:00:00Z');
  const SESSION = { startedAt: now, apiKeyId: null };

  it('round-trips, and is a standard JWT with a numeric exp', () => {
    const t = signer.issue(USER, now, SESSION);
    const payload = JSON.parse(Buffer.from(t.accessToken.split('.')[1]!, 'base64url').toString());
    expect(payload).toMatchObject({ sub: USER, iat: now.getTime() / 1000, exp: now.getTime() / 1000 + 600, auth_time: now.getTime() / 1000 });
    expect(payload.akid).toBeUndefined();
    expect(JSON.parse(Buffer.from(t.accessToken.split('.')[0]!, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(signer.verify(t.accessToken, now)).toEqual(
      E.right({ userId: USER, issuedAt: now, expiresAt: new Date(now.getTime() + 600_000), session: SESSION }),
    );
  });

  it('never lives past notAfter, the end of its session; a later end leaves its lifetime as it is', () => {
    const end = new Date(now.getTime() + 120_500);
    expect(signer.issue(USER, now, SESSION, end).expiresAt).toEqual(new Date(now.getTime() + 120_000));
    expect(signer.issueRefresh(USER, now, SESSION, undefined, end).expiresAt).toEqual(new Date(now.getTime() + 120_000));
    expect(signer.issue(USER, now, SESSION, new Date(now.getTime() + 3_600_000)).expiresAt).toEqual(new Date(now.getTime() + 600_000));
  });

  it('carries its session on: when it began and with which API key, through a refresh', () => {
    // To the millisecond: a revocation tells apart a sign-in in the same second.
    const began = new Date('2026-11-20T08:00:00.123Z');
    const session = { startedAt: began, apiKeyId: asId<ApiKeyId>('key-1') };
    const t = signer.issue(USER, now, session);
    expect(E.map((c: { session: unknown }) => c.session)(signer.verify(t.accessToken, now))).toEqual(E.right(session));
    const r = signer.issueRefresh(USER, now, session);
    expect(E.map((c: { session: unknown }) => c.session)(signer.verifyRefresh(r.token, now))).toEqual(E.right(session));
  });

  it('names a session’s refresh family in its tokens, and a refresh token’s generation, and makes the same refresh token again for the same family, generation and time', () => {
    const session = { startedAt: new Date('2026-11-20T08:00:00.123Z'), apiKeyId: null, familyId: asId<RefreshFamilyId>('0190b0b0-0000-7000-8000-00000000000f') };
    const access = signer.issue(USER, now, session);
    expect(E.map((c: object) => c)(signer.verify(access.accessToken, now))).toEqual(
      E.right({ userId: USER, issuedAt: now, expiresAt: new Date(now.getTime() + 600_000), session }),
    );
    const r = signer.issueRefresh(USER, now, session, 7);
    expect(E.map((c: { session: unknown; generation?: number }) => [c.session, c.generation])(signer.verifyRefresh(r.token, now))).toEqual(E.right([session, 7]));
    const later = new Date(now.getTime() + 30_000);
    // Made again later, from the same rotation time: byte for byte the same (the grace window answers it).
    expect(signer.issueRefresh(USER, now, session, 7)).toEqual(r);
    expect(signer.issueRefresh(USER, now, session, 8).token).not.toBe(r.token);
    expect(signer.issueRefresh(USER, later, session, 7).token).not.toBe(r.token);
    expect(signer.issueRefresh(USER, now, { ...session, familyId: asId<RefreshFamilyId>('0190b0b0-0000-7000-8000-00000000000e') }, 7).token).not.toBe(r.token);
    // Tokens without a family stay unique, as before.
    expect(signer.issueRefresh(USER, now, SESSION).token).not.toBe(signer.issueRefresh(USER, now, SESSION).token);
  });

  it('reads a token of an older build, without a session, as a session begun when it was issued', () => {
    const c = config();
    const own = new JwtTokenSigner(c);
    const t = own.issue(USER, now, SESSION).accessToken;
    const [h, p] = t.split('.') as [string, string, string];
    const { auth_time: _dropped, ...older } = JSON.parse(Buffer.from(p, 'base64url').toString());
    const payload = Buffer.from(JSON.stringify(older)).toString('base64url');
    const signature = crypto.createHmac('sha256', deriveKey(c.secretKey, 'access-token')).update(`${h}.${payload}`).digest('base64url');
    expect(E.map((claims: { session: unknown }) => claims.session)(own.verify(`${h}.${payload}.${signature}`, now))).toEqual(E.right(SESSION));
  });

  it('keeps access and refresh tokens apart', () => {
    const refresh = signer.issueRefresh(USER, now, SESSION);
    expect(refresh.expiresAt).toEqual(new Date(now.getTime() + 86_400_000));
    expect(E.isRight(signer.verifyRefresh(refresh.token, now))).toBe(true);
    expect(E.isLeft(signer.verify(refresh.token, now))).toBe(true);
    expect(E.isLeft(signer.verifyRefresh(signer.issue(USER, now, SESSION).accessToken, now))).toBe(true);
  });

  it('rejects expired, tampered, foreign-key and alg-none tokens', () => {
    const t = signer.issue(USER, now, SESSION).accessToken;
    expect(E.isLeft(signer.verify(t, new Date(now.getTime() + 600_000)))).toBe(true);
    const [h, p, s] = t.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url');
    expect(E.isLeft(signer.verify(`${h}.${forged}.${s}`, now))).toBe(true);
    expect(E.isLeft(signer.verify(`${h}.${p}.${s.slice(0, -2)}xx`, now))).toBe(true);
    expect(E.isLeft(new JwtTokenSigner(config()).verify(t, now))).toBe(true);
    const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    expect(E.isLeft(signer.verify(`${none}.${p}.`, now))).toBe(true);
    expect(E.isLeft(signer.verify('garbage', now))).toBe(true);
  });
});

describe('AesGcmSecretSealer', () => {
  const CTX = 'integration/gateway/user-1';
  it('round-trips, randomises and detects tampering or another key', () => {
    const cfg = config();
    const sealer = new AesGcmSecretSealer(cfg);
    const a = sealer.seal('gateway-token', CTX);
    expect(a).not.toContain('gateway-token');
    expect(a.startsWith('v3.')).toBe(true);
    expect(sealer.seal('gateway-token', CTX)).not.toBe(a);
    expect(sealer.open(a, CTX)).toEqual(E.right('gateway-token'));
    const parts = a.split('.');
    const data = Buffer.from(parts[2]!, 'base64url');
    data[0] = data[0]! ^ 1;
    expect(E.isLeft(sealer.open([parts[0], parts[1], data.toString('base64url'), parts[3]].join('.'), CTX))).toBe(true);
    expect(E.isLeft(new AesGcmSecretSealer(config()).open(a, CTX))).toBe(true);
    expect(E.isLeft(sealer.open('v1.x.y', CTX))).toBe(true);
  });

  it('opens a sealed value only under the context it was sealed for (a copy in another user’s row does not open)', () => {
    const sealer = new AesGcmSecretSealer(config());
    const a = sealer.seal('gateway-token', CTX);
    expect(sealer.open(a, 'integration/gateway/user-2')).toEqual(E.left('sealed secret failed authentication'));
  });

  it('does not tell a secret\'s length: every secret under 64 bytes seals to the same size, longer ones by powers of two', () => {
    const sealer = new AesGcmSecretSealer(config());
    const sizes = ['', 'a', 'gateway-token', 'é'.repeat(31), 'x'.repeat(63)].map((p) => sealer.seal(p, CTX).length);
    expect(new Set(sizes).size).toBe(1);
    expect(sealer.seal('x'.repeat(64), CTX).length).toBeGreaterThan(sizes[0]!);
    expect(sealer.seal('x'.repeat(64), CTX).length).toBe(sealer.seal('x'.repeat(127), CTX).length);
    for (const p of ['', 'a', '\u0000trailing\u0000', 'é'.repeat(31), 'x'.repeat(63), 'x'.repeat(64), '🔑'.repeat(300)]) expect(sealer.open(sealer.seal(p, CTX), CTX)).toEqual(E.right(p));
  });

  it('pads unambiguously, and refuses what padding cannot have made', () => {
    expect(pad(Buffer.from('ab')).length).toBe(64);
    expect(unpad(pad(Buffer.from('ab\u0000\u0080', 'latin1')))).toEqual(Buffer.from('ab\u0000\u0080', 'latin1'));
    expect(unpad(Buffer.alloc(64))).toBeUndefined();
    expect(unpad(Buffer.from([0x61, 0x01, 0x00]))).toBeUndefined();
  });

  it('still opens values sealed unpadded with a context (v2)', () => {
    const cfg = config();
    const key = deriveKey(cfg.secretKey, 'secret-sealing');
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(`tracelight/sealed-secret/v2\u0000${CTX}`, 'utf8'));
    const data = Buffer.concat([cipher.update('v2 token', 'utf8'), cipher.final()]);
    const v2 = ['v2', iv.toString('base64url'), data.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
    const sealer = new AesGcmSecretSealer(cfg);
    expect(sealer.open(v2, CTX)).toEqual(E.right('v2 token'));
    expect(E.isLeft(sealer.open(v2, 'integration/gateway/user-2'))).toBe(true);
    // A v2 value relabelled v3 fails authentication: the version is bound by the label.
    expect(E.isLeft(sealer.open(v2.replace(/^v2/, 'v3'), CTX))).toBe(true);
  });

  it('still opens values sealed before contexts (v1), whatever the context', () => {
    const cfg = config();
    const key = deriveKey(cfg.secretKey, 'secret-sealing');
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from('tracelight/sealed-secret/v1'));
    const data = Buffer.concat([cipher.update('older token', 'utf8'), cipher.final()]);
    const v1 = ['v1', iv.toString('base64url'), data.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
    expect(new AesGcmSecretSealer(cfg).open(v1, CTX)).toEqual(E.right('older token'));
  });
});

describe('loadOrCreateSecretKey', () => {
  it('creates a 0600 key file once and reads the same key back', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-key-'));
    const first = loadOrCreateSecretKey({ dataDir: path.join(dir, 'nested') });
    const file = path.join(dir, 'nested', 'secret.key');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(loadOrCreateSecretKey({ dataDir: path.join(dir, 'nested') }).equals(first)).toBe(true);
    expect(first.length).toBe(32);
  });
  it("leaves alone the temporary file of another process that has this one's pid (another container on the same volume)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-key-'));
    const theirs = path.join(dir, `secret.key.${process.pid}.tmp`);
    fs.writeFileSync(theirs, 'being written by the other process\n');
    loadOrCreateSecretKey({ dataDir: dir });
    expect(fs.readFileSync(theirs, 'utf8')).toBe('being written by the other process\n');
    expect(fs.readdirSync(dir).sort()).toEqual(['secret.key', path.basename(theirs)]);
  });
  it('tightens a readable key file to 0600', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-key-'));
    loadOrCreateSecretKey({ dataDir: dir });
    fs.chmodSync(path.join(dir, 'secret.key'), 0o644);
    loadOrCreateSecretKey({ dataDir: dir });
    expect(fs.statSync(path.join(dir, 'secret.key')).mode & 0o777).toBe(0o600);
  });
  it('uses the environment key when given, and rejects a short one', () => {
    const hex = crypto.randomBytes(32).toString('hex');
    expect(loadOrCreateSecretKey({ fromEnv: hex, dataDir: '/nonexistent' }).toString('hex')).toBe(hex);
    expect(() => loadOrCreateSecretKey({ fromEnv: 'short', dataDir: '/nonexistent' })).toThrow(/at least 32 bytes/);
  });
});

describe('TimeOrderedUuid4IdGenerator', () => {
  it('makes version-4 RFC 9562 ids (the nibble pydantic\'s UUID4 checks) that sort in generation order', () => {
    const gen = new TimeOrderedUuid4IdGenerator();
    const ids = Array.from({ length: 10_000 }, () => gen.next());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(Math.abs(parseInt(ids[0]!.replace(/-/g, '').slice(0, 12), 16) - Date.now())).toBeLessThan(5000);
  });
});

describe('random pool', () => {
  it('hands out fresh bytes each time, across refills', () => {
    // 12-byte draws over several 4 KiB refills: no two alike (a repeat would mean reused pool bytes).
    const draws = Array.from({ length: 2000 }, () => randomBytes(12));
    expect(draws.every((b) => b.length === 12)).toBe(true);
    expect(new Set(draws.map((b) => b.toString('hex'))).size).toBe(draws.length);
    // Each draw is a copy: the pool wipes what it handed out, and a view into the pool would read as zeros.
    expect(draws.some((b) => b.equals(Buffer.alloc(12)))).toBe(false);
    // Bytes look random: over 24,000 draws every byte value appears.
    expect(new Set(draws.flatMap((b) => [...b])).size).toBe(256);
    expect(randomBytes(4096).length).toBe(4096);
  });
});

describe('a rotation of the master key (previousSecretKey)', () => {
  const now = new Date('2026-11-23T10:00:00Z');
  const SESSION = { startedAt: now, apiKeyId: null };
  const before = config();
  const during = config({ previousSecretKey: before.secretKey });
  const after = config({ secretKey: during.secretKey });
  const stranger = config({ previousSecretKey: crypto.randomBytes(32) });

  it('verifies tokens the previous key signed, signs new ones with the new key only', () => {
    const old = new JwtTokenSigner(before).issue(USER, now, SESSION).accessToken;
    const oldRefresh = new JwtTokenSigner(before).issueRefresh(USER, now, SESSION).token;
    expect(E.isRight(new JwtTokenSigner(during).verify(old, now))).toBe(true);
    expect(E.isRight(new JwtTokenSigner(during).verifyRefresh(oldRefresh, now))).toBe(true);
    expect(new JwtTokenSigner(after).verify(old, now)).toEqual(E.left('bad token signature'));
    expect(new JwtTokenSigner(stranger).verify(old, now)).toEqual(E.left('bad token signature'));
    const fresh = new JwtTokenSigner(during).issue(USER, now, SESSION).accessToken;
    expect(E.isRight(new JwtTokenSigner(after).verify(fresh, now))).toBe(true);
    expect(E.isLeft(new JwtTokenSigner(before).verify(fresh, now))).toBe(true);
  });

  it('opens what the previous key sealed, seals with the new key only', () => {
    const CTX = 'integration/gateway/user-1';
    const old = new AesGcmSecretSealer(before).seal('gateway-token', CTX);
    expect(new AesGcmSecretSealer(during).open(old, CTX)).toEqual(E.right('gateway-token'));
    expect(new AesGcmSecretSealer(during).open(old, 'integration/gateway/user-2')).toEqual(E.left('sealed secret failed authentication'));
    expect(new AesGcmSecretSealer(after).open(old, CTX)).toEqual(E.left('sealed secret failed authentication'));
    const fresh = new AesGcmSecretSealer(during).seal('gateway-token', CTX);
    expect(new AesGcmSecretSealer(after).open(fresh, CTX)).toEqual(E.right('gateway-token'));
    expect(E.isLeft(new AesGcmSecretSealer(before).open(fresh, CTX))).toBe(true);
  });

  it('seals anew under the new key what the previous key or an earlier format sealed, and nothing else', () => {
    const CTX = 'integration/gateway/user-1';
    const sealer = new AesGcmSecretSealer(during);
    const old = new AesGcmSecretSealer(before).seal('gateway-token', CTX);
    const resealed = sealer.reseal(old, CTX);
    if (E.isLeft(resealed) || O.isNone(resealed.right)) throw new Error(`expected a new seal, got ${JSON.stringify(resealed)}`);
    const fresh = resealed.right.value;
    expect(fresh.startsWith('v3.')).toBe(true);
    expect(new AesGcmSecretSealer(after).open(fresh, CTX)).toEqual(E.right('gateway-token'));
    expect(E.isLeft(new AesGcmSecretSealer(before).open(fresh, CTX))).toBe(true);
    // What the current key sealed in the current format stays.
    expect(sealer.reseal(fresh, CTX)).toEqual(E.right(O.none));
    expect(sealer.reseal(sealer.seal('x', CTX), CTX)).toEqual(E.right(O.none));
    // An earlier format under the current key is brought to v3 (padded), outside a rotation too.
    const key = deriveKey(after.secretKey, 'secret-sealing');
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(`tracelight/sealed-secret/v2\u0000${CTX}`, 'utf8'));
    const data = Buffer.concat([cipher.update('v2 token', 'utf8'), cipher.final()]);
    const v2 = ['v2', iv.toString('base64url'), data.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
    const upgraded = new AesGcmSecretSealer(after).reseal(v2, CTX);
    expect(E.isRight(upgraded) && O.isSome(upgraded.right) && upgraded.right.value.startsWith('v3.')).toBe(true);
    if (E.isRight(upgraded) && O.isSome(upgraded.right)) expect(new AesGcmSecretSealer(after).open(upgraded.right.value, CTX)).toEqual(E.right('v2 token'));
    // Neither key, or another context: Left, as open says.
    expect(new AesGcmSecretSealer(stranger).reseal(old, CTX)).toEqual(E.left('sealed secret failed authentication'));
    expect(sealer.reseal(old, 'integration/gateway/user-2')).toEqual(E.left('sealed secret failed authentication'));
  });

  it('gives an API key the hash the previous key gave it, besides the new one; none outside a rotation', () => {
    const k = new HmacApiKeyMinter(before).mint();
    const minter = new HmacApiKeyMinter(during);
    expect(minter.previousHashesOf(k.secret)).toEqual([k.hash]);
    expect(minter.hashOf(k.secret)).toBe(new HmacApiKeyMinter(after).hashOf(k.secret));
    expect(minter.hashOf(k.secret)).not.toBe(k.hash);
    expect(new HmacApiKeyMinter(after).previousHashesOf(k.secret)).toEqual([]);
  });
});
