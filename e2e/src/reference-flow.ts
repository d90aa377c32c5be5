import { eventually } from "@arena/service-kit/testing";
import {
  type HttpAnswer,
  initiateAuth,
  PLATFORM_POLL,
  RestClient,
  SocketClient,
  type TenantCredentials,
} from "./clients.js";
import type { AppProcess, Platform } from "./platform.js";

/**
 * A game server's reference flow, recorded as comparable steps: log in, configure two games, get
 * one match pushed to a subscribed WebSocket and one by a REST fetch, confirm and complete both,
 * read the leaderboards and the players' statistics. Ids, tokens and times are masked, so the
 * same flow on two fresh tenants records the same steps.
 */

export interface FlowStep {
  step: string;
  status: number | string;
  body: unknown;
}

/** The games of the flow: the fuzzing tenant uses the same ids, so a leak between tenants shows. */
export const REFERENCE_PUSH_GAME = "duel";
export const REFERENCE_REST_GAME = "rest-duel";
export const REFERENCE_PLAYERS = { push: ["ref-a", "ref-b"], rest: ["ref-c", "ref-d"] } as const;

const GAME = { numTeams: 2, numPlayersPerTeam: 1, servers: ["eu-1", "us-1"], targetWaitingTime: 1 };

/** The completion of a 1v1 match: `winner` ranks first whatever team the matchmaker put it in. */
const resultOf = ([winner, loser]: readonly [string, string]) => ({
  server: "eu-1",
  gameLength: 300,
  teams: [
    { rank: 0, players: [{ playerId: winner, score: 12 }] },
    { rank: 1, players: [{ playerId: loser, score: 7 }] },
  ],
});

export interface ReferenceFlowOptions {
  /**
   * Awaited after the completions and before the reads: where stats reads from a replica, a read right
   * after a write may see the state from before it, so a test waits for the replica to catch up here.
   */
  beforeReads?: () => Promise<void>;
}

export async function referenceFlow(
  gatewayUrl: string,
  user: TenantCredentials,
  options: ReferenceFlowOptions = {},
): Promise<FlowStep[]> {
  const steps: FlowStep[] = [];
  const record = (step: string, answer: HttpAnswer) =>
    steps.push({ step, status: answer.status, body: masked(answer.body) });

  const login = await initiateAuth(gatewayUrl, user);
  record("login (InitiateAuth)", login);
  const token = (login.body as { AuthenticationResult: { IdToken: string } }).AuthenticationResult.IdToken;
  const rest = new RestClient(gatewayUrl, token);
  const representation = { prefer: "return=representation" };

  // The match pushed to a subscribed connection, confirmed and completed over the same WebSocket.
  const push = `/games/${REFERENCE_PUSH_GAME}`;
  record("configure the pushed game", await rest.call("PUT", push, GAME));
  const socket = await SocketClient.connect(gatewayUrl, token);
  try {
    const subscribed = await socket.send("subscribe", { gameId: REFERENCE_PUSH_GAME });
    steps.push({ step: "subscribe", status: "ws", body: masked(subscribed) });
    const players = REFERENCE_PLAYERS.push.map((playerId) => ({ playerId }));
    record(
      "queue the pushed game's players",
      await rest.call("POST", `${push}/players`, { players }, representation),
    );
    const [pushed] = await socket.pushesOf("matchSuggestion", 1);
    steps.push({ step: "matchSuggestion push", status: "ws", body: masked(pushed) });
    const match = { gameId: REFERENCE_PUSH_GAME, matchId: pushed!.payload.match.id as string };
    const confirmed = await socket.send("updateMatchConfirmed", match);
    steps.push({ step: "confirm by WebSocket", status: "ws", body: masked(confirmed) });
    const completed = await socket.send("updateMatchCompleted", {
      ...match,
      ...resultOf(REFERENCE_PLAYERS.push),
    });
    steps.push({ step: "complete by WebSocket", status: "ws", body: masked(completed) });
  } finally {
    await socket.close();
  }

  // The match fetched by REST, confirmed and completed by REST.
  const fetchedGame = `/games/${REFERENCE_REST_GAME}`;
  record("configure the fetched game", await rest.call("PUT", fetchedGame, GAME));
  const players = REFERENCE_PLAYERS.rest.map((playerId) => ({ playerId }));
  record("queue the fetched game's players", await rest.call("POST", `${fetchedGame}/players`, { players }));
  const fetched = await eventually(async () => {
    const res = await rest.call("POST", `${fetchedGame}/matches`);
    return res.status !== 200 || res.body.length > 0 ? res : undefined;
  }, PLATFORM_POLL);
  record("fetch the match", fetched);
  const matchPath = `${fetchedGame}/matches/${fetched.body[0]?.id}`;
  record("confirm by REST", await rest.call("POST", `${matchPath}/statuses/confirmed`));
  record("the confirmed match", await rest.call("GET", matchPath));
  record(
    "complete by REST",
    await rest.call("POST", `${matchPath}/statuses/completed`, resultOf(REFERENCE_PLAYERS.rest)),
  );

  await options.beforeReads?.();
  for (const game of [REFERENCE_PUSH_GAME, REFERENCE_REST_GAME]) {
    record(`${game} leaderboard`, await rest.call("POST", `/games/${game}/leaderboard`, { count: 10 }));
    record(`${game} queue`, await rest.call("GET", `/games/${game}/players`));
  }
  for (const player of [REFERENCE_PLAYERS.push[0], REFERENCE_PLAYERS.rest[1]]) {
    record(`${player}'s statistics`, await rest.call("GET", `/players/${player}`));
    record(`${player}'s history`, await rest.call("GET", `/players/${player}/history`));
  }
  record("seasons", await rest.call("GET", "/seasons"));
  return steps;
}

/** `GET /livez` and `/readyz` of every app. */
export async function healthOf(platform: Platform): Promise<FlowStep[]> {
  const apps: AppProcess[] = [
    platform.license,
    platform.matchmaker,
    ...platform.statsReplicas,
    platform.gateway,
  ];
  const steps: FlowStep[] = [];
  for (const app of apps) {
    for (const probe of ["/livez", "/readyz"]) {
      const res = await fetch(`${app.url}${probe}`);
      const text = await res.text();
      steps.push({
        step: `${app.name} ${probe}`,
        status: res.status,
        body: masked(text ? JSON.parse(text) : text),
      });
    }
  }
  return steps;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const SECRETS = new Set(["IdToken", "AccessToken", "RefreshToken", "requestId", "messageId", "nextCursor"]);

/**
 * A body with what differs between two runs masked: uuids, timestamps, tokens, request and
 * message ids; teams in the order of their first player (the matchmaker's team order is free).
 */
export function masked(value: unknown, key = ""): unknown {
  if (SECRETS.has(key) && value !== null && value !== undefined) return `<${key}>`;
  if (typeof value === "string") {
    if (UUID.test(value)) return "<uuid>";
    if (TIMESTAMP.test(value)) return "<time>";
    return value;
  }
  if (Array.isArray(value)) {
    const items = value.map((item) => masked(item));
    return key === "teams" ? items.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))) : items;
  }
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, masked(v, k)]));
  }
  return value;
}
