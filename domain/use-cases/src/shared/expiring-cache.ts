// A bounded in-process cache for the use cases: resolved credentials for a short time, records that
// never change for good. Callers store only what they found, so unknown keys or ids cannot fill it.

/** A second bound, on the sum of the entries' weights (for values of very different sizes). */
export interface WeightBudget<V> {
  readonly weigh: (value: V) => number;
  readonly maxWeight: number;
}

interface Entry<V> {
  readonly value: V;
  readonly until: number;
  readonly weight: number;
}

/**
 * A bounded map whose entries expire `ttlMs` after they were stored; a TTL of 0 keeps nothing, an
 * infinite TTL keeps entries until a bound pushes them out. The bounds are a number of entries and,
 * optionally, a total weight; a value heavier than the whole budget is not kept at all.
 */
export class ExpiringCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private totalWeight = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly budget?: WeightBudget<V>,
  ) {}

  get(key: string, nowMs: number): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.until > nowMs) return entry.value;
    this.delete(key);
    return undefined;
  }

  set(key: string, value: V, nowMs: number): void {
    if (this.ttlMs <= 0) return;
    this.delete(key);
    const weight = this.budget?.weigh(value) ?? 0;
    if (this.budget !== undefined && weight > this.budget.maxWeight) return;
    const maxWeight = this.budget?.maxWeight ?? Number.POSITIVE_INFINITY;
    // Oldest first (Map keeps insertion order): at a bound, the entries stored longest ago go.
    while (this.entries.size > 0 && (this.entries.size >= this.maxEntries || this.totalWeight + weight > maxWeight)) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.delete(oldest.value);
    }
    this.entries.set(key, { value, until: nowMs + this.ttlMs, weight });
    this.totalWeight += weight;
  }

  /**
   * Replaces a value and keeps its expiry; does nothing when the key is not (or no longer) there. The
   * new weight counts, but pushes nothing out: the bounds are enforced when storing.
   */
  update(key: string, value: V): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    const weight = this.budget?.weigh(value) ?? 0;
    this.entries.set(key, { value, until: entry.until, weight });
    this.totalWeight += weight - entry.weight;
  }

  deleteWhere(matches: (value: V) => boolean): void {
    for (const [key, entry] of this.entries) if (matches(entry.value)) this.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The sum of the weights of the entries kept (0 without a weight budget). */
  get weight(): number {
    return this.totalWeight;
  }

  private delete(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.totalWeight -= entry.weight;
  }
}
