// How much memory request bodies take at once (TRACELIGHT_BODY_BUDGET), in the bytes each reserves. Each body is
// bounded alone (413); without a bound on all of them together, many connections each sending a body up
// to the limit could hold connections × TRACELIGHT_BODY_LIMIT in memory, far past what the process has.

export class BodyBudget {
  private reserved = 0;
  private bodies = 0;

  constructor(readonly maxBytes: number) {}

  /**
   * Reserves `bytes` for a body about to be read; false when that would go past the budget. A body is
   * always taken when no other is being read, so one as large as the limit allows can always get in.
   */
  reserve(bytes: number): boolean {
    if (this.bodies > 0 && this.reserved + bytes > this.maxBytes) return false;
    this.reserved += bytes;
    this.bodies++;
    return true;
  }

  release(bytes: number): void {
    this.reserved -= bytes;
    this.bodies--;
  }

  held(): { readonly entries: number; readonly size: number } {
    return { entries: this.bodies, size: this.reserved };
  }
}
