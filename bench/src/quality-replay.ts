/**
 * Replays a stream second by second through a strategy (the whole waiting queue and `now` each
 * second, matched tickets leave), and measures what players feel. Shared by the online strategies
 * and the offline reference, which are scored by the same `qualityFigures`.
 */
import { findMatches, type MatchGameMode, type MatchTicket, SearchScratch } from "@arena/matchmaker/matching";
import { type QualityScenario, START, type Stream, usableMask } from "./quality-streams.js";

/** A strategy gets the waiting tickets and the time, and returns the matches it forms (teams of tickets). */
export type Strategy = (gameMode: MatchGameMode, waiting: MatchTicket[], now: number) => MatchTicket[][][];

/** A match as ticket indices of the stream, team by team, and the second it was formed. */
export interface FormedMatch {
  teams: number[][];
  at: number;
}

export interface QualityFigures {
  matches: number;
  /** Mean over matches of max − min ticket rating. */
  spread: number;
  /** Mean over matches of max − min team mean rating. */
  imbalance: number;
  /** Mean over matches of the stronger team's Elo expected score, 1 / (1 + 10^(−imbalance/400)). */
  favourite: number;
  /** Waits (seconds) of matched tickets. */
  meanWait: number;
  p95Wait: number;
  maxWait: number;
  /** Matched tickets / arrivals. */
  shareMatched: number;
}

export function gameModeOf(scenario: QualityScenario): MatchGameMode {
  return {
    numTeams: scenario.numTeams,
    numPlayersPerTeam: scenario.numPlayersPerTeam,
    targetWaitingTime: scenario.targetWaitingTime,
    ...(scenario.maxWaitingTime === undefined ? {} : { maxWaitingTime: scenario.maxWaitingTime }),
    ...(scenario.maxLatency === undefined ? {} : { maxLatency: scenario.maxLatency }),
  };
}

/** The matchmaker itself, in process (the speed benchmark measures it over HTTP). */
export function arenaStrategy(): Strategy {
  const scratch = new SearchScratch();
  return (gameMode, waiting, now) =>
    findMatches(gameMode, waiting, { now, idSeed: "quality", scratch }).matchSuggestions.map((m) =>
      m.teams.map((t) => t.tickets),
    );
}

export function replay(scenario: QualityScenario, stream: Stream, strategy: Strategy): FormedMatch[] {
  const gameMode = gameModeOf(scenario);
  const index = new Map<MatchTicket, number>();
  for (let i = 0; i < stream.tickets.length; i++) index.set(stream.tickets[i]!, i);
  let next = 0;
  let waiting: MatchTicket[] = [];
  const formed: FormedMatch[] = [];
  for (let second = 0; second < scenario.arrivalSeconds + scenario.drainSeconds; second++) {
    const now = START + second;
    while (next < stream.tickets.length && stream.tickets[next]!.joinTimestamp <= now)
      waiting.push(stream.tickets[next++]!);
    const matches = strategy(gameMode, waiting, now);
    if (matches.length === 0) continue;
    const matched = new Set<MatchTicket>();
    for (const teams of matches) {
      formed.push({ teams: teams.map((team) => team.map((t) => index.get(t)!)), at: now });
      for (const team of teams) for (const t of team) matched.add(t);
    }
    waiting = waiting.filter((t) => !matched.has(t));
  }
  return formed;
}

export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

export function favouriteScore(imbalance: number): number {
  return 1 / (1 + 10 ** (-imbalance / 400));
}

/** Spread and imbalance of one match (ticket indices by team). */
export function matchShape(ratings: ArrayLike<number>, teams: number[][]): [number, number] {
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  let loMean = Number.POSITIVE_INFINITY;
  let hiMean = Number.NEGATIVE_INFINITY;
  for (const team of teams) {
    let sum = 0;
    for (const t of team) {
      const r = ratings[t]!;
      sum += r;
      if (r < lo) lo = r;
      if (r > hi) hi = r;
    }
    const mean = sum / team.length;
    if (mean < loMean) loMean = mean;
    if (mean > hiMean) hiMean = mean;
  }
  const balanced = teams.length >= 2 && teams[0]!.length >= 2;
  return [hi - lo, balanced ? hiMean - loMean : 0];
}

export function qualityFigures(stream: Stream, matches: FormedMatch[]): QualityFigures {
  const ratings = stream.tickets.map((t) => t.rating);
  const waits: number[] = [];
  let spread = 0;
  let imbalance = 0;
  let favourite = 0;
  for (const m of matches) {
    const [s, i] = matchShape(ratings, m.teams);
    spread += s;
    imbalance += i;
    favourite += favouriteScore(i);
    for (const team of m.teams) for (const t of team) waits.push(m.at - stream.tickets[t]!.joinTimestamp);
  }
  waits.sort((a, b) => a - b);
  const n = matches.length;
  return {
    matches: n,
    spread: n === 0 ? 0 : spread / n,
    imbalance: n === 0 ? 0 : imbalance / n,
    favourite: n === 0 ? 0.5 : favourite / n,
    meanWait: waits.length === 0 ? 0 : waits.reduce((s, w) => s + w, 0) / waits.length,
    p95Wait: percentile(waits, 0.95),
    maxWait: waits.length === 0 ? 0 : waits[waits.length - 1]!,
    shareMatched: stream.tickets.length === 0 ? 0 : waits.length / stream.tickets.length,
  };
}

/** Each figure's mean over several streams. */
export function meanFigures(figures: readonly QualityFigures[]): QualityFigures {
  const mean = (pick: (f: QualityFigures) => number) =>
    figures.reduce((s, f) => s + pick(f), 0) / figures.length;
  return {
    matches: mean((f) => f.matches),
    spread: mean((f) => f.spread),
    imbalance: mean((f) => f.imbalance),
    favourite: mean((f) => f.favourite),
    meanWait: mean((f) => f.meanWait),
    p95Wait: mean((f) => f.p95Wait),
    maxWait: mean((f) => f.maxWait),
    shareMatched: mean((f) => f.shareMatched),
  };
}

/**
 * Baseline: takes units (parties together) in `order`; each free unit seeds a match filled with the
 * next units that share a usable server with it and fit a team (first fit).
 */
function chunkUnits(gameMode: MatchGameMode, order: MatchTicket[][]): MatchTicket[][][] {
  const { numTeams, numPlayersPerTeam } = gameMode;
  const used = new Set<number>();
  const matches: MatchTicket[][][] = [];
  for (let i = 0; i < order.length; i++) {
    if (used.has(i)) continue;
    const teams: MatchTicket[][] = Array.from({ length: numTeams }, () => []);
    const taken: number[] = [];
    let mask = -1;
    for (let j = i; j < order.length && taken.length < numTeams * numPlayersPerTeam; j++) {
      const unit = order[j]!;
      const shared = mask & usableMask(unit[0]!, gameMode.maxLatency);
      if (used.has(j) || shared === 0) continue;
      const team = teams.find((t) => t.length + unit.length <= numPlayersPerTeam);
      if (team === undefined) continue;
      team.push(...unit);
      taken.push(j);
      mask = shared;
    }
    if (teams.some((t) => t.length < numPlayersPerTeam)) continue;
    for (const j of taken) used.add(j);
    matches.push(teams);
  }
  return matches;
}

function unitsOf(waiting: MatchTicket[]): MatchTicket[][] {
  const byParty = new Map<string, MatchTicket[]>();
  const units: MatchTicket[][] = [];
  for (const t of waiting) {
    if (!t.partyId) units.push([t]);
    else if (byParty.has(t.partyId)) byParty.get(t.partyId)!.push(t);
    else {
      const unit = [t];
      byParty.set(t.partyId, unit);
      units.push(unit);
    }
  }
  return units;
}

export const firstComeFirstServed: Strategy = (gameMode, waiting) =>
  chunkUnits(
    gameMode,
    unitsOf(waiting).sort((a, b) => a[0]!.joinTimestamp - b[0]!.joinTimestamp),
  );

export const sortByRatingImmediately: Strategy = (gameMode, waiting) =>
  chunkUnits(
    gameMode,
    unitsOf(waiting).sort((a, b) => a[0]!.rating - b[0]!.rating),
  );
