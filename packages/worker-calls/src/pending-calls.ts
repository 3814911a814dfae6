// The calls a thread has sent to another thread and not yet had answered, each kept under a small
// integer id that is given out again once its call is answered.
//
// Why not a Map from ever-growing ids. A Map that lives as long as the process ends up in V8's old
// generation, and so does its hash table; from then on, every time the table is rebuilt (it is, each
// time inserts and deletes fill it: every few calls here) the new table is also made in the old
// generation, and the table it replaces is left there, dead, still pointing at the values it held.
// Until the next full collection the young-generation collector takes those stale pointers for live
// ones: each call's resolver, and through its promise the whole request that waits on it (its
// context, body, headers, answer), survives two young collections and is promoted. A server answering
// writes through the writer thread at a few thousand calls a second promoted about 2.5 MB a second
// that way, and paid for it with a full collection every two to three seconds, which is what its
// writes' p99 latency was made of. An array written in place has no such copies: an answered call's
// slot is overwritten at once, and the array is only copied when it grows, which stops once it holds
// as many calls as are ever in flight together.

/** Pending calls by id: `add` gives the id to send with the call, `take` hands back what waits for its answer. */
export class PendingCalls<T extends object> {
  private held: Array<T | undefined> = [];
  /** Ids whose calls have been answered, to be given out again (last answered, first given). */
  private free: number[] = [];
  private count = 0;

  /** Keeps `waiting` until the call's answer comes; returns the call's id. */
  add(waiting: T): number {
    const id = this.free.pop() ?? this.held.length;
    this.held[id] = waiting;
    this.count++;
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
    this.count--;
    return waiting;
  }

  /** Everything still waiting (the other thread is gone: no answer will come), forgotten at once. */
  takeAll(): T[] {
    const all = this.held.filter((w): w is T => w !== undefined);
    this.held = [];
    this.free = [];
    this.count = 0;
    return all;
  }

  /** How many calls are waiting for their answer. */
  get size(): number {
    return this.count;
  }
}
