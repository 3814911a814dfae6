// Authenticated encryption of secrets at rest (provider tokens): seal before storing, open to use.
import type { Either } from 'fp-ts/Either';
import type { Option } from 'fp-ts/Option';

export interface SecretSealer {
  /**
   * `context` names what the secret belongs to (e.g. `integration/gateway/<user id>`): a sealed value
   * opens only under the same context, so one copied to another row (another user's) does not open.
   */
  seal(plain: string, context: string): string;
  /** Left when the sealed value was tampered with, sealed under another key, or for another context. */
  open(sealed: string, context: string): Either<string, string>;
  /**
   * `sealed` sealed anew under the current key, in the current format (Some), when an earlier key
   * (during a rotation) or format sealed it; None when it is already as `seal` makes it now. Left as
   * for `open` when it does not open.
   */
  reseal(sealed: string, context: string): Either<string, Option<string>>;
}
export const SecretSealer = Symbol.for('tracelight.SecretSealer');
