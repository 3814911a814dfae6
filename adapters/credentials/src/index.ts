// Credentials: password hashing, API-key minting, token signing, secret sealing, clock and ids.
export * from './config';
export * from './keys';
export * from './scrypt-password-hasher';
export * from './caching-password-hasher';
export * from './hmac-api-key-minter';
export * from './jwt-token-signer';
export * from './aes-gcm-secret-sealer';
export * from './system/system-clock';
export * from './system/time-ordered-uuid4-id-generator';
export * from './credentials.module';
