import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { ArenaApiError, type ArenaClient, type MatchSuggestionPayload } from "@arena/client";
import type { BackfillWaits } from "./backfill-waits.js";
import type { GameServerConfig } from "./config.js";
import type { Figures } from "./figures.js";
import type { Logger } from "./logger.js";
import { persist } from "./persist.js";
import type { Population } from "./population.js";
import { type Roster, randomResult } from "./results.js";

export interface MatchPlayDeps {
  client: ArenaClient;
  config: Pick<GameServerConfig, "gameId" | "playMs" | "dropRate" | "backfillWaitMs" | "persistMs">;
  population: Population;
  backfillWaits: BackfillWaits;
  figures: Figures;
  logger: Logger;
  /** Aborted when the server stops: a match still under way then ends where it is. */
  signal: AbortSignal;
}

/** A seat left by a dropped player, and who took it (nobody: the match ends a player short). */
interface Seat {
  dropped: string;
  replacement: string | undefined;
}

/**
 * One match's life on this server: confirm it, play it for `playMs` (a player may drop out, and a
 * backfill is asked for the seat), then report a random result with the teams as they ended.
 * Every call goes through `persist`, so a gateway restart in the middle only delays the match.
 */
export async function playMatch(deps: MatchPlayDeps, match: MatchSuggestionPayload["match"]): Promise<void> {
  const { population, figures, logger, signal, config } = deps;
  const roster: Roster = match.teams.map((t) => t.players.map((p) => p.playerId));
  const players = roster.flat();
  population.playing(players);
  if (!(await confirm(deps, match.id, players))) return;

  let seat: Seat | undefined;
  try {
    const playEnd = Date.now() + config.playMs;
    if (Math.random() < config.dropRate) seat = await dropOne(deps, match.id, players, playEnd);
    await sleep(Math.max(0, playEnd - Date.now()), undefined, { signal });
    const final = seat ? rosterAfter(roster, seat) : roster;
    const body = randomResult(final, (id) => population.skillOf(id), match.server, config.playMs / 1000);
    await persist(
      (options) => deps.client.completeMatch({ gameId: config.gameId, matchId: match.id, body }, options),
      config.persistMs,
      signal,
    );
    figures.matchesCompleted++;
  } catch (err) {
    figures.failures++;
    logger.warn("a match could not be completed", { matchId: match.id, error: String(err) });
    if (signal.aborted) await abandon(deps, match.id);
  }
  const stayed = players.filter((id) => id !== seat?.dropped);
  population.finished(seat?.replacement ? [...stayed, seat.replacement] : stayed);
  if (seat) population.gone([seat.dropped]);
}

/**
 * The server stops with this match under way: fail it, so the platform does not keep it confirmed
 * forever. Its players wait again, until `stop()` clears the queue. One attempt: the server is
 * going away.
 */
async function abandon(deps: MatchPlayDeps, matchId: string): Promise<void> {
  try {
    await deps.client.failMatch({ gameId: deps.config.gameId, matchId }, { deadlineMs: 5000 });
  } catch (err) {
    deps.logger.warn("an abandoned match could not be failed", { matchId, error: String(err) });
  }
}

/** Confirms the match; false if the platform had failed it already (its players wait again). */
async function confirm(deps: MatchPlayDeps, matchId: string, players: string[]): Promise<boolean> {
  try {
    await persist(
      (options) => deps.client.confirmMatch({ gameId: deps.config.gameId, matchId }, options),
      deps.config.persistMs,
      deps.signal,
    );
    return true;
  } catch (err) {
    deps.figures.failures++;
    // 409: it timed out unconfirmed (or the queue was cleared), and the platform requeued its players.
    if (err instanceof ArenaApiError && err.status === 409) deps.population.requeued(players);
    deps.logger.warn("a match could not be confirmed", { matchId, error: String(err) });
    return false;
  }
}

/**
 * A player leaves at a random moment of the first half of the match; a backfill is asked for its
 * seat. The replacement is awaited until the match ends (and `backfillWaitMs` more if none came),
 * then read by REST in case its push went to a connection that was lost, else the request is
 * cancelled and the match ends a player short.
 */
async function dropOne(
  deps: MatchPlayDeps,
  matchId: string,
  players: string[],
  playEnd: number,
): Promise<Seat> {
  const { client, config, figures, signal } = deps;
  await sleep(Math.random() * (config.playMs / 2), undefined, { signal });
  const dropped = players[Math.floor(Math.random() * players.length)]!;
  const backfillingRequestId = randomUUID();
  const ids = { gameId: config.gameId, matchId, backfillingRequestId };
  try {
    figures.backfills++;
    deps.backfillWaits.expect(backfillingRequestId);
    // Our own request id: a retry after a lost answer is the same request, not a second one.
    const body = { droppedPlayerId: dropped, backfillingRequestId };
    await persist(
      (options) => client.requestBackfill({ gameId: config.gameId, matchId, body }, options),
      config.persistMs,
      signal,
    );
    const waitMs = Math.max(0, playEnd - Date.now()) + config.backfillWaitMs;
    const pushed = await deps.backfillWaits.within(backfillingRequestId, waitMs);
    let replacement = pushed?.replacement.playerId;
    if (replacement === undefined) {
      const status = await persist((options) => client.getBackfill(ids, options), config.persistMs, signal);
      if (status.state === "delivered" && status.replacement) replacement = status.replacement.playerId;
      else await persist((options) => client.cancelBackfill(ids, options), config.persistMs, signal);
    }
    if (replacement !== undefined) {
      figures.backfillsFilled++;
      deps.population.playing([replacement]);
    }
    return { dropped, replacement };
  } catch (err) {
    deps.backfillWaits.forget(backfillingRequestId);
    deps.logger.warn("a backfill went wrong; the match goes on without it", { matchId, error: String(err) });
    return { dropped, replacement: undefined };
  }
}

/**
 * The teams as the match ends: the replacement in its dropped player's team; with none, the
 * dropped player is reported with its team (it played part of the match, and a team is never empty).
 */
function rosterAfter(roster: Roster, seat: Seat): Roster {
  if (seat.replacement === undefined) return roster;
  return roster.map((team) => team.map((id) => (id === seat.dropped ? seat.replacement! : id)));
}
