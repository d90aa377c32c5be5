import { displayRating } from "../ratings/display-scale.js";
import { nextRankingPoints } from "../ratings/ranking-points.js";
import { type Outcome, type Rating, rateMatch } from "../ratings/rating-model.js";

/**
 * The rating step of a match completion, pure: each player's rating and this season's standing in
 * the game before the match in; new ratings, ranking points, counts and the deltas out. No I/O:
 * `MatchCompletion` reads the inputs under lock and writes what this answers.
 */

/** A player's standing in this game this season, when it has played it this season. */
export interface SeasonStanding {
  points: number;
  /** When the points last changed (ties on the leaderboard go to who reached them first). */
  pointsChangedAt: Date | null;
  wins: number;
  losses: number;
  draws: number;
  matches: number;
}

export interface CompletingPlayer {
  playerId: string;
  score: number;
  /** The rating the match is rated from (carried over from an earlier season where it applies). */
  rating: Rating;
  standing?: SeasonStanding;
}

export interface CompletingTeam {
  /** 0 is the best place; equal ranks are a tie. */
  rank: number;
  players: readonly CompletingPlayer[];
}

export interface RatedPlayer {
  playerId: string;
  teamIndex: number;
  teamRank: number;
  score: number;
  outcome: Outcome;
  predictedWin: number;
  before: Rating;
  after: Rating;
  pointsBefore: number;
  pointsAfter: number;
  pointsChangedAt: Date;
  /** The displayed rating's change, rounded once to the display scale's 2 decimals. */
  ratingDelta: number;
  rankingDelta: number;
  wins: number;
  losses: number;
  draws: number;
  matches: number;
}

/** Rates one completed match at `now`; players come back in the order of the teams given. */
export function rateCompletion(teams: readonly CompletingTeam[], now: Date): RatedPlayer[] {
  const results = rateMatch(teams.map((t) => ({ rank: t.rank, players: t.players.map((p) => p.rating) })));
  return teams.flatMap((team, teamIndex) => {
    const result = results[teamIndex]!;
    return team.players.map((player, i): RatedPlayer => {
      const standing = player.standing;
      const pointsBefore = standing?.points ?? 0;
      const pointsAfter = nextRankingPoints({
        current: pointsBefore,
        outcome: result.outcome,
        predictedWin: result.predictedWin,
        numTeams: teams.length,
        placeBehind: result.placeBehind,
      });
      const after = result.players[i]!;
      return {
        playerId: player.playerId,
        teamIndex,
        teamRank: team.rank,
        score: player.score,
        outcome: result.outcome,
        predictedWin: result.predictedWin,
        before: player.rating,
        after,
        pointsBefore,
        pointsAfter,
        // A result that leaves the points unchanged keeps the time they were reached.
        pointsChangedAt:
          standing?.pointsChangedAt && pointsAfter === pointsBefore ? standing.pointsChangedAt : now,
        ratingDelta: roundToDisplay(displayRating(after) - displayRating(player.rating)),
        rankingDelta: pointsAfter - pointsBefore,
        ...countsAfter(standing, result.outcome),
      };
    });
  });
}

/** The season's counts in this game with this result added. */
function countsAfter(standing: SeasonStanding | undefined, outcome: Outcome) {
  return {
    wins: (standing?.wins ?? 0) + (outcome === "win" ? 1 : 0),
    losses: (standing?.losses ?? 0) + (outcome === "loss" ? 1 : 0),
    draws: (standing?.draws ?? 0) + (outcome === "draw" ? 1 : 0),
    matches: (standing?.matches ?? 0) + 1,
  };
}

/** Two decimals, the display scale's precision (displayed ratings are already rounded to it). */
function roundToDisplay(x: number): number {
  return Math.round(x * 100) / 100;
}
