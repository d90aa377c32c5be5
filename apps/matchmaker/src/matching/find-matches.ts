import type { UnmatchedReason } from "@arena/contracts";
import type { ArrayArena } from "./array-arena.js";
import { generateMatchIds } from "./match-ids.js";
import { DEFAULT_TARGET_WAITING_TIME, defaultRatingTolerance } from "./match-quality.js";
import { buildQueueModel, type QueueModel } from "./queue-model.js";
import { searchMatches } from "./search.js";
import { SearchScratch } from "./search-scratch.js";
import { ServerChooser } from "./server-choice.js";
import type {
  FoundMatches,
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
  const scratch = options.scratch ?? new SearchScratch();
  // Every typed array of the last search on this scratch is free again (none of them is in a result).
  const arrays = scratch.arrays;
  arrays.reset();
  const model = buildQueueModel(gameMode, tickets, arrays);
  const settings = searchSettings(gameMode, model, options.now, arrays);
  const { teams, perTeam } = settings;
  const found = teams >= 1 && perTeam >= 1 ? searchMatches(model, settings, scratch) : undefined;

  const matched = arrays.uint8(tickets.length);
  // Not from the arena: the answer reads it after this call, maybe after another search began.
  const ticketOrder = new Int32Array(tickets.length);
  const matchSuggestions =
    found === undefined
      ? new Array<MatchSuggestion>(0)
      : suggestMatches(
          found,
          model,
          tickets,
          settings,
          options.idSeed ?? "",
          { matched, ticketOrder },
          arrays,
        );
  // Every match lists exactly teams × perTeam tickets (suggestMatches checks it); the rest follow.
  let ordered = matchSuggestions.length * teams * perTeam;
  const unmatchedTickets: MatchTicket[] = [];
  for (let t = 0; t < tickets.length; t++) {
    if (matched[t] === 0) {
      unmatchedTickets.push(tickets[t]!);
      ticketOrder[ordered++] = t;
    }
  }
  if (!options.explain) return { matchSuggestions, unmatchedTickets, ticketOrder };

  const unitReasons = explainUnmatched(gameMode, tickets, model, found, settings, scratch.balancer, arrays);
  const unmatchedReasons = reasonsInOrder(unitReasons, model, ticketOrder, unmatchedTickets.length, arrays);
  return { matchSuggestions, unmatchedTickets, ticketOrder, unmatchedReasons };
}

/** The game mode with its defaults applied. */
function searchSettings(
  gameMode: MatchGameMode,
  model: QueueModel,
  now: number,
  arrays: ArrayArena,
): SearchSettings {
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
  return {
    teams: gameMode.numTeams,
    perTeam: gameMode.numPlayersPerTeam,
    now,
    targetWaitingTime: target,
    maxWaitingTime: maxWait,
    tolerance,
  };
}

/** Where the tickets of the matches go: `matched[t]` is set, and `ticketOrder` lists them from 0. */
interface Placement {
  matched: Uint8Array;
  ticketOrder: Int32Array;
}

/** The wire suggestion of each match found: ids, teams of the very ticket objects, server, score. */
function suggestMatches(
  found: FoundMatches,
  model: QueueModel,
  tickets: readonly MatchTicket[],
  settings: SearchSettings,
  idSeed: string,
  placement: Placement,
  arrays: ArrayArena,
): MatchSuggestion[] {
  const { teams, perTeam } = settings;
  const matchCount = found.count;
  const matchSuggestions = new Array<MatchSuggestion>(matchCount);
  if (matchCount === 0) return matchSuggestions;
  const ids = generateMatchIds(idSeed, matchCount, teams);
  const chooser = new ServerChooser(model);
  const byTeam = new MatchTeams(found, model, tickets, settings, placement, arrays);
  let idAt = 0;
  let ordered = 0;
  for (let m = 0; m < matchCount; m++) {
    const matchTeams = new Array<MatchedTeam>(teams);
    const matchId = ids[idAt++]!;
    // Every team of a match has exactly perTeam tickets, so its array is allocated at that size
    // (grown from [], each had a 17-slot store: a quarter of what findMatches allocated).
    for (let t = 0; t < teams; t++) matchTeams[t] = { id: ids[idAt++]!, tickets: new Array(perTeam) };
    const count = byTeam.fill(m, matchTeams);
    ordered = byTeam.list(m, ordered);
    const from = found.unitStart[m]!;
    const server = chooser.choose(found.units, from, found.unitStart[m + 1]!, byTeam.matchTickets, count);
    matchSuggestions[m] = {
      id: matchId,
      server: model.serverNames[server]!,
      matchScore: found.score[m]!,
      teams: matchTeams,
    };
  }
  return matchSuggestions;
}

/** Puts the tickets of each match found into its teams, and into the answer's order. */
class MatchTeams {
  /** The tickets of the match last filled, for the server choice. */
  readonly matchTickets: Int32Array;
  /** Tickets put into each team of the match so far. */
  private readonly teamFill: Int32Array;

  constructor(
    private readonly found: FoundMatches,
    private readonly model: QueueModel,
    private readonly tickets: readonly MatchTicket[],
    private readonly settings: SearchSettings,
    private readonly placement: Placement,
    arrays: ArrayArena,
  ) {
    this.matchTickets = arrays.int32(settings.teams * settings.perTeam);
    this.teamFill = arrays.int32(settings.teams);
  }

  /**
   * Fills match m's teams (in the order of its units), marks its tickets matched and lists them in
   * `matchTickets`; returns how many there are.
   */
  fill(m: number, matchTeams: MatchedTeam[]): number {
    const { units, unitTeam, unitStart } = this.found;
    const { unitMemberStart, unitMembers } = this.model;
    const { teamFill, matchTickets, tickets } = this;
    const { matched } = this.placement;
    const { teams, perTeam } = this.settings;
    teamFill.fill(0, 0, teams);
    let count = 0;
    for (let i = unitStart[m]!; i < unitStart[m + 1]!; i++) {
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
    return count;
  }

  /** Lists match m's tickets in `ticketOrder` from `ordered`, team by team; returns where it stopped. */
  list(m: number, ordered: number): number {
    const { units, unitTeam, unitStart } = this.found;
    const { unitMemberStart, unitMembers } = this.model;
    const { ticketOrder } = this.placement;
    const from = unitStart[m]!;
    const to = unitStart[m + 1]!;
    let at = ordered;
    for (let team = 0; team < this.settings.teams; team++) {
      for (let i = from; i < to; i++) {
        if (unitTeam[i] !== team) continue;
        const u = units[i]!;
        for (let k = unitMemberStart[u]!; k < unitMemberStart[u + 1]!; k++)
          ticketOrder[at++] = unitMembers[k]!;
      }
    }
    return at;
  }
}

/** The reason of each unmatched ticket, in answer order (the last `unmatched` of `ticketOrder`). */
function reasonsInOrder(
  unitReasons: (UnmatchedReason | undefined)[],
  model: QueueModel,
  ticketOrder: Int32Array,
  unmatched: number,
  arrays: ArrayArena,
): UnmatchedReason[] {
  const ticketUnit = arrays.int32(model.ticketCount);
  for (let u = 0; u < model.unitCount; u++) {
    for (let k = model.unitMemberStart[u]!; k < model.unitMemberStart[u + 1]!; k++)
      ticketUnit[model.unitMembers[k]!] = u;
  }
  const unmatchedReasons = new Array<UnmatchedReason>(unmatched);
  for (let i = 0, k = ticketOrder.length - unmatched; i < unmatched; i++, k++) {
    unmatchedReasons[i] = unitReasons[ticketUnit[ticketOrder[k]!]!]!;
  }
  return unmatchedReasons;
}
