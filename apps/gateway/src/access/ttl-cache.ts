import type { Clock } from "../clock.js";

/**
 * A bounded map whose entries expire after `ttlMs` on the injected clock. Used for what every
 * authenticated request needs to know (a user's status, a client's tenant) and rarely changes.
 * When full it is emptied: cheaper than an LRU, and only costs a database read per entry.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; at: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  async get(key: string, load: () => Promise<V>): Promise<V> {
    const now = this.clock.now().getTime();
    const hit = this.entries.get(key);
    if (hit && now - hit.at < this.ttlMs) return hit.value;
    const value = await load();
    if (this.ttlMs > 0) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(key, { value, at: now });
    }
    return value;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}
