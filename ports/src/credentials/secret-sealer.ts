// Authenticated encryption of secrets at rest (provider tokens): seal before storing, open to use.
import type { Either } from 'fp-ts/Either';

export interface SecretSealer {
  /**
   * `context` names what the secret belongs to (e.g. `integration/gateway/<user id>`): a sealed value
   * opens only under the same context, so one copied to another row (another user's) does not open.
   */
  seal(plain: string, context: string): string;
  /** Left when the sealed value was tampered with, sealed under another key, or for another context. */
  open(sealed: string, context: string): Either<string, string>;
}
export const SecretSealer = Symbol.for('tracelight.SecretSealer');
