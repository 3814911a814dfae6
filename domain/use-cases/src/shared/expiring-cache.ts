// A bounded in-process cache for the use cases: resolved credentials for a short time, records that
// never change for good. Callers store only what they found, so unknown keys or ids cannot fill it.

/**
 * A bounded map whose entries expire `ttlMs` after they were stored; a TTL of 0 keeps nothing, an
 * infinite TTL keeps entries until the bound pushes them out.
 */
export class ExpiringCache<V> {
  private readonly entries = new Map<string, { readonly value: V; readonly until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: string, nowMs: number): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.until > nowMs) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, value: V, nowMs: number): void {
    if (this.ttlMs <= 0) return;
    this.entries.delete(key);
    // Oldest first (Map keeps insertion order): at the bound, the entry stored longest ago goes.
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, until: nowMs + this.ttlMs });
  }

  /** Replaces a value and keeps its expiry; does nothing when the key is not (or no longer) there. */
  update(key: string, value: V): void {
    const entry = this.entries.get(key);
    if (entry !== undefined) this.entries.set(key, { value, until: entry.until });
  }

  deleteWhere(matches: (value: V) => boolean): void {
    for (const [key, entry] of this.entries) if (matches(entry.value)) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
