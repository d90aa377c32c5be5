/**
 * Start-up warm-up: a few synthetic queues sent to the app itself over HTTP before `/readyz` turns
 * 200, so V8 has compiled the hot paths when the first real request arrives and a freshly
 * scaled-out instance serves at full speed (its first requests once took five times the steady time).
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { once } from "node:events";
import { Agent, request } from "node:http";
import type { AddressInfo } from "node:net";
import type { ReadinessCheck } from "@arena/service-kit";
import type { Express, Request } from "express";
import type { Endpoint } from "./http/request-checks.js";

/**
 * The warm-up queues: everyday modes, with and without parties, latency maps and explain, and the
 * request shapes clients send (with and without `now`, `explain` absent or given). V8 compiles the
 * validators for the object shapes it has seen: a first real request of a shape the warm-up never
 * sent (no `explain` key) deoptimised them and took twice the steady time.
 */
const WARM_UP_ROUNDS: Array<{
  endpoint: Endpoint;
  teams: number;
  perTeam: number;
  parties: boolean;
  maps: boolean;
  /** Sent as the `explain` member when given; absent otherwise. */
  explain?: boolean;
  /** Whether the body carries `now` (a replayed queue) or leaves the clock to the matchmaker. */
  now: boolean;
}> = [
  { endpoint: "basic", teams: 2, perTeam: 2, parties: false, maps: false, now: false },
  { endpoint: "advanced", teams: 2, perTeam: 5, parties: true, maps: true, now: false },
  { endpoint: "basic", teams: 2, perTeam: 2, parties: false, maps: false, explain: true, now: true },
  // The everyday requests last, so what V8 has optimised when /readyz turns 200 is their code.
  { endpoint: "basic", teams: 2, perTeam: 5, parties: false, maps: false, now: true },
  { endpoint: "basic", teams: 2, perTeam: 2, parties: false, maps: false, explain: false, now: true },
];
/**
 * Each round runs this many times; V8 optimises a function after a few calls with long loops, and
 * keeps re-optimising for a while after. With 4, the first two real requests still took 1.15–1.26×
 * the steady time (median of six fresh starts per mode); with 8 the first took 1.02–1.06×, for about
 * one more second before `/readyz` turns 200 (see "First request" in `pnpm bench`).
 */
const REPEATS = 8;
/**
 * Every round is first sent once with this many tickets. V8 may optimise a function inside a long
 * loop of its first call (on-stack replacement), before the code after the loop has ever run; that
 * code then has no type feedback, and the optimised code deoptimised there on every later request
 * (seen with --trace-deopt in `writeAnswer` and in the request validator, in some starts and not
 * others). Small queues run every function to its end in the interpreter first.
 */
const FIRST_SIZE = 16;
/** Tickets per warm-up queue unless told otherwise (the default of `WARM_UP_TICKETS`). */
export const DEFAULT_WARM_UP_TICKETS = 10_000;
const NOW = 1_700_000_000;

/**
 * A seeded queue, as a client would send it (deterministic, so every start warms the same code).
 * Its values look like real ones on purpose: V8 specialises code on what it has seen, and integer
 * ratings alone (small integers in V8) made the first real queue, with fractional ratings, undo it.
 */
export function syntheticQueue(
  round: (typeof WARM_UP_ROUNDS)[number],
  seed: number,
  size: number = DEFAULT_WARM_UP_TICKETS,
): string {
  let state = seed >>> 0;
  const random = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
  const servers = Array.from({ length: 10 }, (_, i) => `warm-server-${i + 1}`);
  const tickets = Array.from({ length: size }, (_, i) => {
    const pool = [...servers];
    const mine = Array.from(
      { length: 3 + (i % 3) },
      () => pool.splice(Math.floor(random() * pool.length), 1)[0]!,
    );
    const rating = 1500 + 300 * (random() + random() + random() - 1.5);
    return {
      ticketId: `warm-${seed}-${i}`,
      joinTimestamp: NOW - Math.floor(random() * 60),
      // Mostly fractional ratings, some whole ones, as clients send both.
      rating: i % 4 === 0 ? Math.round(rating) : Math.round(rating * 10) / 10,
      servers: round.maps ? Object.fromEntries(mine.map((s) => [s, Math.floor(random() * 120)])) : mine,
      ...(round.parties && i % 10 < 2 ? { partyId: `party-${Math.floor(i / 2)}` } : {}),
    };
  });
  return JSON.stringify({
    game_mode: { numTeams: round.teams, numPlayersPerTeam: round.perTeam },
    tickets,
    ...(round.now ? { now: NOW } : {}),
    ...(round.explain === undefined ? {} : { explain: round.explain }),
  });
}

export interface WarmUp {
  /** Resolves once every warm-up queue went through (warm-up failures are logged, never fatal). */
  done: Promise<void>;
  readiness: ReadinessCheck;
  /** True for a request of the warm-up itself (a per-process secret header, valid until it ends). */
  isWarmUpRequest(req: Request): boolean;
}

const WARM_UP_HEADER = "x-arena-warm-up";

/** How much the warm-up sends; production uses the defaults, tests a little. */
export interface WarmUpSize {
  /** Times each round's queue is sent (REPEATS). */
  repeats?: number;
  /** Tickets per queue (DEFAULT_WARM_UP_TICKETS). */
  tickets?: number;
}

/**
 * Sends the warm-up queues over a loopback connection to `app` (on a server of its own, port 0),
 * so everything a request touches is compiled: the HTTP server, body reading, JSON parsing, the
 * pipeline, the answer and its sending. (Through the pipeline alone, the first real request still
 * took twice the steady time.) Its requests carry a random secret that lets them past the license
 * check and out of the metrics; the secret dies with the warm-up.
 */
export function startWarmUp(
  app: Express,
  onError: (err: unknown) => void,
  { repeats = REPEATS, tickets = DEFAULT_WARM_UP_TICKETS }: WarmUpSize = {},
): WarmUp {
  let secret: string | undefined = randomBytes(24).toString("hex");
  let finished = false;
  const done = (async () => {
    const server = app.listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as AddressInfo;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    // A failed warm-up request is reported and the warm-up goes on.
    const send = (round: (typeof WARM_UP_ROUNDS)[number], body: Buffer) =>
      post(agent, port, `/matchmaking/${round.endpoint}`, body, secret!).catch(onError);
    const bytes = (queue: string) => Buffer.from(queue, "latin1");
    try {
      for (const round of WARM_UP_ROUNDS) await send(round, bytes(syntheticQueue(round, 0, FIRST_SIZE)));
      let seed = 1;
      for (const round of WARM_UP_ROUNDS) {
        const body = bytes(syntheticQueue(round, seed++, tickets));
        for (let i = 0; i < repeats; i++) await send(round, body);
      }
    } finally {
      agent.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  })()
    .catch(onError)
    .finally(() => {
      secret = undefined;
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
    isWarmUpRequest(req) {
      const given = req.get(WARM_UP_HEADER);
      return (
        secret !== undefined &&
        given !== undefined &&
        given.length === secret.length &&
        timingSafeEqual(Buffer.from(given), Buffer.from(secret))
      );
    },
  };
}

function post(agent: Agent, port: number, path: string, body: Buffer, secret: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: "POST",
        agent,
        headers: {
          "content-type": "application/json",
          "content-length": body.length,
          [WARM_UP_HEADER]: secret,
        },
      },
      (res) => {
        res.resume();
        res.on("end", () =>
          res.statusCode === 200
            ? resolve()
            : reject(new Error(`warm-up request answered ${res.statusCode}`)),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
