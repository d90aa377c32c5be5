import type { Clock } from "../clock.js";

/**
 * A bounded map whose entries expire after `ttlMs` on the injected clock. Used for what every
 * authenticated request needs to know (a user's status, a client's tenant, a tenant's limits) and
 * rarely changes. When full it is emptied: cheaper than an LRU, and only costs a database read per
 * entry. The load itself is kept, so requests arriving together while an entry is read share one
 * read; a failed read is not kept.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: Promise<V>; at: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: string, load: () => Promise<V>): Promise<V> {
    const now = this.clock.now().getTime();
    const hit = this.entries.get(key);
    if (hit && now - hit.at < this.ttlMs) return hit.value;
    const value = load();
    if (this.ttlMs > 0) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      const entry = { value, at: now };
      this.entries.set(key, entry);
      value.catch(() => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      });
    }
    return value;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}
