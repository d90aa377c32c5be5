/**
 * The quality benchmark's scenarios. The first four are issue 26's targets (its stream: about 3
 * arrivals a second, ratings N(1500, 300), each player on 1–3 of 4 servers, the whole queue sent
 * every second); the rest vary one thing each, so no rule is tuned to one stream: arrival rates from
 * 0.5 to 20 a second, bimodal and long-tailed ratings, parties of 2–3, 1 and 10 servers, latency maps
 * with `maxLatency`.
 */
import type { QualityScenario } from "./quality-streams.js";

const ISSUE_STREAM = {
  numTeams: 2,
  numPlayersPerTeam: 2,
  targetWaitingTime: 20,
  arrivalsPerSecond: 3,
  arrivalSeconds: 600,
  drainSeconds: 60,
  ratings: "normal",
  servers: { count: 4, perTicket: [1, 3] },
  target: false,
  seed: 26,
} satisfies Omit<QualityScenario, "name">;

export const QUALITY_SCENARIOS: QualityScenario[] = [
  { ...ISSUE_STREAM, name: "2v2, 3/s, T = 10", targetWaitingTime: 10, target: true },
  { ...ISSUE_STREAM, name: "2v2, 3/s, T = 20", target: true },
  { ...ISSUE_STREAM, name: "2v2, 3/s, T = 40", targetWaitingTime: 40, target: true },
  { ...ISSUE_STREAM, name: "5v5, 3/s, T = 20", numPlayersPerTeam: 5, target: true },
  { ...ISSUE_STREAM, name: "2v2, 0.5/s", arrivalsPerSecond: 0.5, arrivalSeconds: 1800, seed: 27 },
  { ...ISSUE_STREAM, name: "2v2, 20/s", arrivalsPerSecond: 20, arrivalSeconds: 300, seed: 28 },
  { ...ISSUE_STREAM, name: "2v2, 3/s, bimodal ratings", ratings: "bimodal", seed: 29 },
  { ...ISSUE_STREAM, name: "2v2, 3/s, long-tailed ratings", ratings: "long-tailed", seed: 30 },
  {
    ...ISSUE_STREAM,
    name: "3v3, 4/s, a third in parties of 2–3",
    numPlayersPerTeam: 3,
    arrivalsPerSecond: 4,
    partyShare: 0.35,
    seed: 31,
  },
  { ...ISSUE_STREAM, name: "2v2, 3/s, 1 server", servers: { count: 1, perTicket: [1, 1] }, seed: 32 },
  {
    ...ISSUE_STREAM,
    name: "5v5, 5/s, 3–5 of 10 servers",
    numPlayersPerTeam: 5,
    arrivalsPerSecond: 5,
    servers: { count: 10, perTicket: [3, 5] },
    seed: 33,
  },
  {
    ...ISSUE_STREAM,
    name: "2v2, 3/s, latency maps, maxLatency 80 ms",
    servers: { count: 6, perTicket: [2, 4] },
    maxLatency: 80,
    seed: 34,
  },
  { ...ISSUE_STREAM, name: "2v2, 3/s, T = 20, maxWaitingTime 30", maxWaitingTime: 30, seed: 35 },
];

/**
 * Seeds each target scenario is replayed on to judge issue 26's targets: its own seed and the next
 * ones 100 apart (`seed + 100 · k`). One stream decides its maximum wait and its share matched by a
 * handful of tickets (the last arrivals, which a stream that stops leaves with too few others to form
 * a match), so the targets are judged on means over many streams.
 */
export const TARGET_SEEDS = 20;
/** Of those, the first ones the offline reference is annealed on (about 2 s of CPU each). */
export const REFERENCE_SEEDS = 10;

/**
 * The target scenarios' waits with the algorithm before issue 26, as means over the `TARGET_SEEDS`
 * streams of each (measured with this benchmark's streams and figures, replaying `findMatches` of
 * commit c5069e3): the issue asks for fairer matches at waits no worse than these. On the first
 * seed alone they were 3.6 / 10 / 13 s and 99.72 % (T = 10), 5.157 / 17 / 20 s and 99.94 % (T = 20),
 * 6.617 / 23 / 40 s and 99.94 % (T = 40), 7.387 / 20 / 32 s and 99.61 % (5v5).
 */
export const WAITS_BEFORE_ISSUE_26: Record<
  string,
  { meanWait: number; p95Wait: number; maxWait: number; shareMatched: number }
> = {
  "2v2, 3/s, T = 10": { meanWait: 3.627, p95Wait: 10, maxWait: 13.65, shareMatched: 0.99788 },
  "2v2, 3/s, T = 20": { meanWait: 5.012, p95Wait: 16.7, maxWait: 21, shareMatched: 0.99799 },
  "2v2, 3/s, T = 40": { meanWait: 6.363, p95Wait: 22.45, maxWait: 40.25, shareMatched: 0.99823 },
  "5v5, 3/s, T = 20": { meanWait: 7.389, p95Wait: 20, maxWait: 31.1, shareMatched: 0.99391 },
};
