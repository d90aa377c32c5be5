import { type Clock, systemClock } from "@arena/service-kit";
import { listenOn, publishMany, publishOn } from "./pubsub.js";
import type { Redis } from "./redis-client.js";
import type { RedisKeys } from "./redis-keys.js";
import { redisScript } from "./redis-script.js";

/** What a connection asked for with `subscribe`. */
export interface PushSubscription {
  gameIds: readonly string[];
  /** Higher first: pushes go to the connections of the highest priority present (default 0). */
  priority: number;
  /** Pushes per minute to this connection at most; null = unlimited. */
  rateLimit: number | null;
}

/** A push chosen for one connection; `message` is the JSON text to send it unchanged. */
export interface FanoutDelivery {
  tenantId: string;
  connectionId: string;
  gameId: string;
  message: string;
}

/** A connection chosen for a push, and the gateway replica that holds it. */
export interface PushTarget {
  connectionId: string;
  replica: string;
}

/** A push for every connection of the tenant subscribed to `gameId`; `message` is JSON text. */
export interface FanoutBroadcast {
  tenantId: string;
  gameId: string;
  message: string;
}

export interface PushFanoutOptions {
  redis: Redis;
  keys: RedisKeys;
  /** Registrations expire and rate windows end by this clock (default the system clock). */
  clock?: Clock;
}

export interface PushFanoutHandlers {
  delivery(d: FanoutDelivery): void;
  broadcast(b: FanoutBroadcast): void;
}

/** A connection's rate window: pushes counted from its first push for this long. */
const RATE_WINDOW_MS = 60_000;
/** Round-robin counters and rate windows of a tenant no one offers to any more go away by then. */
const IDLE_STATE_TTL_MS = 86_400_000;
/** Expired registrations removed by one register call at most (the rest by the next ones). */
const PRUNE_BATCH = 100;

/*
 * One tenant's keys, all under its hash tag `{tenant}` so each script touches one cluster slot:
 *   subs   sorted set, every score 0, members `<gameId>\n<connectionId>`: a game's subscribers are
 *          one lexicographic range.
 *   conns  hash connectionId → JSON {replica, priority, rateLimit (-1 = none), expiresAt, games}.
 *   live   sorted set connectionId → expiresAt, to find and prune dead registrations.
 *   rr     hash gameId → round-robin counter.
 *   rate   hash connectionId → "<windowStartMs> <count>".
 */
const KEY_NAMES = ["subs", "conns", "live", "rr", "rate"] as const;

// Shared Lua: drop one connection's registration (its game memberships, entry, liveness, rate).
const LUA_DROP = `
local function drop(conn)
  local raw = redis.call('HGET', KEYS[2], conn)
  if raw then
    for _, game in ipairs(cjson.decode(raw).games) do redis.call('ZREM', KEYS[1], game .. '\\n' .. conn) end
  end
  redis.call('HDEL', KEYS[2], conn)
  redis.call('ZREM', KEYS[3], conn)
  redis.call('HDEL', KEYS[5], conn)
end
local function keepAlive(ms)
  for i = 1, 3 do
    if redis.call('PTTL', KEYS[i]) < ms then redis.call('PEXPIRE', KEYS[i], ms) end
  end
end
`;

/** A tenant's five keys, in the order the scripts name them (KEYS[1..5]). */
const tenantKeys = (keys: RedisKeys, { tenantId }: { tenantId: string }) =>
  KEY_NAMES.map((name) => keys.tenant(tenantId, "push", name));
const fanoutScript = (name: string, lua: string) =>
  redisScript({ name: `push.${name}`, lua, keys: tenantKeys, example: { tenantId: "ten:{1} x" } });

/** ARGV: now, connectionId, ttlMs, entry JSON, gameIds... */
const REGISTER_SCRIPT = fanoutScript(
  "register",
  `${LUA_DROP}
local now = tonumber(ARGV[1])
local conn = ARGV[2]
local ttl = tonumber(ARGV[3])
local expired = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, ${PRUNE_BATCH})
for _, dead in ipairs(expired) do drop(dead) end
local old = redis.call('HGET', KEYS[2], conn)
if old then
  local keep = {}
  for i = 5, #ARGV do keep[ARGV[i]] = true end
  for _, game in ipairs(cjson.decode(old).games) do
    if not keep[game] then redis.call('ZREM', KEYS[1], game .. '\\n' .. conn) end
  end
end
for i = 5, #ARGV do redis.call('ZADD', KEYS[1], 0, ARGV[i] .. '\\n' .. conn) end
redis.call('HSET', KEYS[2], conn, ARGV[4])
redis.call('ZADD', KEYS[3], now + ttl, conn)
keepAlive(ttl)
return 1`,
);

/** ARGV: connectionId */
const UNREGISTER_SCRIPT = fanoutScript(
  "unregister",
  `${LUA_DROP}
drop(ARGV[1])
return 1`,
);

/**
 * ARGV: now, gameId, number of pushes to place, number of excluded connections n, then the
 * excluded connectionIds. Returns, per push, `replica\nconnectionId` of the chosen connection
 * (counted against its rate limit) or false.
 */
const CHOOSE_SCRIPT = fanoutScript(
  "choose",
  `
local now = tonumber(ARGV[1])
local game = ARGV[2]
local pushes = tonumber(ARGV[3])
local excluded = {}
for i = 5, 4 + tonumber(ARGV[4]) do excluded[ARGV[i]] = true end
local members = redis.call('ZRANGEBYLEX', KEYS[1], '(' .. game .. '\\n', '(' .. game .. '\\n\\255')
local live = {}
for _, member in ipairs(members) do
  local conn = string.sub(member, #game + 2)
  local raw = redis.call('HGET', KEYS[2], conn)
  if not raw then
    redis.call('ZREM', KEYS[1], member)
  else
    local entry = cjson.decode(raw)
    if entry.expiresAt > now and not excluded[conn] then
      local start, count = now, 0
      local window = redis.call('HGET', KEYS[5], conn)
      if window then
        local sep = string.find(window, ' ')
        local from = tonumber(string.sub(window, 1, sep - 1))
        if now - from < ${RATE_WINDOW_MS} then
          start, count = from, tonumber(string.sub(window, sep + 1))
        end
      end
      live[#live + 1] = {conn = conn, replica = entry.replica, priority = entry.priority,
        limit = entry.rateLimit, start = start, count = count, used = false}
    end
  end
end
local results = {}
local turn = nil
for p = 1, pushes do
  -- The connections of the highest priority present that are still under their rate limit.
  local best = nil
  local candidates = {}
  for _, c in ipairs(live) do
    if c.limit < 0 or c.count < c.limit then
      if best == nil or c.priority > best then
        best = c.priority
        candidates = {}
      end
      if c.priority == best then candidates[#candidates + 1] = c end
    end
  end
  if #candidates == 0 then
    results[p] = false
  else
    turn = redis.call('HINCRBY', KEYS[4], game, 1)
    local chosen = candidates[(turn - 1) % #candidates + 1]
    chosen.count = chosen.count + 1
    chosen.used = true
    results[p] = chosen.replica .. '\\n' .. chosen.conn
  end
end
if turn ~= nil then
  redis.call('PEXPIRE', KEYS[4], ${IDLE_STATE_TTL_MS})
  for _, c in ipairs(live) do
    if c.used then redis.call('HSET', KEYS[5], c.conn, c.start .. ' ' .. c.count) end
  end
  redis.call('PEXPIRE', KEYS[5], ${IDLE_STATE_TTL_MS})
end
return results`,
);

/**
 * Push fan-out between stats and the gateway replicas (both sides use this one class).
 *
 * The gateway registers each subscribed WebSocket connection (refreshing it before its TTL runs
 * out, so a Redis flush or a dead replica heals by itself) and listens on its replica's channel.
 * Stats offers each push once: one atomic script picks a live connection of the highest priority
 * that is under its rate limit, round-robin per tenant and game, and counts it (`choose`, for a
 * whole batch at once); stats records who gets what, then publishes each push to its connection's
 * replica (`send`). Broadcasts go to every replica, which sends them to its own subscribers.
 *
 * Rate limits count pushes in a window of one minute from the connection's first push in it.
 * Rate-limited connections are passed over, so a push goes to a lower priority before it is refused.
 */
export class PushFanout {
  private readonly redis: Redis;
  private readonly keys: RedisKeys;
  private readonly clock: Clock;

  constructor(options: PushFanoutOptions) {
    this.redis = options.redis;
    this.keys = options.keys;
    this.clock = options.clock ?? systemClock;
  }

  /** connectionId = `${replicaId}.${n}`, globally unique; call again to refresh (TTL). */
  async register(
    tenantId: string,
    replicaId: string,
    connectionId: string,
    sub: PushSubscription,
    ttlMs: number,
  ): Promise<void> {
    if (sub.gameIds.length === 0) throw new Error("A push subscription needs at least one game");
    for (const id of [replicaId, connectionId, ...sub.gameIds]) assertPlainId(id);
    // The scripts count in milliseconds since the epoch.
    const now = this.clock.now().getTime();
    const games = [...new Set(sub.gameIds)];
    const entry = JSON.stringify({
      replica: replicaId,
      priority: sub.priority,
      rateLimit: sub.rateLimit ?? -1,
      expiresAt: now + ttlMs,
      games,
    });
    await REGISTER_SCRIPT.run(this.redis, this.keys, { tenantId }, now, connectionId, ttlMs, entry, ...games);
  }

  async unregister(tenantId: string, connectionId: string): Promise<void> {
    await UNREGISTER_SCRIPT.run(this.redis, this.keys, { tenantId }, connectionId);
  }

  /** Subscribes (on a duplicate connection) to this replica's channel and to the broadcast channel. Returns a stop function. */
  async listen(replicaId: string, handlers: PushFanoutHandlers): Promise<() => Promise<void>> {
    const replicaChannel = this.replicaChannel(replicaId);
    const broadcastChannel = this.broadcastChannel();
    return listenOn(this.redis, [replicaChannel, broadcastChannel], (channel, text) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        return;
      }
      if (channel === replicaChannel && isDelivery(parsed)) handlers.delivery(parsed);
      else if (channel === broadcastChannel && isBroadcast(parsed)) handlers.broadcast(parsed);
    });
  }

  /**
   * Chooses a connection for one push and sends it: see `choose` and `send`. Returns the chosen
   * connectionId, or null when no connection can take it.
   */
  async offer(
    tenantId: string,
    gameId: string,
    message: object,
    exclude: readonly string[] = [],
  ): Promise<string | null> {
    const [chosen] = await this.offerMany(tenantId, gameId, [message], exclude);
    return chosen ?? null;
  }

  /** `choose` for these messages, then `send` each to its connection; per message, who got it. */
  async offerMany(
    tenantId: string,
    gameId: string,
    messages: readonly object[],
    exclude: readonly string[] = [],
  ): Promise<Array<string | null>> {
    const targets = await this.choose(tenantId, gameId, messages.length, exclude);
    await this.send(
      tenantId,
      gameId,
      targets.flatMap((target, i) => (target ? [{ target, message: messages[i]! }] : [])),
    );
    return targets.map((t) => t?.connectionId ?? null);
  }

  /**
   * One Lua script, atomic, for `pushes` pushes of one game in order: among the tenant's live
   * (unexpired) registrations subscribed to gameId and not in `exclude`, keep those of the
   * highest priority that are under their rateLimit this minute (counting the pushes placed
   * before), pick the next round-robin (a per tenant:game counter) and count the push against its
   * rate limit. Answers each push's connection, or null where none can take it. Nothing is sent
   * yet: the caller records who gets what first, then calls `send`.
   */
  async choose(
    tenantId: string,
    gameId: string,
    pushes: number,
    exclude: readonly string[] = [],
  ): Promise<Array<PushTarget | null>> {
    assertPlainId(gameId);
    if (pushes === 0) return [];
    const chosen = (await CHOOSE_SCRIPT.run(
      this.redis,
      this.keys,
      { tenantId },
      this.clock.now().getTime(),
      gameId,
      pushes,
      exclude.length,
      ...exclude,
    )) as unknown[];
    return Array.from({ length: pushes }, (_, i) => {
      const value = chosen[i];
      if (typeof value !== "string") return null;
      const sep = value.indexOf("\n");
      return { replica: value.slice(0, sep), connectionId: value.slice(sep + 1) };
    });
  }

  /** Publishes each message to its connection's replica, in one round trip per replica at most. */
  async send(
    tenantId: string,
    gameId: string,
    deliveries: ReadonlyArray<{ target: PushTarget; message: object }>,
  ): Promise<void> {
    await publishMany(
      this.redis,
      deliveries.map(({ target, message }) => {
        const delivery: FanoutDelivery = {
          tenantId,
          connectionId: target.connectionId,
          gameId,
          message: JSON.stringify(message),
        };
        return { channel: this.replicaChannel(target.replica), text: JSON.stringify(delivery) };
      }),
    );
  }

  /**
   * Whether any connection of the tenant is registered for gameId (a registration may have just
   * expired: `offerMany` is the exact answer). Lets stats skip preparing pushes nobody can take.
   */
  async hasSubscribers(tenantId: string, gameId: string): Promise<boolean> {
    assertPlainId(gameId);
    const [subs] = tenantKeys(this.keys, { tenantId });
    const from = Buffer.from(`(${gameId}\n`);
    const to = Buffer.concat([from, Buffer.from([0xff])]);
    const first = await this.redis.zrangebylex(subs!, from, to, "LIMIT", 0, 1);
    return first.length > 0;
  }

  /**
   * Of these connections, the ones with no live registration: closed, or held by a replica that
   * died without saying so (its registrations expire unrefreshed). Stats offers again what it
   * pushed to them and nobody acknowledged.
   */
  async gone(tenantId: string, connectionIds: readonly string[]): Promise<string[]> {
    if (connectionIds.length === 0) return [];
    const [, , live] = tenantKeys(this.keys, { tenantId });
    const expiries = await this.redis.zmscore(live!, ...connectionIds);
    const now = this.clock.now().getTime();
    return connectionIds.filter((_, i) => {
      const expiresAt = expiries[i];
      return expiresAt === null || expiresAt === undefined || Number(expiresAt) <= now;
    });
  }

  /** Every live connection of the tenant subscribed to gameId gets the message (e.g. playersRemoved). */
  async broadcast(tenantId: string, gameId: string, message: object): Promise<void> {
    const text = JSON.stringify({ tenantId, gameId, message: JSON.stringify(message) });
    await publishOn(this.redis, this.broadcastChannel(), text);
  }

  private replicaChannel(replicaId: string): string {
    return this.keys.global("push", "replica", replicaId);
  }

  private broadcastChannel(): string {
    return this.keys.global("push", "broadcast");
  }
}

// The subscriber set keys a game's members as `<gameId>\n<connectionId>`.
function assertPlainId(id: string): void {
  if (id === "" || id.includes("\n")) throw new Error(`Unusable id for push fan-out: ${JSON.stringify(id)}`);
}

function isDelivery(value: unknown): value is FanoutDelivery {
  const v = value as Partial<FanoutDelivery> | null;
  return (
    typeof v?.tenantId === "string" &&
    typeof v.connectionId === "string" &&
    typeof v.gameId === "string" &&
    typeof v.message === "string"
  );
}

function isBroadcast(value: unknown): value is FanoutBroadcast {
  const v = value as Partial<FanoutBroadcast> | null;
  return typeof v?.tenantId === "string" && typeof v.gameId === "string" && typeof v.message === "string";
}
