// Cryptographically random bytes for the per-request needs (AES-GCM IVs, id and token-id randomness),
// drawn from a buffer the CSPRNG refills 4 KiB at a time: one call into it serves hundreds of requests
// instead of one each. Every byte is handed out once, as a copy the caller owns.
import * as crypto from 'node:crypto';

const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let offset = 0;

export const randomBytes = (n: number): Buffer => {
  if (n > POOL_BYTES / 8) return crypto.randomBytes(n);
  if (offset + n > pool.length) {
    pool = crypto.randomBytes(POOL_BYTES);
    offset = 0;
  }
  const out = Buffer.allocUnsafe(n);
  pool.copy(out, 0, offset, offset + n);
  // Handed-out bytes are wiped from the pool: what stays in memory is only what is still to come.
  pool.fill(0, offset, offset + n);
  offset += n;
  return out;
};
