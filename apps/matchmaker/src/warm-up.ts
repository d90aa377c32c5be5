/**
 * Start-up warm-up: a few synthetic queues through the real matchmaking pipeline (validation,
 * checks, search, span scan on its worker, answer writer) before `/readyz` turns 200, so V8 has
 * compiled the hot paths when the first real request arrives and a freshly scaled-out instance
 * serves at full speed (its first requests once took about twice the steady time).
 */
import type { ReadinessCheck } from "@arena/service-kit";
import type { MatchmakingPipeline } from "./http/matchmaking-routes.js";
import type { Endpoint } from "./http/request-checks.js";

/** The warm-up queues: everyday modes, with and without parties, latency maps and explain. */
const WARM_UP_ROUNDS: Array<{
  endpoint: Endpoint;
  teams: number;
  perTeam: number;
  parties: boolean;
  maps: boolean;
  explain: boolean;
}> = [
  { endpoint: "basic", teams: 2, perTeam: 2, parties: false, maps: false, explain: false },
  { endpoint: "basic", teams: 2, perTeam: 5, parties: false, maps: false, explain: false },
  { endpoint: "advanced", teams: 2, perTeam: 5, parties: true, maps: true, explain: false },
  { endpoint: "basic", teams: 2, perTeam: 2, parties: false, maps: false, explain: true },
];
/** Each round runs this many times; V8 optimises a function after a few calls with long loops. */
const REPEATS = 3;
const TICKETS = 10_000;
const NOW = 1_700_000_000;

/** A seeded queue, as a client would send it (deterministic, so every start warms the same code). */
export function syntheticQueue(round: (typeof WARM_UP_ROUNDS)[number], seed: number): string {
  let state = seed >>> 0;
  const random = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
  const servers = ["eu-1", "eu-2", "us-1", "us-2", "asia-1"];
  const tickets = Array.from({ length: TICKETS }, (_, i) => {
    const mine = servers.filter(() => random() < 0.6);
    if (mine.length === 0) mine.push(servers[i % servers.length]!);
    return {
      ticketId: `warm-${i}`,
      joinTimestamp: NOW - Math.floor(random() * 40),
      rating: Math.round(1500 + 300 * (random() + random() + random() - 1.5)),
      servers: round.maps ? Object.fromEntries(mine.map((s) => [s, Math.floor(random() * 120)])) : mine,
      ...(round.parties && i % 10 < 2 ? { partyId: `party-${Math.floor(i / 2)}` } : {}),
    };
  });
  return JSON.stringify({
    game_mode: { numTeams: round.teams, numPlayersPerTeam: round.perTeam },
    tickets,
    now: NOW,
    explain: round.explain,
  });
}

export interface WarmUp {
  /** Resolves once every warm-up queue went through (warm-up failures are logged, never fatal). */
  done: Promise<void>;
  readiness: ReadinessCheck;
}

export function startWarmUp(pipeline: MatchmakingPipeline, onError: (err: unknown) => void): WarmUp {
  let finished = false;
  const done = (async () => {
    let seed = 1;
    for (const round of WARM_UP_ROUNDS) {
      const text = syntheticQueue(round, seed++);
      for (let i = 0; i < REPEATS; i++) {
        // Yield between requests so /livez and /readyz keep answering while warming.
        await new Promise((resolve) => setImmediate(resolve));
        const bytes = Buffer.from(text, "latin1");
        try {
          await pipeline.run(round.endpoint, { bytes, asciiText: text }, JSON.parse(text), undefined);
        } catch (err) {
          onError(err);
        }
      }
    }
  })().finally(() => {
    finished = true;
  });
  return {
    done,
    readiness: {
      name: "warm-up",
      check() {
        if (!finished) throw new Error("warming up the matchmaking code");
      },
    },
  };
}
