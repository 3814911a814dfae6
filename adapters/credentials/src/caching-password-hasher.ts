// HTTP Basic sends the password on every request; scrypt costs ~50 ms. A successful verification
// is remembered briefly, keyed by an HMAC of (stored hash, password) — never the password itself —
// so a changed password misses at once, and failures are never cached.
import { PasswordHasher } from '@tracelight/ports';
import * as crypto from 'node:crypto';
import { inject, injectable } from 'inversify';
import { CredentialsConfig } from './config';
import { deriveKey } from './keys';
import { ScryptPasswordHasher } from './scrypt-password-hasher';

const MAX_ENTRIES = 10_000;

@injectable()
export class CachingPasswordHasher implements PasswordHasher {
  private readonly key: Buffer;
  private readonly ttlMs: number;
  /**
   * Until when each is remembered, on the monotonic clock (a wall clock set back would keep it that much
   * longer). Insertion-ordered: the first entry is the oldest, evicted first.
   */
  private readonly verified = new Map<string, number>();

  constructor(
    @inject(ScryptPasswordHasher) private readonly inner: ScryptPasswordHasher,
    @inject(CredentialsConfig) config: CredentialsConfig,
  ) {
    this.key = deriveKey(config.secretKey, 'password-cache');
    this.ttlMs = config.passwordCacheTtlSeconds * 1000;
  }

  hash(password: string): Promise<string> {
    return this.inner.hash(password);
  }

  hardenRuntime(password: string, hash: string): Promise<void> {
    return this.inner.hardenRuntime(password, hash);
  }

  needsRehash(hash: string): boolean {
    return this.inner.needsRehash(hash);
  }

  async verify(password: string, hash: string): Promise<boolean> {
    const id = crypto.createHmac('sha256', this.key).update(hash).update('\0').update(password).digest('base64url');
    const until = this.verified.get(id);
    if (until !== undefined && until > performance.now()) return true;
    if (until !== undefined) this.verified.delete(id);
    const ok = await this.inner.verify(password, hash);
    if (ok && this.ttlMs > 0) {
      if (this.verified.size >= MAX_ENTRIES) this.verified.delete(this.verified.keys().next().value!);
      this.verified.set(id, performance.now() + this.ttlMs);
    }
    return ok;
  }
}
