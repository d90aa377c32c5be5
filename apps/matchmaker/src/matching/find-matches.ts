import type { UnmatchedReason } from "@arena/contracts";
import { generateMatchIds } from "./match-ids.js";
import { DEFAULT_TARGET_WAITING_TIME, defaultRatingTolerance } from "./match-quality.js";
import { buildQueueModel } from "./queue-model.js";
import { searchMatches } from "./search.js";
import { SearchScratch } from "./search-scratch.js";
import { ServerChooser } from "./server-choice.js";
import type {
  MatchedTeam,
  MatchGameMode,
  MatchResult,
  MatchSuggestion,
  MatchTicket,
  SearchSettings,
} from "./types.js";
import { explainUnmatched } from "./unmatched-reasons.js";

/** What `findMatches` takes besides the game mode and the queue. */
export interface MatchOptions {
  /** Unix seconds. */
  now: number;
  /** Seed of the suggestion and team ids; the same seed and request give the same ids. */
  idSeed?: string;
  /** Also say why each unmatched ticket is waiting (`unmatchedReasons`). */
  explain?: boolean;
  /**
   * Memory the search reuses between calls, owned by the caller (the HTTP shell keeps one per
   * process); a fresh one per call when omitted. Never shared by two calls running at once.
   */
  scratch?: SearchScratch;
}

/**
 * Forms matches from a queue snapshot. Pure and deterministic: the result depends only on the
 * arguments (ids on `options.idSeed` and the tickets). Input is assumed schema-valid; returned
 * tickets are the very objects passed in.
 */
export function findMatches(
  gameMode: MatchGameMode,
  tickets: readonly MatchTicket[],
  options: MatchOptions,
): MatchResult {
  const teams = gameMode.numTeams;
  const perTeam = gameMode.numPlayersPerTeam;
  const scratch = options.scratch ?? new SearchScratch();
  // Every typed array of the last search on this scratch is free again (none of them is in a result).
  const arrays = scratch.arrays;
  arrays.reset();
  const model = buildQueueModel(gameMode, tickets, arrays);
  const tolerance =
    typeof gameMode.ratingTolerance === "number" &&
    gameMode.ratingTolerance > 0 &&
    Number.isFinite(gameMode.ratingTolerance)
      ? gameMode.ratingTolerance
      : defaultRatingTolerance(model.ratings, arrays);
  const target =
    typeof gameMode.targetWaitingTime === "number" && gameMode.targetWaitingTime >= 0
      ? gameMode.targetWaitingTime
      : DEFAULT_TARGET_WAITING_TIME;
  const maxWait =
    typeof gameMode.maxWaitingTime === "number" && gameMode.maxWaitingTime >= 0
      ? gameMode.maxWaitingTime
      : Number.POSITIVE_INFINITY;

  const settings: SearchSettings = {
    teams,
    perTeam,
    now: options.now,
    targetWaitingTime: target,
    maxWaitingTime: maxWait,
    tolerance,
  };
  const found = teams >= 1 && perTeam >= 1 ? searchMatches(model, settings, scratch) : undefined;

  const matched = arrays.uint8(tickets.length);
  // Not from the arena: the answer reads it after this call, maybe after another search began.
  const ticketOrder = new Int32Array(tickets.length);
  let ordered = 0;
  const matchCount = found === undefined ? 0 : found.count;
  const matchSuggestions = new Array<MatchSuggestion>(matchCount);
  if (found !== undefined && matchCount > 0) {
    const ids = generateMatchIds(options.idSeed ?? "", matchCount, teams);
    const chooser = new ServerChooser(model);
    const matchTickets = arrays.int32(teams * perTeam);
    const teamFill = arrays.int32(teams);
    const { unitStart, units, unitTeam, score } = found;
    const { unitMemberStart, unitMembers, serverNames } = model;
    let idAt = 0;
    for (let m = 0; m < matchCount; m++) {
      const from = unitStart[m]!;
      const to = unitStart[m + 1]!;
      const matchTeams = new Array<MatchedTeam>(teams);
      const matchId = ids[idAt++]!;
      // Every team of a match has exactly perTeam tickets, so its array is allocated at that size
      // (grown from [], each had a 17-slot store: a quarter of what findMatches allocated).
      for (let t = 0; t < teams; t++) matchTeams[t] = { id: ids[idAt++]!, tickets: new Array(perTeam) };
      teamFill.fill(0, 0, teams);
      let count = 0;
      for (let i = from; i < to; i++) {
        const u = units[i]!;
        const team = unitTeam[i]!;
        const list = matchTeams[team]!.tickets;
        for (let k = unitMemberStart[u]!; k < unitMemberStart[u + 1]!; k++) {
          const t = unitMembers[k]!;
          matched[t] = 1;
          matchTickets[count++] = t;
          list[teamFill[team]!++] = tickets[t]!;
        }
      }
      for (let t = 0; t < teams; t++) {
        if (teamFill[t] !== perTeam)
          throw new Error(`match ${m} has a team of ${teamFill[t]} tickets, not ${perTeam}`);
      }
      for (let team = 0; team < teams; team++) {
        for (let i = from; i < to; i++) {
          if (unitTeam[i] !== team) continue;
          const u = units[i]!;
          for (let k = unitMemberStart[u]!; k < unitMemberStart[u + 1]!; k++)
            ticketOrder[ordered++] = unitMembers[k]!;
        }
      }
      const server = chooser.choose(units, from, to, matchTickets, count);
      matchSuggestions[m] = {
        id: matchId,
        server: serverNames[server]!,
        matchScore: score[m]!,
        teams: matchTeams,
      };
    }
  }

  const unmatchedTickets: MatchTicket[] = [];
  for (let t = 0; t < tickets.length; t++) {
    if (matched[t] === 0) {
      unmatchedTickets.push(tickets[t]!);
      ticketOrder[ordered++] = t;
    }
  }
  if (!options.explain) return { matchSuggestions, unmatchedTickets, ticketOrder };

  const unitReasons = explainUnmatched(gameMode, tickets, model, found, settings, scratch.balancer, arrays);
  const ticketUnit = arrays.int32(tickets.length);
  for (let u = 0; u < model.unitCount; u++) {
    for (let k = model.unitMemberStart[u]!; k < model.unitMemberStart[u + 1]!; k++)
      ticketUnit[model.unitMembers[k]!] = u;
  }
  const unmatchedReasons = new Array<UnmatchedReason>(unmatchedTickets.length);
  for (let i = 0, k = ordered - unmatchedTickets.length; i < unmatchedTickets.length; i++, k++) {
    unmatchedReasons[i] = unitReasons[ticketUnit[ticketOrder[k]!]!]!;
  }
  return { matchSuggestions, unmatchedTickets, ticketOrder, unmatchedReasons };
}
