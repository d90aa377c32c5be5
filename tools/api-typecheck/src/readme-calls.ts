/**
 * A typed openapi-fetch call of each REST example of the root README's hosted walkthrough and the
 * gateway README, against the types openapi-typescript generates from the gateway's /openapi.json.
 * Never run: `tsc --noEmit` compiles it, so a README body the document no longer accepts (a field
 * renamed, a default made required, a type changed) fails `pnpm test`. The calls follow the shapes
 * of the action table; the README's values are kept where the README gives them.
 */
import createClient from "openapi-fetch";
import type { paths } from "../generated/arena-api.js";

const api = createClient<paths>({ baseUrl: "http://127.0.0.1:8080" });

/** README "Log in": Cognito InitiateAuth with USER_PASSWORD_AUTH, then the IdToken. */
export async function logIn(clientId: string, username: string, password: string): Promise<string> {
  const { data, error } = await api.POST("/auth", {
    params: { header: { "X-Amz-Target": "AWSCognitoIdentityProviderService.InitiateAuth" } },
    body: {
      AuthFlow: "USER_PASSWORD_AUTH",
      ClientId: clientId,
      AuthParameters: { USERNAME: username, PASSWORD: password },
    },
    bodySerializer: (body) => JSON.stringify(body),
    headers: { "Content-Type": "application/x-amz-json-1.1" },
  });
  if (error !== undefined || data === undefined) throw new Error("login failed");
  const idToken: string | undefined = data.AuthenticationResult?.IdToken;
  if (idToken === undefined) throw new Error("no IdToken");
  return idToken;
}

/** README "By REST": configure the game with the README's own body (defaults left out). */
export async function configureGame(token: string) {
  const { data } = await api.PUT("/games/{gameId}", {
    params: { path: { gameId: "ranked-2v2" } },
    headers: { Authorization: token },
    body: { numTeams: 2, numPlayersPerTeam: 2, servers: ["eu-1", "us-1"], targetWaitingTime: 20 },
  });
  const confirmationTimeout: number | undefined = data?.confirmationTimeout;
  return confirmationTimeout;
}

/** Queue players (with `Prefer: return=representation`), list them, poll for suggestions. */
export async function queueAndPoll(token: string) {
  const headers = { Authorization: token };
  const queued = await api.POST("/games/{gameId}/players", {
    params: { path: { gameId: "ranked-2v2" }, header: { Prefer: "return=representation" } },
    headers,
    body: {
      players: [
        { playerId: "steam:1", servers: ["eu-1"] },
        { playerId: "steam:2" },
        { playerId: "steam:3" },
        { playerId: "steam:4" },
      ],
    },
  });
  const party = await api.POST("/games/{gameId}/players", {
    params: { path: { gameId: "ranked-2v2" } },
    headers,
    body: { partyName: "duo", players: [{ playerId: "steam:5" }, { playerId: "steam:6" }] },
  });
  const waiting = await api.GET("/games/{gameId}/players", {
    params: { path: { gameId: "ranked-2v2" } },
    headers,
  });
  const { data: matches } = await api.POST("/games/{gameId}/matches", {
    params: { path: { gameId: "ranked-2v2" } },
    headers,
  });
  const match: string | undefined = matches?.[0]?.id;
  return { queued, party, waiting, match };
}

/** Confirm (no body), fail (players to remove), report the result, ask for a backfill. */
export async function matchLife(token: string, matchId: string) {
  const headers = { Authorization: token };
  const path = { gameId: "ranked-2v2", matchId };
  await api.POST("/games/{gameId}/matches/{matchId}/statuses/confirmed", { params: { path }, headers });
  await api.POST("/games/{gameId}/matches/{matchId}/statuses/failed", {
    params: { path, header: { Prefer: "return=representation" } },
    headers,
    body: { remove: ["steam:4"] },
  });
  await api.POST("/games/{gameId}/matches/{matchId}/statuses/completed", {
    params: { path },
    headers,
    body: {
      teams: [
        {
          rank: 0,
          players: [
            { playerId: "steam:1", score: 31 },
            { playerId: "steam:3", score: 12 },
          ],
        },
        {
          rank: 1,
          players: [
            { playerId: "steam:2", score: 20 },
            { playerId: "steam:4", score: 9 },
          ],
        },
      ],
    },
  });
  const { data: backfill } = await api.POST("/games/{gameId}/matches/{matchId}/backfill", {
    params: { path },
    headers,
    body: { droppedPlayerId: "steam:4" },
  });
  const requestId: string | undefined = backfill?.backfillingRequestId;
  return requestId;
}

/** Leaderboards, a player's statistics and history, the seasons. */
export async function statistics(token: string) {
  const headers = { Authorization: token };
  const top = await api.POST("/games/{gameId}/leaderboard", {
    params: { path: { gameId: "ranked-2v2" } },
    headers,
    body: { count: 10 },
  });
  const around = await api.POST("/games/{gameId}/leaderboard", {
    params: { path: { gameId: "ranked-2v2" } },
    headers,
    body: { count: 5, playerId: "steam:1" },
  });
  const stats = await api.GET("/players/{playerId}", { params: { path: { playerId: "steam:1" } }, headers });
  const history = await api.GET("/players/{playerId}/history", {
    params: { path: { playerId: "steam:1" }, query: { limit: 20 } },
    headers,
  });
  const seasons = await api.GET("/seasons", { headers });
  const next = await api.POST("/seasons", { headers, body: {} });
  return { top, around, stats, history, seasons, next };
}

/** The check checks: a body the document does not accept must not compile. */
export async function refused(token: string) {
  await api.PUT("/games/{gameId}", {
    params: { path: { gameId: "ranked-2v2" } },
    headers: { Authorization: token },
    // @ts-expect-error numTeams is a number, and numPlayersPerTeam is required
    body: { numTeams: "2", servers: ["eu-1"] },
  });
}
