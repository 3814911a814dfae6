// How much memory request bodies take at once (TRACELIGHT_BODY_BUDGET), in the bytes each reserves. Each body is
// bounded alone (413); without a bound on all of them together, many connections each sending a body up
// to the limit could hold connections × TRACELIGHT_BODY_LIMIT in memory, far past what the process has.

/** One body's room in the budget, held until its answer is done. */
export interface BodyRoom {
  /**
   * Makes the room `bytes` large, as a body read without a known size (compressed, or chunked) turns out
   * larger (or smaller) than reserved: false, the room unchanged, when growing would go past the budget
   * while other bodies are held.
   */
  resize(bytes: number): boolean;
  /** Gives the room back; once, whatever the number of calls. */
  release(): void;
}

/** The room of a body when no budget is set: any size. */
export const UNBOUNDED_ROOM: BodyRoom = { resize: () => true, release: () => undefined };

export class BodyBudget {
  private reserved = 0;
  private bodies = 0;

  constructor(readonly maxBytes: number) {}

  /**
   * Reserves `bytes` for a body about to be read; undefined when that would go past the budget. A body is
   * always taken when no other is being read, so one as large as the limit allows can always get in.
   */
  reserve(bytes: number): BodyRoom | undefined {
    if (this.bodies > 0 && this.reserved + bytes > this.maxBytes) return undefined;
    this.reserved += bytes;
    this.bodies++;
    let size = bytes;
    let held = true;
    return {
      resize: (to) => {
        if (!held) return false;
        if (to > size && this.bodies > 1 && this.reserved + (to - size) > this.maxBytes) return false;
        this.reserved += to - size;
        size = to;
        return true;
      },
      release: () => {
        if (!held) return;
        held = false;
        this.reserved -= size;
        this.bodies--;
      },
    };
  }

  held(): { readonly entries: number; readonly size: number } {
    return { entries: this.bodies, size: this.reserved };
  }
}
