// Version-4 UUIDs whose leading bits are time-ordered: the layout of RFC 9562's UUIDv7 (48-bit Unix
// milliseconds, a 12-bit counter, 62 random bits) under version nibble 4. The origin's Python SDK types
// ids as pydantic UUID4, which checks that nibble (a v7 id failed GET /current_user at start-up), while
// time-ordered keys keep B-tree inserts at the right edge and let time-bounded searches prune.
import { IdGenerator } from '@tracelight/ports';
import * as crypto from 'node:crypto';
import { injectable } from 'inversify';
import { randomBytes } from './random-pool';

@injectable()
export class TimeOrderedUuid4IdGenerator implements IdGenerator {
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
    b[6] = 0x40 | (this.counter >> 8);
    b[7] = this.counter & 0xff;
    b[8] = 0x80 | (b[8]! & 0x3f);
    const h = b.toString('hex');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
}
