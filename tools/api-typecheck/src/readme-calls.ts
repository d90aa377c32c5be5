/**
 * A typed openapi-fetch call of each REST example of the root README (its quick try and its hosted
 * walkthrough, in the walkthrough's order) and the gateway README, against the types
 * openapi-typescript generates from the gateway's /openapi.json. Never run: `tsc --noEmit` compiles
 * it, so a README body the document no longer accepts (a field renamed, a default made required, a
 * type changed) fails `pnpm test`. The bodies are the README's; what the README reads from an answer
 * (`$MATCH`, the teams, `$BACKFILL`) is read here from the typed answer the same way.
 */
import createClient from "openapi-fetch";
import type { components, paths } from "../generated/arena-api.js";

const api = createClient<paths>({ baseUrl: "http://127.0.0.1:8080" });
const GAME = { gameId: "ranked-2v2" };
const COGNITO = "application/x-amz-json-1.1";

/** READMEs "Log in": Cognito InitiateAuth with USER_PASSWORD_AUTH, then the IdToken. */
export async function logIn(clientId: string, username: string, password: string): Promise<string> {
  const { data, error } = await api.POST("/auth", {
    params: { header: { "X-Amz-Target": "AWSCognitoIdentityProviderService.InitiateAuth" } },
    body: {
      AuthFlow: "USER_PASSWORD_AUTH",
      ClientId: clientId,
      AuthParameters: { USERNAME: username, PASSWORD: password },
    },
    bodySerializer: (body) => JSON.stringify(body),
    headers: { "Content-Type": COGNITO },
  });
  if (error !== undefined || data === undefined) throw new Error("login failed");
  const idToken: string | undefined = data.AuthenticationResult?.IdToken;
  if (idToken === undefined) throw new Error("no IdToken");
  return idToken;
}

/**
 * The gateway README's SRP login, as the document describes it: InitiateAuth USER_SRP_AUTH answers
 * the PASSWORD_VERIFIER challenge, RespondToAuthChallenge answers the tokens.
 */
export async function srpChallenge(clientId: string, username: string, srpA: string) {
  const { data } = await api.POST("/auth", {
    params: { header: { "X-Amz-Target": "AWSCognitoIdentityProviderService.InitiateAuth" } },
    body: {
      AuthFlow: "USER_SRP_AUTH",
      ClientId: clientId,
      AuthParameters: { USERNAME: username, SRP_A: srpA },
    },
    bodySerializer: (body) => JSON.stringify(body),
    headers: { "Content-Type": COGNITO },
  });
  // The answer is either operation's (the document cannot tie it to the header): narrow to InitiateAuth's.
  if (data === undefined || !("ChallengeName" in data)) throw new Error("no challenge");
  const challenge: "PASSWORD_VERIFIER" | undefined = data.ChallengeName;
  const srpB: string | undefined = data.ChallengeParameters.SRP_B;
  const block: string | undefined = data.ChallengeParameters.SECRET_BLOCK;
  const userId: string | undefined = data.ChallengeParameters.USER_ID_FOR_SRP;
  return { challenge, srpB, block, userId, salt: data.ChallengeParameters.SALT };
}

export async function srpAnswer(clientId: string, userId: string, block: string, signature: string) {
  const { data } = await api.POST("/auth", {
    params: { header: { "X-Amz-Target": "AWSCognitoIdentityProviderService.RespondToAuthChallenge" } },
    body: {
      ChallengeName: "PASSWORD_VERIFIER",
      ClientId: clientId,
      ChallengeResponses: {
        USERNAME: userId,
        PASSWORD_CLAIM_SECRET_BLOCK: block,
        PASSWORD_CLAIM_SIGNATURE: signature,
        TIMESTAMP: "Tue Mar 3 09:05:01 UTC 2026",
      },
    },
    bodySerializer: (body) => JSON.stringify(body),
    headers: { "Content-Type": COGNITO },
  });
  const idToken: string | undefined = data?.AuthenticationResult?.IdToken;
  return idToken;
}

/** Root README's quick try and gateway README: the seasons with the IdToken. */
export async function seasons(token: string) {
  const { data } = await api.GET("/seasons", { headers: { Authorization: token } });
  return data;
}

/** Walkthrough: the game mode with the README's own body (defaults left out). */
export async function configureGame(token: string) {
  const { data } = await api.PUT("/games/{gameId}", {
    params: { path: GAME },
    headers: { Authorization: token },
    body: { numTeams: 2, numPlayersPerTeam: 2, servers: ["eu-1", "us-1"], targetWaitingTime: 20 },
  });
  const confirmationTimeout: number | undefined = data?.confirmationTimeout;
  return confirmationTimeout;
}

type Suggestion = components["schemas"]["DeliveredMatchList"][number];

/** Walkthrough: queue four players (two a party) with the representation, poll until matched. */
export async function queueAndPoll(token: string): Promise<Suggestion[]> {
  const headers = { Authorization: token };
  const { data: queued } = await api.POST("/games/{gameId}/players", {
    params: { path: GAME, header: { Prefer: "return=representation" } },
    headers,
    body: {
      players: [
        { playerId: "steam:1", servers: ["eu-1"] },
        { playerId: "steam:2" },
        { playerId: "steam:3", partyName: "duo" },
        { playerId: "steam:4", partyName: "duo" },
      ],
    },
  });
  const queuedIds: (string | undefined)[] = (queued?.players ?? []).map((p) => p.playerId);
  let suggestions: Suggestion[] = [];
  while (suggestions.length === 0 && queuedIds.length > 0) {
    const { data } = await api.POST("/games/{gameId}/matches", { params: { path: GAME }, headers });
    suggestions = data ?? [];
  }
  return suggestions;
}

/**
 * Walkthrough: confirm `$MATCH`, ask for a backfill, read its state, cancel it, complete with the
 * teams as formed (the first team won: score 20, the second 10), then the player's statistics.
 */
export async function matchLife(token: string, [match]: Suggestion[]) {
  if (match === undefined) throw new Error("no suggestion");
  const headers = { Authorization: token };
  const path = { ...GAME, matchId: match.id };
  await api.POST("/games/{gameId}/matches/{matchId}/statuses/confirmed", { params: { path }, headers });
  const { data: backfill } = await api.POST("/games/{gameId}/matches/{matchId}/backfill", {
    params: { path },
    headers,
    body: { droppedPlayerId: "steam:4" },
  });
  const backfillingRequestId: string = backfill?.backfillingRequestId ?? "";
  const backfillPath = { ...path, backfillingRequestId };
  const { data: state } = await api.GET("/games/{gameId}/matches/{matchId}/backfill/{backfillingRequestId}", {
    params: { path: backfillPath },
    headers,
  });
  await api.DELETE("/games/{gameId}/matches/{matchId}/backfill/{backfillingRequestId}", {
    params: { path: backfillPath },
    headers,
  });
  const teams = match.teams.map((team, rank) => ({
    rank,
    players: team.players.map(({ playerId }) => ({ playerId, score: 20 - 10 * rank })),
  }));
  const { data: completed } = await api.POST("/games/{gameId}/matches/{matchId}/statuses/completed", {
    params: { path },
    headers,
    body: { teams },
  });
  const { data: player } = await api.GET("/players/{playerId}", {
    params: { path: { playerId: "steam:1" } },
    headers,
  });
  return { state, completed, player };
}

/** The check checks: a body the document does not accept must not compile. */
export async function refused(token: string) {
  await api.PUT("/games/{gameId}", {
    params: { path: GAME },
    headers: { Authorization: token },
    // @ts-expect-error numTeams is a number, and numPlayersPerTeam is required
    body: { numTeams: "2", servers: ["eu-1"] },
  });
}
