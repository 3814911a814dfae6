// What the credential adapters are configured with.
export interface CredentialsConfig {
  readonly secretKey: Buffer;
  /**
   * The master key used before `secretKey`, during a rotation (TRACELIGHT_PREVIOUS_SECRET_KEY): what it
   * made still verifies and opens, and an API key hashed under it is found (and hashed again under
   * `secretKey` once used); everything new is made with `secretKey`.
   */
  readonly previousSecretKey?: Buffer;
  readonly tokenTtlSeconds: number;
  readonly refreshTokenTtlSeconds: number;
  readonly passwordCacheTtlSeconds: number;
  /**
   * scrypt's cost for new password hashes, as log2 of N (TRACELIGHT_PASSWORD_COST; 15 when not given).
   * A hash made at another cost still verifies, and is made again at this one at its owner's next sign-in.
   */
  readonly passwordCost?: number;
}
export const CredentialsConfig = Symbol.for('tracelight.CredentialsConfig');
