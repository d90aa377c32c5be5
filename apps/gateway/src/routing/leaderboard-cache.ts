import {
  expressPath,
  HOSTED_OPERATIONS,
  type HostedOperation,
  type HostedOperationId,
} from "@arena/contracts";
import { Counter, Gauge, type Registry } from "@arena/service-kit";
import type { Clock } from "../clock.js";

/** A successful leaderboard answer as stats gave it: replayed to every caller of the same key. */
export interface CachedAnswer {
  /** Headers of stats' answer that reach the client (content type, cache-control, ...). */
  headers: ReadonlyArray<readonly [string, string]>;
  body: Buffer;
}

/** What one upstream call for a key gave: an answer to keep and share, or one for its caller only. */
export type Fetched = { cacheable: true; answer: CachedAnswer } | { cacheable: false };

/** How a read was served: from an entry, by an upstream call of its own, or by joining one in flight. */
export type ReadOutcome =
  | { kind: "hit"; answer: CachedAnswer; ageMs: number }
  | { kind: "miss"; fetched: Fetched }
  | { kind: "coalesced"; answer: CachedAnswer };

interface Entry {
  tenantId: string;
  answer: CachedAnswer;
  /** When the upstream call that answered it started (its age counts from there). */
  storedAt: number;
}

interface InFlight {
  generation: number;
  fetched: Promise<Fetched>;
}

export interface LeaderboardCacheOptions {
  clock: Clock;
  /** How old an entry may be served (ms); 0 turns the cache off. */
  ttlMs: number;
  /** Most entries kept, over every tenant; the least recently read goes first. */
  maxEntries: number;
}

/**
 * The operations whose success can change what a leaderboard read answers: a completed match
 * (ratings and boards), a season started, cancelled or reset (which season is current, and a
 * carry-over), and a game's configuration (whether the game exists). Reads of the tenant cached on
 * this replica are dropped when one of them goes through it (REST or WebSocket).
 */
export const BOARD_CHANGING_OPERATIONS: readonly HostedOperationId[] = [
  "completeMatch",
  "startSeason",
  "cancelSeason",
  "resetSeason",
  "putGame",
];

/** Method and path (no query) of a board-changing call, as the gateway sends it to stats. */
export function changesBoards(method: string, pathAndQuery: string): boolean {
  const q = pathAndQuery.indexOf("?");
  const path = q === -1 ? pathAndQuery : pathAndQuery.slice(0, q);
  return BOARD_CHANGING_PATTERNS.some((p) => p.method === method && p.path.test(path));
}

const BOARD_CHANGING_PATTERNS = (HOSTED_OPERATIONS as readonly HostedOperation[])
  .filter((op) => BOARD_CHANGING_OPERATIONS.includes(op.operationId as HostedOperationId))
  .map((op) => ({
    method: op.method,
    path: new RegExp(`^${expressPath(op.path).replace(/:[A-Za-z0-9_]+/g, "[^/]+")}/?$`),
  }));

/**
 * The key of one read: everything of the call that can change stats' answer. The tenant comes
 * first and ends at a NUL, which no tenant id holds, so one tenant's key never equals another's.
 * The role is left out: every role may read a board and stats' answer does not depend on it.
 */
export function leaderboardCacheKey(call: {
  tenantId: string;
  path: string;
  contentType?: string;
  prefer?: string;
  body?: Buffer | string;
}): string {
  const body = typeof call.body === "string" ? call.body : (call.body?.toString("latin1") ?? "");
  return `${call.tenantId}\u0000${call.path}\u0000${call.contentType ?? ""}\u0000${call.prefer ?? ""}\u0000${body}`;
}

/**
 * The gateway's leaderboard read cache (`POST /games/{gameId}/leaderboard`): successful answers
 * kept for `ttlMs` under a key of everything that decides the answer (tenant, path, content type,
 * the body's bytes), at most `maxEntries` of them (LRU). Concurrent misses of one key share one
 * upstream call. A board-changing call of a tenant through this replica drops that tenant's entries
 * and makes the reads then in flight unfit to keep (a generation per tenant), so this replica reads
 * its own writes; a change made elsewhere is seen within `ttlMs`.
 */
export class LeaderboardCache {
  /** Insertion order is recency: a hit moves its entry to the end, eviction takes the first. */
  private readonly entries = new Map<string, Entry>();
  private readonly byTenant = new Map<string, Set<string>>();
  private readonly inFlight = new Map<string, InFlight>();
  private readonly generations = new Map<string, number>();
  private reads?: Counter<"outcome">;
  private invalidations?: Counter;

  constructor(private readonly options: LeaderboardCacheOptions) {}

  /** Registers the cache's metrics (once, with the app's registry). */
  instrument(registry: Registry): void {
    this.reads = new Counter({
      name: "gateway_leaderboard_cache_reads_total",
      help: "Leaderboard reads by how the cache served them (hit, miss: one upstream call, coalesced: joined a call in flight)",
      labelNames: ["outcome"] as const,
      registers: [registry],
    });
    this.invalidations = new Counter({
      name: "gateway_leaderboard_cache_invalidations_total",
      help: "Board-changing calls through this replica that dropped their tenant's cached leaderboard reads",
      registers: [registry],
    });
    const entries = this.entries;
    new Gauge({
      name: "gateway_leaderboard_cache_entries",
      help: "Leaderboard answers held by this replica's cache",
      registers: [registry],
      collect() {
        this.set(entries.size);
      },
    });
  }

  get enabled(): boolean {
    return this.options.ttlMs > 0;
  }

  /**
   * Serves `key` of `tenantId`: from a fresh entry, else by joining the call in flight for it, else
   * by `fetch` (kept when cacheable and no board change of the tenant happened meanwhile). A
   * non-cacheable answer is its caller's alone: callers that joined it make their own call.
   */
  async read(tenantId: string, key: string, fetch: () => Promise<Fetched>): Promise<ReadOutcome> {
    const now = this.now();
    const entry = this.entries.get(key);
    if (entry !== undefined) {
      if (now - entry.storedAt < this.options.ttlMs) {
        this.entries.delete(key);
        this.entries.set(key, entry);
        this.reads?.inc({ outcome: "hit" });
        return { kind: "hit", answer: entry.answer, ageMs: now - entry.storedAt };
      }
      this.remove(key);
    }
    const running = this.inFlight.get(key);
    if (running !== undefined && running.generation === (this.generations.get(tenantId) ?? 0)) {
      const fetched = await running.fetched.catch(() => ({ cacheable: false }) as const);
      if (fetched.cacheable) {
        this.reads?.inc({ outcome: "coalesced" });
        return { kind: "coalesced", answer: fetched.answer };
      }
      // The call it joined failed or answered something not to share: it makes its own.
    }
    return this.lead(tenantId, key, fetch);
  }

  /** A miss: one upstream call for `key`, which concurrent reads of it join, kept if fit. */
  private async lead(tenantId: string, key: string, fetch: () => Promise<Fetched>): Promise<ReadOutcome> {
    this.reads?.inc({ outcome: "miss" });
    const generation = this.generations.get(tenantId) ?? 0;
    // An entry's age counts from before the call: what stats read then is at least that recent.
    const startedAt = this.now();
    const fetched = fetch();
    const call: InFlight = { generation, fetched };
    this.inFlight.set(key, call);
    try {
      const result = await fetched;
      // Kept only if no board change of the tenant went through this replica while it was read.
      if (result.cacheable && (this.generations.get(tenantId) ?? 0) === generation) {
        this.store(tenantId, key, result.answer, startedAt);
      }
      return { kind: "miss", fetched: result };
    } finally {
      if (this.inFlight.get(key) === call) this.inFlight.delete(key);
    }
  }

  /** A board of the tenant may have changed: drop its entries, and keep nothing read before now. */
  invalidateTenant(tenantId: string): void {
    if (!this.enabled) return;
    this.generations.set(tenantId, (this.generations.get(tenantId) ?? 0) + 1);
    const keys = this.byTenant.get(tenantId);
    if (keys !== undefined) for (const key of [...keys]) this.remove(key);
    this.invalidations?.inc();
  }

  get size(): number {
    return this.entries.size;
  }

  private store(tenantId: string, key: string, answer: CachedAnswer, storedAt: number): void {
    this.remove(key);
    while (this.entries.size >= this.options.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.remove(oldest.value);
    }
    this.entries.set(key, { tenantId, answer, storedAt });
    let keys = this.byTenant.get(tenantId);
    if (keys === undefined) {
      keys = new Set();
      this.byTenant.set(tenantId, keys);
    }
    keys.add(key);
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    const keys = this.byTenant.get(entry.tenantId);
    keys?.delete(key);
    if (keys?.size === 0) this.byTenant.delete(entry.tenantId);
  }

  private now(): number {
    return this.options.clock.now().getTime();
  }
}
