import { randomBytes } from "node:crypto";
import type { Redis, RedisKeys } from "@arena/redis";
import { AppError, type Logger } from "@arena/service-kit";
import {
  type BoardRef,
  boardAround,
  boardKeys,
  boardRange,
  boardRanks,
  boardSwap,
  boardUnlock,
  boardWrite,
  rebuildKeys,
} from "./leaderboard-scripts.js";
import { encodeScore, pointsOfScore } from "./score-encoding.js";

export type { BoardRef } from "./leaderboard-scripts.js";

/** A player's position as PostgreSQL has it. */
export interface BoardEntry {
  playerId: string;
  points: number;
  reachedAt: Date;
  /** The player's write sequence at this value. */
  seq: bigint;
}

export interface RankedEntry {
  playerId: string;
  rank: number;
  points: number;
}

/** Where a rebuild reads a board's entries from (PostgreSQL), in pages ordered by playerId. */
export interface BoardSource {
  page(board: BoardRef, afterPlayerId: string | undefined, limit: number): Promise<BoardEntry[]>;
}

export interface LeaderboardMetrics {
  rebuilt(seconds: number, entries: number): void;
}

export interface LeaderboardStoreOptions {
  redis: Redis;
  keys: RedisKeys;
  source: BoardSource;
  logger: Logger;
  metrics?: LeaderboardMetrics;
  /** How long a read waits for another replica's rebuild before answering 503. */
  rebuildWaitMs?: number;
  /** Entries per PostgreSQL page and Redis command during a rebuild. */
  rebuildPageSize?: number;
}

const REBUILD_LOCK_MS = 120_000;
const REBUILD_POLL_MS = 50;
/** A crashed rebuild's temporary keys disappear by themselves. */
const TEMP_KEY_TTL_MS = 600_000;

/**
 * Leaderboards in Redis sorted sets: the serving index of what PostgreSQL holds. A board whose
 * `ready` marker is missing (Redis restarted empty, or was flushed) is rebuilt from PostgreSQL
 * into temporary keys and swapped in; writes racing the rebuild are merged at the swap by their
 * sequence. One replica rebuilds a board at a time (a Redis lock); the others wait for it.
 */
export class LeaderboardStore {
  private readonly redis: Redis;
  private readonly keys: RedisKeys;
  private readonly rebuilding = new Map<string, Promise<void>>();

  constructor(private readonly options: LeaderboardStoreOptions) {
    this.keys = options.keys;
    this.redis = options.redis;
  }

  /** The board's keys; all carry the `{tenant:game}` hash tag. */
  boardKeys(ref: BoardRef) {
    return boardKeys(this.keys, ref);
  }

  /**
   * Applies entries (compare-and-set on each player's sequence). Throws when Redis fails: the
   * caller keeps the write in the outbox. When the board is not ready a rebuild starts in the
   * background; the entries written meanwhile are merged into it.
   */
  async write(ref: BoardRef, entries: readonly BoardEntry[]): Promise<{ applied: number }> {
    if (entries.length === 0) return { applied: 0 };
    const k = this.boardKeys(ref);
    const args: string[] = [];
    for (const e of entries)
      args.push(e.playerId, e.seq.toString(), String(encodeScore(e.points, e.reachedAt)));
    const [applied, ready] = (await boardWrite.run(this.redis, this.keys, ref, ...args)) as [number, number];
    if (ready === 0) {
      this.ensureReady(ref).catch((err: unknown) =>
        this.options.logger.warn({ err, board: k.board }, "leaderboard rebuild after a write failed"),
      );
    }
    return { applied };
  }

  /** `count` entries from the 0-based position `start`. */
  async range(ref: BoardRef, start: number, count: number): Promise<RankedEntry[]> {
    return unavailableWithoutRedis(() => this.readRange(ref, start, count));
  }

  /** The player and `count` entries on each side; undefined when the player has no entry. */
  async around(ref: BoardRef, playerId: string, count: number): Promise<RankedEntry[] | undefined> {
    return unavailableWithoutRedis(() => this.readAround(ref, playerId, count));
  }

  /** 1-based ranks of the players (undefined for a player without an entry). */
  async ranks(ref: BoardRef, playerIds: readonly string[]): Promise<Array<number | undefined>> {
    return unavailableWithoutRedis(() => this.readRanks(ref, playerIds));
  }

  private async readRange(ref: BoardRef, start: number, count: number): Promise<RankedEntry[]> {
    const read = () =>
      boardRange.run(this.redis, this.keys, ref, start, start + count - 1) as Promise<string[] | null>;
    let flat = await read();
    if (flat === null) {
      await this.ensureReady(ref);
      flat = (await read()) ?? [];
    }
    return toEntries(flat, start);
  }

  private async readAround(
    ref: BoardRef,
    playerId: string,
    count: number,
  ): Promise<RankedEntry[] | undefined> {
    const read = () =>
      boardAround.run(this.redis, this.keys, ref, playerId, count) as Promise<[number, string[]?] | null>;
    let answer = await read();
    if (answer === null) {
      await this.ensureReady(ref);
      answer = await read();
    }
    if (answer === null || answer[0] === -1) return undefined;
    return toEntries(answer[1] ?? [], answer[0]);
  }

  private async readRanks(ref: BoardRef, playerIds: readonly string[]): Promise<Array<number | undefined>> {
    if (playerIds.length === 0) return [];
    const read = () => boardRanks.run(this.redis, this.keys, ref, ...playerIds) as Promise<number[] | null>;
    let answer = await read();
    if (answer === null) {
      await this.ensureReady(ref);
      answer = (await read()) ?? [];
    }
    return playerIds.map((_, i) => {
      const r = answer[i];
      return r === undefined || r < 0 ? undefined : r + 1;
    });
  }

  /** Resolves once the board is ready: now, or after a rebuild (here or on another replica). */
  async ensureReady(ref: BoardRef): Promise<void> {
    const k = this.boardKeys(ref);
    const running = this.rebuilding.get(k.board);
    if (running) return running;
    if ((await this.redis.exists(k.ready)) === 1) return;
    const job = this.rebuildOrWait(ref).finally(() => this.rebuilding.delete(k.board));
    this.rebuilding.set(k.board, job);
    return job;
  }

  private async rebuildOrWait(ref: BoardRef): Promise<void> {
    const k = this.boardKeys(ref);
    const token = randomBytes(12).toString("hex");
    const locked = await this.redis.set(k.lock, token, "PX", REBUILD_LOCK_MS, "NX");
    if (locked === "OK") {
      try {
        if ((await this.redis.exists(k.ready)) === 0) await this.rebuild(ref);
      } finally {
        await boardUnlock.run(this.redis, this.keys, ref, token).catch(() => 0);
      }
      return;
    }
    const polls = Math.ceil((this.options.rebuildWaitMs ?? 30_000) / REBUILD_POLL_MS);
    for (let i = 0; i < polls; i++) {
      await new Promise((resolve) => setTimeout(resolve, REBUILD_POLL_MS));
      if ((await this.redis.exists(k.ready)) === 1) return;
      // The other replica died: its lock lapses and this one takes over.
      if ((await this.redis.exists(k.lock)) === 0) return this.rebuildOrWait(ref);
    }
    throw new AppError("SERVICE_UNAVAILABLE", "The leaderboard is being rebuilt; try again shortly", {
      headers: { "Retry-After": "5" },
    });
  }

  /**
   * Reads the whole board from PostgreSQL into temporary keys, then swaps them in. Also used by
   * the benchmark to time a rebuild.
   */
  async rebuild(ref: BoardRef): Promise<{ entries: number; seconds: number }> {
    const started = process.hrtime.bigint();
    const k = this.boardKeys(ref);
    const suffix = randomBytes(6).toString("hex");
    const { tmp, tmpSeqs } = rebuildKeys(this.keys, ref, suffix);
    const pageSize = this.options.rebuildPageSize ?? 20_000;
    let entries = 0;
    try {
      let after: string | undefined;
      let next = this.options.source.page(ref, after, pageSize);
      for (;;) {
        const page = await next;
        if (page.length === 0) break;
        after = page[page.length - 1]!.playerId;
        // Read the next page from PostgreSQL while this one goes to Redis.
        next = page.length < pageSize ? Promise.resolve([]) : this.options.source.page(ref, after, pageSize);
        const zadd: Array<string | number> = [];
        const hset: string[] = [];
        for (const e of page) {
          zadd.push(encodeScore(e.points, e.reachedAt), e.playerId);
          hset.push(e.playerId, e.seq.toString());
        }
        const results = await this.redis
          .multi()
          .zadd(tmp, ...zadd)
          .hset(tmpSeqs, ...hset)
          .pexpire(tmp, TEMP_KEY_TTL_MS)
          .pexpire(tmpSeqs, TEMP_KEY_TTL_MS)
          .exec();
        const failed = results?.find(([err]) => err !== null);
        if (!results || failed) throw failed?.[0] ?? new Error("leaderboard rebuild transaction aborted");
        entries += page.length;
      }
      await boardSwap.run(this.redis, this.keys, { ref, suffix }, String(entries));
    } catch (err) {
      await this.redis.del(tmp, tmpSeqs).catch(() => 0);
      throw err;
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    this.options.metrics?.rebuilt(seconds, entries);
    this.options.logger.info({ board: k.board, entries, seconds }, "leaderboard rebuilt from PostgreSQL");
    return { entries, seconds };
  }
}

/** Reads answer 503 (not 500) while Redis is unreachable: PostgreSQL still has every result. */
async function unavailableWithoutRedis<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError("SERVICE_UNAVAILABLE", "The leaderboard store is unreachable; try again shortly", {
      cause: err,
      headers: { "Retry-After": "5" },
    });
  }
}

function toEntries(flat: readonly string[], start: number): RankedEntry[] {
  const out: RankedEntry[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    out.push({ playerId: flat[i]!, rank: start + i / 2 + 1, points: pointsOfScore(Number(flat[i + 1])) });
  }
  return out;
}
