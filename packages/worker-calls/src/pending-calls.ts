// The calls a thread has sent to another thread and not yet had answered, each kept under a small
// integer id that is given out again once its call is answered.
//
// Why not a Map from ever-growing ids. Measured: a Koa server whose requests each wait for a worker
// thread's answer, its resolver kept in a long-lived Map until then, promoted to V8's old generation
// a hundred times as much as the same server keeping them in this array (and so collected its old
// generation every two to three seconds, where it did not at all); so did Tracelight's writes, by
// about 2.5 MB a second at half load, and those collections were most of their p99 in such trials.
// How, as far as the trials and V8's design tell: once the Map's hash table is in the old generation,
// every table that replaces it (it is rebuilt as inserts and deletes fill it, every few calls here)
// is made there too, and the one replaced stays there, dead, still pointing at the values it held;
// until the next full collection the young-generation collector takes those pointers for live ones,
// so each resolver, and through its promise the whole request waiting on it, is promoted. An array
// written in place leaves no such copies: an answered call's slot is overwritten at once, and the
// array is copied only as it grows, which stops once it holds as many calls as are ever in flight.

/** Pending calls by id: `add` gives the id to send with the call, `take` hands back what waits for its answer. */
export class PendingCalls<T extends object> {
  private held: Array<T | undefined> = [];
  /** Ids whose calls have been answered, to be given out again (last answered, first given). */
  private free: number[] = [];

  /** Keeps `waiting` until the call's answer comes; returns the call's id. */
  add(waiting: T): number {
    const id = this.free.pop() ?? this.held.length;
    this.held[id] = waiting;
    return id;
  }

  /**
   * What waits for the answer to call `id`, which is then forgotten and its id given out again; undefined
   * for an id that is not pending (answered already, or never given). Each call is to be answered once.
   */
  take(id: number): T | undefined {
    if (!Number.isInteger(id) || id < 0 || id >= this.held.length) return undefined;
    const waiting = this.held[id];
    if (waiting === undefined) return undefined;
    this.held[id] = undefined;
    this.free.push(id);
    return waiting;
  }

  /** Everything still waiting (the other thread is gone: no answer will come), forgotten at once. */
  takeAll(): T[] {
    const all = this.held.filter((w): w is T => w !== undefined);
    this.held = [];
    this.free = [];
    return all;
  }

  /** How many calls are waiting for their answer: every id given out is either waiting or free. */
  get size(): number {
    return this.held.length - this.free.length;
  }
}
