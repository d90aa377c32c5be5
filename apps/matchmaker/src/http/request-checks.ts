import type { FieldError } from "@arena/contracts";
import { AppError } from "@arena/service-kit";
import type { MatchGameMode, MatchTicket } from "../matching/index.js";

export type Edition = "basic" | "advanced";

export interface RequestLimits {
  maxTickets: number;
  /** How far a joinTimestamp may lie in the future before it is refused (clocks drift). */
  clockSkewSeconds: number;
}

/** A problem answer lists at most this many field errors, so a bad 100k-ticket queue stays small. */
const MAX_REPORTED_ERRORS = 100;

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
 * The rules a schema cannot express (or not cheaply): unique ticket ids, distinct server names, no
 * joins from the future, parties that fit a team, and edition-only features. (A match size below
 * two is already refused by the schema.) Every problem is reported at once.
 */
export function checkMatchmakingRequest(
  gameMode: MatchGameMode,
  tickets: readonly MatchTicket[],
  edition: Edition,
  now: number,
  limits: RequestLimits,
): void {
  const errors: FieldError[] = [];
  const add = (pointer: string, detail: string) => {
    if (errors.length < MAX_REPORTED_ERRORS) errors.push({ pointer, detail });
  };

  if (edition === "basic" && gameMode.maxLatency !== undefined) {
    add("/game_mode/maxLatency", "maxLatency needs the advanced edition: use POST /matchmaking/advanced");
  }

  const firstWithId = firstTicketWithSameId(tickets);
  const partySizes = new Map<string, { size: number; first: number }>();
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
    } else if (edition === "basic") {
      add(
        `/tickets/${i}/servers`,
        "a latency map needs the advanced edition: use POST /matchmaking/advanced",
      );
    }
    if (t.partyId !== undefined) {
      const party = partySizes.get(t.partyId);
      if (party) party.size++;
      else partySizes.set(t.partyId, { size: 1, first: i });
    }
  }
  for (const [partyId, { size, first }] of partySizes) {
    if (size > gameMode.numPlayersPerTeam) {
      add(
        `/tickets/${first}/partyId`,
        `party ${JSON.stringify(partyId)} has ${size} tickets but a team holds only ${gameMode.numPlayersPerTeam}`,
      );
    }
  }
  if (errors.length > 0) throw AppError.validation(errors);
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
 * open-addressing table of indices keyed by a string hash: a Set of 100k strings cost 40 ms, this
 * a few, because it allocates nothing per ticket.
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
