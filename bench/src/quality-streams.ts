/**
 * The arrival streams of the quality benchmark: who joins the queue, when, with which rating, party
 * and servers. Every stream is seeded, so each strategy (and the offline reference) sees the same
 * arrivals. See `matchmaker-quality.ts` for how they are replayed.
 */
import type { MatchTicket } from "@arena/matchmaker/matching";
import { mulberry32, normal } from "./queue-generator.js";

export type RatingShape = "normal" | "bimodal" | "long-tailed";

export interface QualityScenario {
  name: string;
  numTeams: number;
  numPlayersPerTeam: number;
  targetWaitingTime: number;
  maxWaitingTime?: number;
  arrivalsPerSecond: number;
  /** Seconds with arrivals. */
  arrivalSeconds: number;
  /** Seconds stepped afterwards without arrivals; tickets still waiting then count as unmatched. */
  drainSeconds: number;
  ratings: RatingShape;
  /** Servers in the region, and how many of them each arrival can use (inclusive range). */
  servers: { count: number; perTicket: [number, number] };
  /** Latency maps (10–150 ms per server) filtered by this `maxLatency`, instead of server lists. */
  maxLatency?: number;
  /** Share of arrivals that come as a party of 2 or 3 (never larger than a team). */
  partyShare?: number;
  /** One of issue 26's target scenarios (the targets are checked on these). */
  target: boolean;
  seed: number;
}

/** One arrival, with what the offline reference needs precomputed. */
export interface Arrival {
  ticket: MatchTicket;
  /** Index of the unit (party or single ticket) it belongs to. */
  unit: number;
}

export interface Stream {
  tickets: MatchTicket[];
  /** Unit of each ticket (a party's members share one). */
  ticketUnit: Int32Array;
  /** Per unit: its tickets, join time, usable-server bitmask (after maxLatency). */
  units: { tickets: number[]; join: number; mask: number }[];
}

export const START = 1_700_000_000;

function poisson(rand: () => number, mean: number): number {
  // Knuth's method loses precision for large means; split them (a sum of Poissons is Poisson).
  if (mean > 30) return poisson(rand, mean / 2) + poisson(rand, mean / 2);
  const limit = Math.exp(-mean);
  let k = 0;
  let p = rand();
  while (p > limit) {
    k++;
    p *= rand();
  }
  return k;
}

function rating(rand: () => number, shape: RatingShape): number {
  if (shape === "bimodal") return Math.round(normal(rand, rand() < 0.5 ? 1150 : 1850, 160));
  // Log-normal: most players near 1300, a long tail of strong ones up to 3000 and beyond.
  if (shape === "long-tailed") return Math.round(900 + Math.exp(normal(rand, Math.log(450), 0.55)));
  return Math.round(normal(rand, 1500, 300));
}

function partySize(rand: () => number, scenario: QualityScenario): number {
  if (!scenario.partyShare || rand() >= scenario.partyShare) return 1;
  const largest = Math.min(3, scenario.numPlayersPerTeam);
  return largest < 2 ? 1 : 2 + Math.floor(rand() * (largest - 1));
}

/** Server names the arrival can use: a list in preference order, or a latency map. */
function servers(rand: () => number, scenario: QualityScenario): MatchTicket["servers"] {
  const { count, perTicket } = scenario.servers;
  const wanted = perTicket[0] + Math.floor(rand() * (perTicket[1] - perTicket[0] + 1));
  const pool = Array.from({ length: count }, (_, i) => `server-${i + 1}`);
  const chosen: string[] = [];
  for (let k = 0; k < wanted && pool.length > 0; k++)
    chosen.push(pool.splice(Math.floor(rand() * pool.length), 1)[0]!);
  if (scenario.maxLatency === undefined) return chosen;
  const map: Record<string, number> = {};
  for (const s of chosen) map[s] = 10 + Math.floor(rand() * 141);
  return map;
}

/** The servers a ticket can be placed on, as a bitmask over `server-1…`. */
export function usableMask(ticket: MatchTicket, maxLatency: number | undefined): number {
  let mask = 0;
  const list = ticket.servers;
  if (Array.isArray(list)) {
    for (const s of list) mask |= 1 << (Number(s.slice(7)) - 1);
    return mask;
  }
  for (const [s, ms] of Object.entries(list as Record<string, number>)) {
    if (maxLatency === undefined || ms <= maxLatency) mask |= 1 << (Number(s.slice(7)) - 1);
  }
  return mask;
}

/** The arrivals of a scenario: the same for every strategy. */
export function generateStream(scenario: QualityScenario): Stream {
  const rand = mulberry32(scenario.seed);
  const tickets: MatchTicket[] = [];
  const ticketUnit: number[] = [];
  const units: Stream["units"] = [];
  for (let second = 0; second < scenario.arrivalSeconds; second++) {
    const count = poisson(rand, scenario.arrivalsPerSecond);
    for (let i = 0; i < count; i++) {
      const size = partySize(rand, scenario);
      const unitServers = servers(rand, scenario);
      const center = rating(rand, scenario.ratings);
      const unit = units.length;
      const members: number[] = [];
      for (let m = 0; m < size; m++) {
        const ticket: MatchTicket = {
          ticketId: `ticket-${tickets.length}`,
          joinTimestamp: START + second,
          // Party members are close in rating, not equal.
          rating: size === 1 ? center : Math.round(center + normal(rand, 0, 80)),
          servers: unitServers,
          ...(size > 1 ? { partyId: `party-${unit}` } : {}),
        };
        members.push(tickets.length);
        tickets.push(ticket);
        ticketUnit.push(unit);
      }
      units.push({
        tickets: members,
        join: START + second,
        mask: usableMask(tickets[members[0]!]!, scenario.maxLatency),
      });
    }
  }
  return { tickets, ticketUnit: Int32Array.from(ticketUnit), units };
}
