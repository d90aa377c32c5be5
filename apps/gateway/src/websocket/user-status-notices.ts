import { listenOn, publishOn, type Redis, type RedisKeys } from "@arena/redis";
import type { Logger } from "@arena/service-kit";
import type { Authenticator, Principal } from "../access/authentication.js";
import { CLOSE } from "./connection.js";
import type { ConnectionRegistry } from "./connection-registry.js";

/** The channel on which a replica that disables a user tells every replica. */
export function userStatusChannel(keys: RedisKeys): string {
  return keys.global("users", "status-changed");
}

/** Tells every replica (this one too) that a user's status changed; a lost notice is logged only. */
export function announceUserStatusChange(
  redis: Redis,
  keys: RedisKeys,
  logger: Logger,
  userId: string,
): void {
  publishOn(redis, userStatusChannel(keys), userId).catch((err: unknown) => {
    logger.warn({ err: (err as Error).message }, "replicas were not told of a user's new status");
  });
}

export interface UserStatusNoticesDeps {
  /** Duplicated for the subscription, which takes a connection of its own. */
  redis: Redis;
  keys: RedisKeys;
  authenticator: Authenticator;
  connections: ConnectionRegistry;
}

/**
 * Closes a disabled user's connections (4001): at once when a replica announces the change on the
 * Redis channel, and at the periodic check for a change no notice reached (the CLI, which has no
 * Redis client, or a lost pub/sub message).
 */
export class UserStatusNotices {
  constructor(private readonly deps: UserStatusNoticesDeps) {}

  /** Subscribes to the notices; resolves with the function that stops. */
  listen(): Promise<() => Promise<void>> {
    return listenOn(this.deps.redis, [userStatusChannel(this.deps.keys)], (_channel, userId) => {
      void this.userChanged(userId);
    });
  }

  /** Reads again (through the authenticator's cache) the status of every user holding a connection. */
  async checkConnectedUsers(): Promise<void> {
    const users = new Map<string, Principal>();
    for (const conn of this.deps.connections.values()) users.set(conn.principal.userId, conn.principal);
    for (const principal of users.values()) await this.checkUser(principal);
  }

  /** A notice from the replica that changed a user: forget what was cached, and check its connections. */
  private async userChanged(userId: string): Promise<void> {
    this.deps.authenticator.forgetUser(userId);
    for (const conn of this.deps.connections.values()) {
      if (conn.principal.userId === userId) {
        await this.checkUser(conn.principal);
        return;
      }
    }
  }

  private async checkUser(principal: Principal): Promise<void> {
    let active: boolean;
    try {
      active = await this.deps.authenticator.isActive(principal);
    } catch {
      return; // The database is unreachable: checked again at the next refresh.
    }
    if (active) return;
    const { connections } = this.deps;
    for (const conn of connections.values()) {
      if (conn.principal.userId === principal.userId) {
        connections.close(conn, CLOSE.userDisabled, "user disabled", "user_disabled");
      }
    }
  }
}
