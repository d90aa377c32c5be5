/**
 * The Lua scripts behind the leaderboard. Each board is three keys sharing one `{tenant:game}` hash
 * tag (so every script runs on one Redis Cluster slot):
 *   board  sorted set, member = playerId, score = encodeScore(points, reachedAt)
 *   seqs   hash playerId → the player's write sequence last applied to the board
 *   ready  present once the board holds everything PostgreSQL had when it was (re)built
 * Each is declared with its keys (`redisScript`), so a test checks they share one slot.
 */
import { type RedisKeys, redisScript } from "@arena/redis";
import { seasonName } from "../seasons/season-rules.js";

/** One leaderboard: a tenant's game in one season. */
export interface BoardRef {
  tenantId: string;
  gameId: string;
  season: number;
}

/** A board's keys; all carry the `{tenant:game}` hash tag. */
export function boardKeys(keys: RedisKeys, ref: BoardRef) {
  const board = keys.game(ref.tenantId, ref.gameId, "board", seasonName(ref.season));
  return { board, seqs: `${board}:seqs`, ready: `${board}:ready`, lock: `${board}:rebuild-lock` };
}

/** A rebuild's temporary keys, beside the board's (same hash tag). */
export function rebuildKeys(keys: RedisKeys, ref: BoardRef, suffix: string) {
  const k = boardKeys(keys, ref);
  return { tmp: `${k.board}:tmp-${suffix}`, tmpSeqs: `${k.seqs}:tmp-${suffix}` };
}

const EXAMPLE: BoardRef = { tenantId: "ten:{a}", gameId: "ranked 2v2}", season: 3 };
type Keys = ReturnType<typeof boardKeys>;
const boardScript = (name: string, lua: string, pick: (k: Keys) => string[]) =>
  redisScript<BoardRef>({
    name: `stats.board.${name}`,
    lua,
    keys: (keys, ref) => pick(boardKeys(keys, ref)),
    example: EXAMPLE,
  });

/**
 * Compare-and-set writes. KEYS: board, seqs, ready. ARGV: triples (playerId, seq, score). An entry
 * is written only when its seq is higher than the one applied before, so a retried or late write
 * never moves the board backwards. Answers {applied, ready}.
 */
const WRITE_LUA = `
local applied = 0
for i = 1, #ARGV, 3 do
  local current = redis.call('HGET', KEYS[2], ARGV[i])
  if (not current) or tonumber(current) < tonumber(ARGV[i + 1]) then
    redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
    redis.call('ZADD', KEYS[1], ARGV[i + 2], ARGV[i])
    applied = applied + 1
  end
end
return {applied, redis.call('EXISTS', KEYS[3])}
`;

/** KEYS: board, ready. ARGV: start, stop (0-based). Answers nil when the board is not ready. */
const RANGE_LUA = `
if redis.call('EXISTS', KEYS[2]) == 0 then return false end
return redis.call('ZREVRANGE', KEYS[1], ARGV[1], ARGV[2], 'WITHSCORES')
`;

/**
 * KEYS: board, ready. ARGV: playerId, count. Answers nil when the board is not ready, {-1} when
 * the player has no entry, else {start, range}: `count` entries before the player and `count`
 * after it (fewer at the top or bottom), the player included.
 */
const AROUND_LUA = `
if redis.call('EXISTS', KEYS[2]) == 0 then return false end
local rank = redis.call('ZREVRANK', KEYS[1], ARGV[1])
if not rank then return {-1} end
local count = tonumber(ARGV[2])
local start = rank - count
if start < 0 then start = 0 end
return {start, redis.call('ZREVRANGE', KEYS[1], start, rank + count, 'WITHSCORES')}
`;

/** KEYS: board, ready. ARGV: playerIds. Nil when not ready, else each player's 0-based rank or -1. */
const RANKS_LUA = `
if redis.call('EXISTS', KEYS[2]) == 0 then return false end
local out = {}
for i = 1, #ARGV do
  local rank = redis.call('ZREVRANK', KEYS[1], ARGV[i])
  out[i] = rank or -1
end
return out
`;

/**
 * Ends a rebuild. KEYS: tmpBoard, tmpSeqs, board, seqs, ready. Writes that reached the live keys
 * while the rebuild read PostgreSQL are merged into the new board when their seq is newer than what
 * the rebuild read; then the new board replaces the live one in one step and is marked ready.
 * (Called only while the board is not ready, so the live keys hold just those recent writes.)
 */
const SWAP_LUA = `
local live = redis.call('HGETALL', KEYS[4])
for i = 1, #live, 2 do
  local member = live[i]
  local seq = tonumber(live[i + 1])
  local rebuilt = redis.call('HGET', KEYS[2], member)
  if (not rebuilt) or tonumber(rebuilt) < seq then
    local score = redis.call('ZSCORE', KEYS[3], member)
    redis.call('HSET', KEYS[2], member, live[i + 1])
    if score then redis.call('ZADD', KEYS[1], score, member) end
  end
end
for i = 1, 2 do
  if redis.call('EXISTS', KEYS[i]) == 1 then
    redis.call('RENAME', KEYS[i], KEYS[i + 2])
    redis.call('PERSIST', KEYS[i + 2])
  else
    redis.call('DEL', KEYS[i + 2])
  end
end
redis.call('SET', KEYS[5], ARGV[1])
return 1
`;

/** Releases a lock only if this holder still owns it. KEYS: lock. ARGV: token. */
const UNLOCK_LUA = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

export const boardWrite = boardScript("write", WRITE_LUA, (k) => [k.board, k.seqs, k.ready]);
export const boardRange = boardScript("range", RANGE_LUA, (k) => [k.board, k.ready]);
export const boardAround = boardScript("around", AROUND_LUA, (k) => [k.board, k.ready]);
export const boardRanks = boardScript("ranks", RANKS_LUA, (k) => [k.board, k.ready]);
export const boardUnlock = boardScript("unlock", UNLOCK_LUA, (k) => [k.lock]);
export const boardSwap = redisScript<{ ref: BoardRef; suffix: string }>({
  name: "stats.board.swap",
  lua: SWAP_LUA,
  keys: (keys, { ref, suffix }) => {
    const k = boardKeys(keys, ref);
    const t = rebuildKeys(keys, ref, suffix);
    return [t.tmp, t.tmpSeqs, k.board, k.seqs, k.ready];
  },
  example: { ref: EXAMPLE, suffix: "0a1b2c" },
});
