import { RateLimiter } from './rate-limit';

describe('RateLimiter', () => {
  beforeEach(() => jest.useFakeTimers({ now: new Date('2026-11-24T12:00:00Z') }));
  afterEach(() => jest.useRealTimers());

  it('refills with elapsed time, and refuses with the seconds until a request is back', () => {
    const limiter = new RateLimiter(2);
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([undefined, undefined, 30]);
    jest.advanceTimersByTime(30_000);
    expect(limiter.take('a')).toBeUndefined();
  });

  it('takes no tokens when the wall clock is set back: it counts time on the monotonic clock', () => {
    const limiter = new RateLimiter(60);
    expect(limiter.take('a')).toBeUndefined();
    // An hour back (NTP stepping the clock, a VM resumed): no time has passed for the bucket.
    jest.setSystemTime(new Date('2026-11-24T11:00:00Z'));
    expect(limiter.take('a')).toBeUndefined();
    expect(limiter.emptyFor('a')).toBeUndefined();
  });

  it('drops a bucket as soon as it has refilled, within the millisecond', () => {
    const limiter = new RateLimiter(6_000_000); // 100 a millisecond
    limiter.take('a');
    jest.advanceTimersByTime(0.02);
    limiter.take('b');
    expect(limiter.held()).toEqual({ entries: 1, size: 1 });
  });
});
