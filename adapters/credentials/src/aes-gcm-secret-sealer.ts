// Secrets at rest (provider tokens): AES-256-GCM, random 96-bit IV, authenticated with a purpose label
// and the context the secret belongs to (v2). Values sealed before contexts (v1) still open.
import { SecretSealer } from '@tracelight/ports';
import * as E from 'fp-ts/Either';
import * as crypto from 'node:crypto';
import { inject, injectable } from 'inversify';
import { CredentialsConfig } from './config';
import { deriveKey } from './keys';
import { randomBytes } from './system/random-pool';

const AAD_V1 = Buffer.from('tracelight/sealed-secret/v1');
const aadV2 = (context: string): Buffer => Buffer.from(`tracelight/sealed-secret/v2\u0000${context}`, 'utf8');

@injectable()
export class AesGcmSecretSealer implements SecretSealer {
  private readonly key: Buffer;

  constructor(@inject(CredentialsConfig) config: CredentialsConfig) {
    this.key = deriveKey(config.secretKey, 'secret-sealing');
  }

  seal(plain: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.key, iv).setAAD(aadV2(context));
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v2', iv, data, cipher.getAuthTag()].map((x) => (typeof x === 'string' ? x : x.toString('base64url'))).join('.');
  }

  open(sealed: string, context: string): E.Either<string, string> {
    const parts = sealed.split('.');
    if (parts.length !== 4 || (parts[0] !== 'v1' && parts[0] !== 'v2')) return E.left('not a sealed secret');
    const aad = parts[0] === 'v1' ? AAD_V1 : aadV2(context);
    const [iv, data, tag] = parts.slice(1).map((p) => Buffer.from(p, 'base64url')) as [Buffer, Buffer, Buffer];
    if (iv.length !== 12 || tag.length !== 16) return E.left('not a sealed secret');
    try {
      const decipher = crypto.createDecipheriv('aes-256-gcm', this.key, iv).setAAD(aad);
      decipher.setAuthTag(tag);
      return E.right(Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8'));
    } catch {
      return E.left('sealed secret failed authentication');
    }
  }
}
