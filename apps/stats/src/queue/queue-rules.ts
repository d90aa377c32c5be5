import type {
  FieldError,
  GameConfig,
  GameMode,
  MatchmakingRequest,
  SubmitPlayersRequest,
} from "@arena/contracts";

/** At most this many players in one submission (a party or a batch of solo players). */
export const MAX_PLAYERS_PER_SUBMISSION = 1000;

/** A player as the queue stores it. */
export interface QueueEntry {
  playerId: string;
  reference: string | null;
  partyName: string | null;
  /** The servers the player named; empty means all of the game's. */
  servers: string[];
}

/**
 * A submission as queue entries: ids generated where missing, every bad field named (a player
 * twice, a server the game does not run on). Nothing is queued unless all of it is good.
 */
export function submissionEntries(
  game: Pick<GameConfig, "servers">,
  body: SubmitPlayersRequest,
  newId: () => string,
): { entries: QueueEntry[]; errors: FieldError[] } {
  const errors: FieldError[] = [];
  if (body.players.length > MAX_PLAYERS_PER_SUBMISSION) {
    errors.push({ pointer: "/players", detail: `must hold at most ${MAX_PLAYERS_PER_SUBMISSION} players` });
    return { entries: [], errors };
  }
  const known = new Set(game.servers);
  const seen = new Set<string>();
  const entries = body.players.map((p, i): QueueEntry => {
    const playerId = p.playerId ?? newId();
    if (seen.has(playerId)) errors.push({ pointer: `/players/${i}/playerId`, detail: "is listed twice" });
    seen.add(playerId);
    for (const [j, server] of (p.servers ?? []).entries()) {
      if (!known.has(server)) {
        errors.push({ pointer: `/players/${i}/servers/${j}`, detail: "is not one of the game's servers" });
      }
    }
    return {
      playerId,
      reference: p.reference ?? null,
      partyName: body.partyName ?? null,
      servers: [...(p.servers ?? [])],
    };
  });
  return { entries, errors };
}

/** A waiting player with what the matchmaker needs. */
export interface WaitingPlayer {
  playerId: string;
  partyName: string | null;
  servers: string[];
  joinedAt: Date;
  /** On the matchmaking scale (below). */
  rating: number;
}

/**
 * The matchmaking rating: openskill's mu on the display scale, without the uncertainty penalty
 * the displayed rating carries (`1500 + 40 × (mu − 25)`; a new player is 1500, as displayed).
 * Matching wants the best estimate of skill; the displayed rating is a conservative one.
 */
export function matchmakingRating(mu: number): number {
  return 1500 + 40 * (mu - 25);
}

/** The matchmaker's request for one game's waiting players at `now`. */
export function matchmakingRequest(
  game: GameConfig,
  waiting: readonly WaitingPlayer[],
  now: Date,
): MatchmakingRequest {
  const mode: GameMode = {
    numTeams: game.numTeams,
    numPlayersPerTeam: game.numPlayersPerTeam,
    targetWaitingTime: game.targetWaitingTime,
    ...(game.maxWaitingTime !== undefined ? { maxWaitingTime: game.maxWaitingTime } : {}),
    ...(game.ratingTolerance !== undefined ? { ratingTolerance: game.ratingTolerance } : {}),
  };
  const nowSeconds = Math.floor(now.getTime() / 1000);
  return {
    game_mode: mode,
    now: nowSeconds,
    tickets: waiting.map((p) => ({
      ticketId: p.playerId,
      // Never in the matchmaker's future, whatever the clocks.
      joinTimestamp: Math.min(nowSeconds, Math.floor(p.joinedAt.getTime() / 1000)),
      rating: p.rating,
      servers: p.servers.length > 0 ? p.servers : [...game.servers],
      ...(p.partyName !== null ? { partyId: p.partyName } : {}),
    })),
  };
}
