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
}
export const PasswordHasher = Symbol.for('tracelight.PasswordHasher');
