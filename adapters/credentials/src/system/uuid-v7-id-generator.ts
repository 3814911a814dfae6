// RFC 9562 UUIDv7: 48-bit Unix milliseconds, then a 12-bit counter (rand_a) that keeps ids generated
// within one millisecond in generation order, then 62 random bits. Time-ordered keys keep B-tree
// inserts at the right edge and let time-bounded searches prune.
import { IdGenerator } from '@tracelight/ports';
import * as crypto from 'node:crypto';
import { injectable } from 'inversify';
import { randomBytes } from './random-pool';

@injectable()
export class UuidV7IdGenerator implements IdGenerator {
  private lastMs = 0;
  private counter = 0;

  next(): string {
    let ms = Date.now();
    if (ms <= this.lastMs) {
      this.counter += 1;
      if (this.counter > 0xfff) {
        // counter exhausted within one millisecond: borrow the next millisecond
        this.lastMs += 1;
        this.counter = 0;
      }
      ms = this.lastMs;
    } else {
      this.lastMs = ms;
      this.counter = crypto.randomInt(0, 0x400); // random start, leaves room to count up
    }
    const b = randomBytes(16);
    b.writeUIntBE(ms, 0, 6);
    b[6] = 0x70 | (this.counter >> 8);
    b[7] = this.counter & 0xff;
    b[8] = 0x80 | (b[8]! & 0x3f);
    const h = b.toString('hex');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
}
