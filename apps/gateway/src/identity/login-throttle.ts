import { createHash } from "node:crypto";
import { type Redis, type RedisKeys, redisScript } from "@arena/redis";
import type { Clock } from "@arena/service-kit";
import { canonicalUsername } from "./identity-store.js";

export interface LoginThrottleOptions {
  redis: Redis;
  keys: RedisKeys;
  clock: Clock;
  windowSeconds: number;
  /** Failures of one name at one address that lock it there until the window ends. */
  perUsernameAndAddress: number;
  /** Failures of one name over every address after which new addresses wait before each attempt. */
  perUsername: number;
  /** The longest such wait: it starts at 1 s and doubles with each further failure. */
  maxDelaySeconds: number;
  /** Failures from one address, whatever the names, that lock the address until the window ends. */
  perAddress: number;
  /** How long an address a name logged in from stays exempt from the wait over every address. */
  knownAddressDays: number;
}

/** One login attempt: the name as sent, through an app client of `tenantId`, from `address`. */
export interface LoginAttempt {
  tenantId: string;
  username: string;
  address: string;
}

/**
 * Admitted (and counted as a failure, and as in flight, until settled), or the seconds to wait.
 * Every admitted attempt must be settled, whatever happens to it.
 */
export type LoginAdmission =
  | { admitted: true; settle(succeeded: boolean): Promise<void> }
  | { admitted: false; retryAfterSeconds: number };

/** What the operator may do to the throttle: lift every lock and wait of a tenant's user. */
export interface LoginLocks {
  clear(tenantId: string, username: string): Promise<void>;
}

/** Keys hold digests, never what a client sent: the names and addresses are the client's text. */
const digest = (...parts: string[]) => createHash("sha256").update(parts.join("\n")).digest("base64url");

const nameKey = (keys: RedisKeys, tenantId: string, username: string) =>
  keys.global("login-failures", "name", digest(tenantId, canonicalUsername(username)));

/** The throttle's keys for one attempt (one key per script: any cluster slot will do). */
function throttleKeys(keys: RedisKeys, { tenantId, username, address }: LoginAttempt) {
  const name = nameKey(keys, tenantId, username);
  const addressField = digest(address);
  return {
    name,
    address: keys.global("login-failures", "address", addressField),
    addressField,
    known: keys.global("login-known", digest(name, addressField)),
  };
}

const throttleScript = (name: string, key: "name" | "address", lua: string) =>
  redisScript<LoginAttempt>({
    name: `gateway.login-throttle.${name}`,
    lua,
    keys: (keys, attempt) => [throttleKeys(keys, attempt)[key]],
    example: { tenantId: "ten:{a}", username: "Ann Lee", address: "::1" },
  });

/**
 * Shared by the scripts below, each on one hash (KEYS[1]) with counts and, beside each, the attempts
 * still in flight. A bound reached only with attempts in flight is not yet a lock: those may still
 * succeed (a fleet of servers logging in at once), so the answer is to retry in a second.
 */
const PRELUDE = `
local function num(field) return tonumber(redis.call('HGET', KEYS[1], field) or '0') end
local function refusal(count, busy, limit)
  if count - busy >= limit then return math.max(redis.call('PTTL', KEYS[1]), 1) end
  return 1000
end
local function drop(field) if num(field) > 0 then redis.call('HINCRBY', KEYS[1], field, -1) end end
local function window(ms) if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ms) end end
`;

/** One address over every name: `n` attempts, `q` in flight. ARGV: limit, window ms. 0 or ms to wait. */
const ADDRESS_ADMIT = throttleScript(
  "address-admit",
  "address",
  `${PRELUDE}
local count, limit = num('n'), tonumber(ARGV[1])
if count >= limit then return refusal(count, num('q'), limit) end
redis.call('HINCRBY', KEYS[1], 'n', 1)
redis.call('HINCRBY', KEYS[1], 'q', 1)
window(ARGV[2])
return 0`,
);

/** An address's attempt ended; ARGV[1] '1' when it succeeded, which takes it back. */
const ADDRESS_SETTLE = throttleScript(
  "address-settle",
  "address",
  `${PRELUDE}
drop('q')
if ARGV[1] == '1' then drop('n') end`,
);

/**
 * One name: attempts (`a:<address>`) and in flight (`q:<address>`) per address hash; `n`, attempts
 * from addresses not known for the name, and `next`, the clock's ms before which those wait.
 * ARGV: address, per name and address, per name, longest wait ms, now ms, window ms, known (1/0).
 */
const NAME_ADMIT = throttleScript(
  "name-admit",
  "name",
  `${PRELUDE}
local here, limit = 'a:' .. ARGV[1], tonumber(ARGV[2])
local count = num(here)
if count >= limit then return refusal(count, num('q:' .. ARGV[1]), limit) end
if ARGV[7] == '0' then
  local free, now = tonumber(ARGV[3]), tonumber(ARGV[5])
  local n = num('n')
  if n >= free and now < num('next') then return num('next') - now end
  n = redis.call('HINCRBY', KEYS[1], 'n', 1)
  if n >= free then
    local wait = math.min(1000 * 2 ^ (n - free), tonumber(ARGV[4]))
    redis.call('HSET', KEYS[1], 'next', string.format('%.0f', now + wait))
  end
end
redis.call('HINCRBY', KEYS[1], here, 1)
redis.call('HINCRBY', KEYS[1], 'q:' .. ARGV[1], 1)
window(ARGV[6])
return 0`,
);

/** A name's attempt ended. ARGV: address, known (1/0), succeeded (1/0): a success clears its address. */
const NAME_SETTLE = throttleScript(
  "name-settle",
  "name",
  `${PRELUDE}
drop('q:' .. ARGV[1])
if ARGV[3] == '1' then
  redis.call('HDEL', KEYS[1], 'a:' .. ARGV[1])
  if ARGV[2] == '0' then drop('n') end
end`,
);

/**
 * Failed logins in Redis, shared by every replica, counted per name as a tenant's app clients see
 * it (tenant and canonical username), so failures through another tenant's client never count
 * against a user, whether or not the name exists there: the answer tells nothing either way.
 *
 * - Per name and address: past `perUsernameAndAddress` the name is locked at that address only.
 * - Per name over every address: past `perUsername`, an address the name has not logged in from
 *   waits 1 s, then 2, 4, ... up to `maxDelaySeconds` before each attempt: slowed, never locked.
 *   Addresses it logged in from in the last `knownAddressDays` are not kept waiting.
 * - Per address over every name: past `perAddress` the address is locked.
 *
 * An attempt is counted when admitted, before the password is checked, so concurrent attempts
 * cannot slip past a bound; a success takes it back and clears its name's count at its address.
 * Locks end with the window, which starts at the first counted attempt of the name (or address).
 */
export class LoginThrottle implements LoginLocks {
  private readonly windowMs: number;

  constructor(private readonly options: LoginThrottleOptions) {
    this.windowMs = options.windowSeconds * 1000;
  }

  async admit(attempt: LoginAttempt): Promise<LoginAdmission> {
    const { redis, perAddress, perUsernameAndAddress, perUsername, maxDelaySeconds } = this.options;
    const keys = throttleKeys(this.options.keys, attempt);
    const run = (script: typeof NAME_ADMIT, ...args: Array<string | number>) =>
      script.run(redis, this.options.keys, attempt, ...args);
    const [known, addressWait] = await Promise.all([
      redis.exists(keys.known),
      run(ADDRESS_ADMIT, perAddress, this.windowMs) as Promise<number>,
    ]);
    if (addressWait > 0) return refused(addressWait);
    const knownFlag = known === 1 ? "1" : "0";
    const nameWait = (await run(
      NAME_ADMIT,
      keys.addressField,
      perUsernameAndAddress,
      perUsername,
      maxDelaySeconds * 1000,
      this.options.clock.now().getTime(),
      this.windowMs,
      knownFlag,
    )) as number;
    if (nameWait > 0) {
      await run(ADDRESS_SETTLE, "1");
      return refused(nameWait);
    }
    return {
      admitted: true,
      settle: async (succeeded) => {
        const flag = succeeded ? "1" : "0";
        await Promise.all([
          run(NAME_SETTLE, keys.addressField, knownFlag, flag),
          run(ADDRESS_SETTLE, flag),
          succeeded ? redis.set(keys.known, "1", "PX", this.options.knownAddressDays * 86_400_000) : null,
        ]);
      },
    };
  }

  clear(tenantId: string, username: string): Promise<void> {
    return loginLocks(this.options.redis, this.options.keys).clear(tenantId, username);
  }
}

/** Lifting locks needs none of the bounds: the CLI uses this alone. */
export function loginLocks(redis: Redis, keys: RedisKeys): LoginLocks {
  return {
    async clear(tenantId, username) {
      await redis.del(nameKey(keys, tenantId, username));
    },
  };
}

const refused = (ms: number): LoginAdmission => ({
  admitted: false,
  retryAfterSeconds: Math.max(1, Math.ceil(ms / 1000)),
});
