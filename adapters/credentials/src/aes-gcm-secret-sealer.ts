// Secrets at rest (provider tokens): AES-256-GCM, random 96-bit IV, authenticated with a purpose label
// and the context the secret belongs to. v3 pads the secret before sealing it, so that what is stored
// (and any copy of the database) does not tell a secret's length, only its size class: up to 63 bytes,
// then powers of two. Values sealed before (v2: with a context, unpadded; v1: before contexts) still open.
import { SecretSealer } from '@tracelight/ports';
import * as E from 'fp-ts/Either';
import * as O from 'fp-ts/Option';
import * as crypto from 'node:crypto';
import { inject, injectable } from 'inversify';
import { CredentialsConfig } from './config';
import { deriveKey } from './keys';
import { randomBytes } from './system/random-pool';

const AAD_V1 = Buffer.from('tracelight/sealed-secret/v1');
const aadOf = (version: 'v2' | 'v3', context: string): Buffer => Buffer.from(`tracelight/sealed-secret/${version}\u0000${context}`, 'utf8');

/** The smallest padded size: every secret shorter than this looks alike. */
const MIN_PADDED = 64;

/**
 * `plain` followed by 0x80 and as many zero bytes as bring it to its size class (ISO/IEC 7816-4
 * padding: unambiguous, as the last non-zero byte is the marker).
 */
export const pad = (plain: Buffer): Buffer => {
  let size = MIN_PADDED;
  while (size < plain.length + 1) size *= 2;
  const out = Buffer.alloc(size);
  plain.copy(out);
  out[plain.length] = 0x80;
  return out;
};

/** What `pad` padded; undefined for a buffer it cannot have made. */
export const unpad = (padded: Buffer): Buffer | undefined => {
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  return end >= 0 && padded[end] === 0x80 ? padded.subarray(0, end) : undefined;
};

/** A sealed secret opened. */
interface Opened {
  readonly plain: string;
  readonly version: 'v1' | 'v2' | 'v3';
  readonly underCurrentKey: boolean;
}

@injectable()
export class AesGcmSecretSealer implements SecretSealer {
  private readonly key: Buffer;
  /** The previous master key's, during a rotation: what it sealed still opens. */
  private readonly previousKey: Buffer | undefined;

  constructor(@inject(CredentialsConfig) config: CredentialsConfig) {
    this.key = deriveKey(config.secretKey, 'secret-sealing');
    this.previousKey = config.previousSecretKey && deriveKey(config.previousSecretKey, 'secret-sealing');
  }

  seal(plain: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.key, iv).setAAD(aadOf('v3', context));
    const data = Buffer.concat([cipher.update(pad(Buffer.from(plain, 'utf8'))), cipher.final()]);
    return ['v3', iv, data, cipher.getAuthTag()].map((x) => (typeof x === 'string' ? x : x.toString('base64url'))).join('.');
  }

  open(sealed: string, context: string): E.Either<string, string> {
    return E.map((opened: Opened) => opened.plain)(this.opened(sealed, context));
  }

  reseal(sealed: string, context: string): E.Either<string, O.Option<string>> {
    return E.map((opened: Opened) => (opened.version === 'v3' && opened.underCurrentKey ? O.none : O.some(this.seal(opened.plain, context))))(
      this.opened(sealed, context),
    );
  }

  /** The secret in `sealed`, with what sealed it: its format, and whether the current key did. */
  private opened(sealed: string, context: string): E.Either<string, Opened> {
    const parts = sealed.split('.');
    const version = parts[0];
    if (parts.length !== 4 || (version !== 'v1' && version !== 'v2' && version !== 'v3')) return E.left('not a sealed secret');
    const aad = version === 'v1' ? AAD_V1 : aadOf(version, context);
    const [iv, data, tag] = parts.slice(1).map((p) => Buffer.from(p, 'base64url')) as [Buffer, Buffer, Buffer];
    if (iv.length !== 12 || tag.length !== 16) return E.left('not a sealed secret');
    const openWith = (key: Buffer): Buffer | undefined => {
      try {
        const decipher = crypto.createDecipheriv('aes-256-gcm', key, iv).setAAD(aad);
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(data), decipher.final()]);
      } catch {
        return undefined;
      }
    };
    const current = openWith(this.key);
    const opened = current ?? (this.previousKey && openWith(this.previousKey));
    if (opened === undefined) return E.left('sealed secret failed authentication');
    const underCurrentKey = current !== undefined;
    if (version !== 'v3') return E.right({ plain: opened.toString('utf8'), version, underCurrentKey });
    const plain = unpad(opened);
    return plain === undefined ? E.left('not a sealed secret') : E.right({ plain: plain.toString('utf8'), version, underCurrentKey });
  }
}
