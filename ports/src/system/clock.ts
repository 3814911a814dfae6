// Time comes from a port so that use cases are deterministic under test.
export interface Clock {
  /** Wall-clock time: what is stored and compared with stored times (expiry dates, sessions). */
  now(): Date;
  /**
   * Milliseconds on a clock that only goes forward, from an arbitrary start: for how long something has
   * been kept (a cache's lifetime). The wall clock can be set back (NTP stepping it, a VM resumed), and a
   * lifetime measured on it would last that much longer.
   */
  elapsedMs(): number;
}
export const Clock = Symbol.for('tracelight.Clock');
