// Wall-clock time, and the monotonic clock for lifetimes.
import { Clock } from '@tracelight/ports';
import { injectable } from 'inversify';

@injectable()
export class SystemClock implements Clock {
  now(): Date {
    return new Date();
  }

  elapsedMs(): number {
    return performance.now();
  }
}
