/**
 * Key naming for every Redis key the platform writes.
 *
 * `prefix` separates deployments or test runs sharing one Redis (`arena:` in production, a random
 * prefix per test run). Keys that belong to one tenant's game carry a Redis Cluster hash tag
 * `{tenant:game}`, so every key of one game lives in one slot and multi-key commands (a leaderboard
 * swap, a Lua script over the queue and the board) work on a cluster.
 */
export interface RedisKeys {
  readonly prefix: string;
  /** `<prefix>{<tenant>:<game>}:<parts...>`: a key of one tenant's game. */
  game(tenantId: string, gameId: string, ...parts: readonly string[]): string;
  /** `<prefix>{<tenant>}:<parts...>`: a key of one tenant, not tied to a game. */
  tenant(tenantId: string, ...parts: readonly string[]): string;
  /** `<prefix><parts...>`: a key of the whole deployment (locks, channels). */
  global(...parts: readonly string[]): string;
}

// Braces, colons and whitespace inside an id would move or split the hash tag.
const escapeId = (id: string) =>
  id.replace(/[%{}:\s]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, "0")}`);

export function redisKeys(prefix = "arena:"): RedisKeys {
  return Object.freeze({
    prefix,
    game: (tenantId: string, gameId: string, ...parts: readonly string[]) =>
      [`${prefix}{${escapeId(tenantId)}:${escapeId(gameId)}}`, ...parts].join(":"),
    tenant: (tenantId: string, ...parts: readonly string[]) =>
      [`${prefix}{${escapeId(tenantId)}}`, ...parts].join(":"),
    global: (...parts: readonly string[]) => `${prefix}${parts.join(":")}`,
  });
}
