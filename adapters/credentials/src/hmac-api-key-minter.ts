// API keys: 32 random bytes behind a recognisable prefix; stored as an HMAC under a server key, so a
// leaked database alone does not let anyone test guesses.
import { type MintedApiKey, ApiKeyMinter } from '@tracelight/ports';
import * as crypto from 'node:crypto';
import { inject, injectable } from 'inversify';
import { CredentialsConfig } from './config';
import { deriveKey } from './keys';

export const API_KEY_PREFIX = 'tl_';

@injectable()
export class HmacApiKeyMinter implements ApiKeyMinter {
  /** A KeyObject, not a Buffer: an HMAC is keyed on every request with a key, and this skips importing the bytes each time. */
  private readonly key: crypto.KeyObject;
  /** The previous master key's, during a rotation. */
  private readonly previousKey: crypto.KeyObject | undefined;

  constructor(@inject(CredentialsConfig) config: CredentialsConfig) {
    this.key = crypto.createSecretKey(deriveKey(config.secretKey, 'api-key-hash'));
    this.previousKey = config.previousSecretKey && crypto.createSecretKey(deriveKey(config.previousSecretKey, 'api-key-hash'));
  }

  mint(): MintedApiKey {
    const secret = `${API_KEY_PREFIX}${crypto.randomBytes(32).toString('base64url')}`;
    return { secret, hash: this.hashOf(secret), truncated: `${secret.slice(0, 7)}…${secret.slice(-4)}` };
  }

  hashOf(secret: string): string {
    return crypto.createHmac('sha256', this.key).update(secret, 'utf8').digest('hex');
  }

  previousHashesOf(secret: string): ReadonlyArray<string> {
    return this.previousKey ? [crypto.createHmac('sha256', this.previousKey).update(secret, 'utf8').digest('hex')] : [];
  }

  sameHash(a: string, b: string): boolean {
    const x = Buffer.from(a, 'utf8');
    const y = Buffer.from(b, 'utf8');
    return x.length === y.length && crypto.timingSafeEqual(x, y);
  }
}
