import { AppError } from "@arena/service-kit";
import type { MatchGameMode, MatchTicket } from "../matching/index.js";
import { ErrorList } from "./request-validation.js";

/** Which route was called; the license's edition (community or advanced) is another thing. */
export type Endpoint = "basic" | "advanced";

export interface RequestLimits {
  maxTickets: number;
  /** Largest match (numTeams × numPlayersPerTeam) this matchmaker forms; bounds the work per request. */
  maxMatchPlayers: number;
  /** How far a joinTimestamp may lie in the future before it is refused (clocks drift). */
  clockSkewSeconds: number;
}

/** Refuses oversized queues before any per-ticket work (413, as body size is). */
export function checkTicketLimit(body: unknown, maxTickets: number): void {
  const tickets = (body as { tickets?: unknown } | null)?.tickets;
  if (Array.isArray(tickets) && tickets.length > maxTickets) {
    throw new AppError(
      "TOO_MANY_TICKETS",
      `The request has ${tickets.length} tickets; this matchmaker accepts at most ${maxTickets} per request`,
      {
        extensions: { limit: maxTickets },
        errors: [{ pointer: "/tickets", detail: `must have at most ${maxTickets} items` }],
      },
    );
  }
}

/**
 * Refuses a game mode whose match can never be filled or would cost more than this matchmaker
 * allows, before anything is sized by it (a 2 × 10⁹ mode once made the search allocate per player).
 */
export function checkMatchSize(gameMode: MatchGameMode, limits: RequestLimits): void {
  const players = gameMode.numTeams * gameMode.numPlayersPerTeam;
  if (players <= limits.maxMatchPlayers) return;
  const size = `${gameMode.numTeams} × ${gameMode.numPlayersPerTeam}`;
  const detail =
    players > limits.maxTickets
      ? `a match of ${size} players can never fill: a request holds at most ${limits.maxTickets} tickets`
      : `a match of ${size} players is larger than this matchmaker's limit of ${limits.maxMatchPlayers} (MAX_MATCH_PLAYERS)`;
  throw new AppError("VALIDATION_FAILED", `Invalid request: /game_mode ${detail}`, {
    errors: [{ pointer: "/game_mode", detail }],
    extensions: { limit: limits.maxMatchPlayers },
  });
}

/**
 * The rules a schema cannot express (or not cheaply): unique ticket ids, distinct server names, no
 * joins from the future, and advanced-edition features on the basic endpoint. (A match size below two is already refused by
 * the schema.) Every problem is reported at once. A well-formed ticket that can never be placed (a
 * party larger than a team, one whose members share no server) is no error: it comes back unmatched,
 * so one ticket never blocks a queue.
 */
export function checkMatchmakingRequest(
  gameMode: MatchGameMode,
  tickets: readonly MatchTicket[],
  endpoint: Endpoint,
  now: number,
  limits: RequestLimits,
): void {
  const errors = new ErrorList();
  const add = (pointer: string, detail: string) => errors.add([{ pointer, detail }]);

  if (endpoint === "basic" && gameMode.maxLatency !== undefined) {
    add("/game_mode/maxLatency", "maxLatency needs the advanced edition: use POST /matchmaking/advanced");
  }

  const firstWithId = firstTicketWithSameId(tickets);
  const latestJoin = now + limits.clockSkewSeconds;
  for (let i = 0; i < tickets.length; i++) {
    const t = tickets[i]!;
    const first = firstWithId[i]!;
    if (first !== i) add(`/tickets/${i}/ticketId`, `duplicates the ticketId of /tickets/${first}`);
    if (!Number.isFinite(t.rating)) add(`/tickets/${i}/rating`, "must be a finite number");
    if (t.joinTimestamp > latestJoin) {
      add(`/tickets/${i}/joinTimestamp`, `is in the future (now is ${Math.floor(now)})`);
    }
    const servers = t.servers;
    if (Array.isArray(servers)) {
      const repeated = repeatedServer(servers);
      if (repeated >= 0)
        add(`/tickets/${i}/servers/${repeated}`, "repeats a server named earlier in the list");
    } else if (endpoint === "basic") {
      add(
        `/tickets/${i}/servers`,
        "a latency map needs the advanced edition: use POST /matchmaking/advanced",
      );
    }
  }
  if (errors.size > 0) throw errors.toProblem();
}

/** Index of the first name that repeats an earlier one, or -1. Lists are short: pairs beat a Set. */
function repeatedServer(servers: readonly string[]): number {
  if (servers.length > 16) {
    const seen = new Set<string>();
    for (let i = 0; i < servers.length; i++) {
      if (seen.has(servers[i]!)) return i;
      seen.add(servers[i]!);
    }
    return -1;
  }
  for (let i = 1; i < servers.length; i++) {
    for (let j = 0; j < i; j++) if (servers[i] === servers[j]) return i;
  }
  return -1;
}

/**
 * For each ticket, the index of the first ticket with the same ticketId (itself when unique). An
 * open-addressing table of indices keyed by a string hash, which allocates nothing per ticket: a Set
 * of 100k strings was once the slowest check of a request.
 */
export function firstTicketWithSameId(tickets: readonly { ticketId: string }[]): Int32Array {
  const n = tickets.length;
  let size = 16;
  while (size < 2 * n) size *= 2;
  const mask = size - 1;
  const slots = new Int32Array(size).fill(-1);
  const first = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const id = tickets[i]!.ticketId;
    let h = 0x811c9dc5;
    for (let k = 0; k < id.length; k++) h = Math.imul(h ^ id.charCodeAt(k), 0x01000193);
    let slot = (h ^ (h >>> 15)) & mask;
    for (;;) {
      const j = slots[slot]!;
      if (j < 0) {
        slots[slot] = i;
        first[i] = i;
        break;
      }
      if (tickets[j]!.ticketId === id) {
        first[i] = j;
        break;
      }
      slot = (slot + 1) & mask;
    }
  }
  return first;
}
