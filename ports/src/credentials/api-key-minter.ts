// API keys: random high-entropy secrets, stored only as a keyed hash.
export interface MintedApiKey {
  /** The secret, shown to the user once. */
  readonly secret: string;
  readonly hash: string;
  /** A recognisable prefix…suffix that gives nothing away. */
  readonly truncated: string;
}

export interface ApiKeyMinter {
  mint(): MintedApiKey;
  /** The hash under which a presented secret would be stored (deterministic). */
  hashOf(secret: string): string;
  /**
   * The hashes a secret would have been stored under by earlier server keys still accepted (during a
   * rotation of the master key), to look a key up by when `hashOf` finds none; none outside a rotation.
   */
  previousHashesOf(secret: string): ReadonlyArray<string>;
  /** Constant-time equality of two hashes. */
  sameHash(a: string, b: string): boolean;
}
export const ApiKeyMinter = Symbol.for('tracelight.ApiKeyMinter');
