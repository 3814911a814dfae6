// Slow, salted password hashing (scrypt or argon2 behind it).
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** Constant-time comparison; false for a malformed hash. */
  verify(password: string, hash: string): Promise<boolean>;
  /**
   * Whether `hash` was made otherwise than `hash` makes one now (another cost, another scheme): then,
   * once its password is known to be right, it is worth hashing again.
   */
  needsRehash(hash: string): boolean;
  /**
   * After a failed `verify` of a user's `hash`: as much more work as makes the failure take about as
   * long as one against a hash made now (the decoy an unknown email is checked against), where `hash`
   * was made cheaper (a cost raised since) or cannot be checked at all; nothing otherwise. Without it,
   * the time a wrong password takes would tell which emails have an account.
   */
  hardenRuntime(password: string, hash: string): Promise<void>;
}
export const PasswordHasher = Symbol.for('tracelight.PasswordHasher');
