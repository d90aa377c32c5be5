import {
  type AccessTokens,
  CognitoTokens,
  type MatchSuggestionPayload,
  RealtimeClient,
  type ReconnectEvent,
} from "@arena/client";
import { eventually } from "@arena/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { PLATFORM_POLL, provisionTenant, RestClient } from "../src/clients.js";
import { type Platform, startPlatform } from "../src/platform.js";

/**
 * The SDK's WebSocket client against the four apps as processes: suggestions through the iterator
 * and the events, acknowledged; the gateway's connection lifetime crossed by handovers; the gateway
 * killed and started again mid-stream. Each time every queued player reaches the game server in
 * exactly one suggestion, and no suggestion reaches it twice.
 */

/** The gateway's connection lifetime here: short, so a few seconds of stream cross several. */
const LIFETIME_MS = 3000;

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform({
    matchmakingIntervalMs: 100,
    env: {
      gateway: {
        WS_MAX_LIFETIME_MS: String(LIFETIME_MS),
        WS_KEEPALIVE_MS: "1000",
        // A killed replica's subscriptions stop being chosen soon after it died.
        WS_REGISTRATION_REFRESH_MS: "500",
        WS_REGISTRATION_TTL_MS: "1500",
      },
    },
  });
});
afterAll(async () => platform?.close());

const game = {
  numTeams: 2,
  numPlayersPerTeam: 1,
  servers: ["eu-1"],
  targetWaitingTime: 1,
  confirmationTimeout: 4,
};

interface Studio {
  rest: RestClient;
  tokens: CognitoTokens;
}

async function studio(gameId: string): Promise<Studio> {
  const user = await provisionTenant(platform);
  const tokens = new CognitoTokens({ baseUrl: platform.gateway.url, ...user });
  const rest = new RestClient(platform.gateway.url, await tokens.current());
  expect((await rest.call("PUT", `/games/${gameId}`, game)).status).toBe(200);
  return { rest, tokens };
}

/** Queues `count` players two at a time, `everyMs` apart; a call the gateway could not take is sent again. */
async function feed(
  rest: RestClient,
  gameId: string,
  prefix: string,
  count: number,
  everyMs: number,
): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
  for (let i = 0; i < count; i += 2) {
    const players = ids.slice(i, i + 2).map((playerId) => ({ playerId }));
    for (;;) {
      const status = await rest.call("POST", `/games/${gameId}/players`, { players }).then(
        (res) => res.status,
        () => 0,
      );
      // 409: an earlier attempt that seemed lost was taken after all.
      if (status === 204 || status === 409) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return ids;
}

/** The game server's side: every suggestion recorded and confirmed (over the same WebSocket). */
class GameServer {
  readonly received: MatchSuggestionPayload[] = [];
  readonly reconnects: ReconnectEvent[] = [];
  readonly handovers: number[] = [];
  duplicatesDropped = 0;
  readonly rt: RealtimeClient;

  constructor(tokens: AccessTokens) {
    this.rt = new RealtimeClient({
      url: platform.gateway.url,
      tokens,
      keepAliveMs: 1000,
      maxLifetimeMs: LIFETIME_MS,
      handoverLeadMs: 1500,
      reconnectBaseMs: 100,
      reconnectMaxMs: 1000,
      requestTimeoutMs: 5000,
      hooks: {
        metrics: {
          reconnect: (e) => this.reconnects.push(e),
          push: (e) => {
            if (e.duplicate) this.duplicatesDropped += 1;
          },
        },
      },
    });
    this.rt.on("connected", (e) => {
      if (e.kind === "handover") this.handovers.push(e.connection);
    });
  }

  /** Records and confirms a suggestion; a confirmation cut by a reconnect is sent again. */
  take(s: MatchSuggestionPayload): void {
    this.received.push(s);
    const confirm = async () => {
      for (;;) {
        try {
          await this.rt.request("updateMatchConfirmed", { gameId: s.gameId, matchId: s.match.id });
          return;
        } catch (err) {
          if ((err as { code?: unknown }).code === "closed") return;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    };
    void confirm();
  }

  get players(): string[] {
    return this.received.flatMap((s) => s.match.teams.flatMap((t) => t.players.map((p) => p.playerId)));
  }

  /** Every player of `ids` in exactly one suggestion, and no suggestion twice. */
  async everyPlayerOnce(ids: string[]): Promise<{ lost: number; duplicates: number }> {
    await eventually(async () => new Set(this.players).size >= ids.length, {
      ...PLATFORM_POLL,
      timeoutMs: 40_000,
    });
    const matchIds = this.received.map((s) => s.match.id);
    return {
      lost: ids.filter((id) => !this.players.includes(id)).length,
      duplicates:
        matchIds.length - new Set(matchIds).size + (this.players.length - new Set(this.players).size),
    };
  }
}

describe("the SDK's WebSocket client against the platform", () => {
  it("subscribes, receives suggestions through the iterator and the events, and acknowledges them", async () => {
    const { rest, tokens } = await studio("duel");
    const server = new GameServer(tokens);
    const heard: string[] = [];
    server.rt.on("matchSuggestion", (s) => heard.push(s.match.id));
    const iterator = server.rt.suggestions();
    await server.rt.subscribe({ gameIds: ["duel"], priority: 10, rateLimit: 6000 });
    const ids = await feed(rest, "duel", "it", 8, 0);
    for (let i = 0; i < 4; i++) {
      const { value } = await iterator.next();
      server.take(value as MatchSuggestionPayload);
    }
    expect(await server.everyPlayerOnce(ids)).toEqual({ lost: 0, duplicates: 0 });
    expect(heard.sort()).toEqual(server.received.map((s) => s.match.id).sort());
    // Acknowledged (and confirmed): a REST fetch has nothing left to deliver.
    await eventually(async () => {
      const all = (await rest.call("GET", "/games/duel/players")).body as Array<{ state: string }>;
      return all.every((p) => p.state === "matched");
    }, PLATFORM_POLL);
    expect((await rest.call("POST", "/games/duel/matches")).body).toEqual([]);
    await server.rt.close();
  });

  it("crosses the gateway's connection lifetime by handovers with nothing lost and nothing twice", async () => {
    const { rest, tokens } = await studio("relay");
    const server = new GameServer(tokens);
    server.rt.on("matchSuggestion", (s) => server.take(s));
    await server.rt.subscribe({ gameIds: ["relay"] });
    const ids = await feed(rest, "relay", "h", 80, 100);
    const figures = await server.everyPlayerOnce(ids);
    expect(figures).toEqual({ lost: 0, duplicates: 0 });
    expect(server.handovers.length).toBeGreaterThanOrEqual(2);
    // A handover is no disconnect: no reconnect but the lifetime's.
    expect(server.reconnects.every((e) => e.reason === "lifetime")).toBe(true);
    process.stdout.write(
      `lifetime handover: ${server.handovers.length} handovers, ${server.received.length} suggestions, ` +
        `${server.duplicatesDropped} duplicate offers dropped, lost ${figures.lost}, twice ${figures.duplicates}\n`,
    );
    await server.rt.close();
  });

  it("reconnects after the gateway is killed and started again, every suggestion exactly once", async () => {
    const { rest, tokens } = await studio("storm");
    const server = new GameServer(tokens);
    const iterator = server.rt.suggestions();
    void (async () => {
      for await (const s of iterator) server.take(s);
    })();
    await server.rt.subscribe({ gameIds: ["storm"] });
    const feeding = feed(rest, "storm", "k", 80, 60);
    await eventually(async () => server.received.length >= 8, PLATFORM_POLL);
    await platform.gateway.stop("SIGKILL");
    await platform.gateway.restart();
    const ids = await feeding;
    const figures = await server.everyPlayerOnce(ids);
    expect(figures).toEqual({ lost: 0, duplicates: 0 });
    const outages = server.reconnects.filter((e) => e.reason !== "lifetime");
    expect(outages.length).toBeGreaterThanOrEqual(1);
    process.stdout.write(
      `gateway restart: ${outages.length} reconnect attempts (${outages.map((e) => e.reason).join(",")}), ` +
        `${server.handovers.length} handovers, ${server.received.length} suggestions, ` +
        `${server.duplicatesDropped} duplicate offers dropped, lost ${figures.lost}, twice ${figures.duplicates}\n`,
    );
    await server.rt.close();
  });
});
