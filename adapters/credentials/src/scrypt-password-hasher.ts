// Passwords: scrypt with a random salt, self-describing encoding, constant-time comparison.
import { PasswordHasher } from '@tracelight/ports';
import * as crypto from 'node:crypto';
import { inject, injectable } from 'inversify';
import { CredentialsConfig } from './config';

/** log2 of scrypt's N for new hashes when none is configured: N = 32768, 32 MiB a hash (r = 8). */
export const DEFAULT_PASSWORD_COST = 15;
/** The costs that may be configured: 2^14 (16 MiB a hash) to 2^18 (256 MiB). */
export const PASSWORD_COSTS = { min: 14, max: 18 } as const;

/**
 * TRACELIGHT_PASSWORD_COST as the server and the admin CLI read it (the default when unset or empty),
 * or what is wrong with it.
 */
export const passwordCostSetting = (raw: string | undefined): { readonly cost: number } | { readonly problem: string } => {
  if (raw === undefined || raw === '') return { cost: DEFAULT_PASSWORD_COST };
  const cost = /^\d{1,2}$/.test(raw) ? Number(raw) : Number.NaN;
  return cost >= PASSWORD_COSTS.min && cost <= PASSWORD_COSTS.max
    ? { cost }
    : { problem: `TRACELIGHT_PASSWORD_COST must be an integer from ${PASSWORD_COSTS.min} to ${PASSWORD_COSTS.max}, got ${JSON.stringify(raw)}` };
};

const R = 8;
const P = 1;
const KEY_LENGTH = 32;

const scrypt = (password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> =>
  new Promise((resolve, reject) =>
    crypto.scrypt(password, salt, KEY_LENGTH, { N: n, r, p, maxmem: 128 * n * r * 2 }, (e, key) =>
      e ? reject(e) : resolve(key),
    ),
  );

/** The parts of a stored hash, or undefined for one this hasher cannot have made. */
const parse = (encoded: string) => {
  const parts = encoded.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [n, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  // N a power of two above 1 (as scrypt takes it), r and p whole: anything else scrypt refuses at once.
  if (!Number.isSafeInteger(n) || n < 2 || n > 1 << 20 || (n & (n - 1)) !== 0) return undefined;
  if (!Number.isSafeInteger(r) || r < 1 || r > 32 || !Number.isSafeInteger(p) || p < 1 || p > 16) return undefined;
  const salt = Buffer.from(parts[4]!, 'base64url');
  const key = Buffer.from(parts[5]!, 'base64url');
  return key.length === KEY_LENGTH ? { n, r, p, salt, key } : undefined;
};

@injectable()
export class ScryptPasswordHasher implements PasswordHasher {
  private readonly n: number;
  /** What every hash made now starts with: its scheme and parameters. */
  private readonly prefix: string;
  /** A hash at the current cost, made once, checked against in place of one that cannot be checked. */
  private filler: Promise<string> | undefined;

  constructor(@inject(CredentialsConfig) config: Pick<CredentialsConfig, 'passwordCost'> = {}) {
    const cost = config.passwordCost ?? DEFAULT_PASSWORD_COST;
    if (!Number.isInteger(cost) || cost < PASSWORD_COSTS.min || cost > PASSWORD_COSTS.max)
      throw new RangeError(`passwordCost must be an integer from ${PASSWORD_COSTS.min} to ${PASSWORD_COSTS.max}, got ${cost}`);
    this.n = 2 ** cost;
    this.prefix = `scrypt$${this.n}$${R}$${P}$`;
  }

  async hash(password: string): Promise<string> {
    const salt = crypto.randomBytes(16);
    const key = await scrypt(password, salt, this.n, R, P);
    return `${this.prefix}${salt.toString('base64url')}$${key.toString('base64url')}`;
  }

  async verify(password: string, encoded: string): Promise<boolean> {
    const parsed = parse(encoded);
    if (parsed === undefined) return false;
    try {
      return crypto.timingSafeEqual(await scrypt(password, parsed.salt, parsed.n, parsed.r, parsed.p), parsed.key);
    } catch {
      return false;
    }
  }

  async hardenRuntime(password: string, encoded: string): Promise<void> {
    const parsed = parse(encoded);
    // One that cannot be checked, or not made with this r and p (so its time is not N's alone): one check
    // at the current cost instead.
    if (parsed === undefined || parsed.r !== R || parsed.p !== P) {
      const filler = (this.filler ??= this.hash('a hash at the current cost, for hashes that cannot be checked'));
      try {
        await this.verify(password, await filler);
      } catch {
        this.filler = undefined;
      }
      return;
    }
    // scrypt's time grows with N: a hash made at N/4 takes three checks more (N is a power of two, so
    // this is a whole number, at most 2^18 / 2 − 1).
    for (let extra = this.n / parsed.n - 1; extra > 0; extra--) await this.verify(password, encoded);
  }

  // Asked after a check that succeeded (of a hash that parses), on every Basic request: a prefix suffices.
  needsRehash(encoded: string): boolean {
    return !encoded.startsWith(this.prefix);
  }
}
