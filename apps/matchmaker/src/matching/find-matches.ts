import { generateMatchIds } from "./match-ids.js";
import { DEFAULT_TARGET_WAITING_TIME, defaultRatingTolerance } from "./match-quality.js";
import { searchMatches } from "./match-search.js";
import { buildQueueModel } from "./queue-model.js";
import { ServerChooser } from "./server-choice.js";
import type {
  MatchedTeam,
  MatchGameMode,
  MatchOptions,
  MatchResult,
  MatchSuggestion,
  MatchTicket,
} from "./types.js";

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
  const model = buildQueueModel(gameMode, tickets);
  const tolerance =
    typeof gameMode.ratingTolerance === "number" &&
    gameMode.ratingTolerance > 0 &&
    Number.isFinite(gameMode.ratingTolerance)
      ? gameMode.ratingTolerance
      : defaultRatingTolerance(model.ratings);
  const target =
    typeof gameMode.targetWaitingTime === "number" && gameMode.targetWaitingTime >= 0
      ? gameMode.targetWaitingTime
      : DEFAULT_TARGET_WAITING_TIME;
  const maxWait =
    typeof gameMode.maxWaitingTime === "number" && gameMode.maxWaitingTime >= 0
      ? gameMode.maxWaitingTime
      : Number.POSITIVE_INFINITY;

  const found =
    teams >= 1 && perTeam >= 1
      ? searchMatches(model, {
          teams,
          perTeam,
          now: options.now,
          targetWaitingTime: target,
          maxWaitingTime: maxWait,
          tolerance,
        })
      : undefined;

  const matched = new Uint8Array(tickets.length);
  const matchSuggestions: MatchSuggestion[] = [];
  if (found !== undefined && found.count > 0) {
    const ids = generateMatchIds(options.idSeed ?? "", found.count, teams, (m) => {
      const firstUnit = found.units[found.unitStart[m]!]!;
      return tickets[model.unitMembers[model.unitMemberStart[firstUnit]!]!]!.ticketId;
    });
    const chooser = new ServerChooser(model);
    const matchTickets = new Int32Array(teams * perTeam);
    for (let m = 0; m < found.count; m++) {
      const teamTickets: MatchTicket[][] = [];
      for (let t = 0; t < teams; t++) teamTickets.push([]);
      let count = 0;
      for (let i = found.unitStart[m]!; i < found.unitStart[m + 1]!; i++) {
        const u = found.units[i]!;
        const team = teamTickets[found.unitTeam[i]!]!;
        for (let k = model.unitMemberStart[u]!; k < model.unitMemberStart[u + 1]!; k++) {
          const t = model.unitMembers[k]!;
          matched[t] = 1;
          matchTickets[count++] = t;
          team.push(tickets[t]!);
        }
      }
      const server = chooser.choose(
        found.units,
        found.unitStart[m]!,
        found.unitStart[m + 1]!,
        matchTickets,
        count,
      );
      const idAt = m * (teams + 1);
      const matchTeams: MatchedTeam[] = teamTickets.map((members, index) => ({
        id: ids[idAt + 1 + index]!,
        tickets: members,
      }));
      matchSuggestions.push({
        id: ids[idAt]!,
        server: model.serverNames[server]!,
        matchScore: found.score[m]!,
        teams: matchTeams,
      });
    }
  }

  const unmatchedTickets: MatchTicket[] = [];
  for (let t = 0; t < tickets.length; t++) if (matched[t] === 0) unmatchedTickets.push(tickets[t]!);
  return { matchSuggestions, unmatchedTickets };
}
