import { describe, expect, it } from "@jest/globals";
import { fieldErrorsOf } from "../test/field-errors.js";
import { assertType, type Equal } from "../test/type-equality.js";
import {
  type GameMode,
  isLatencyMap,
  type MatchmakingRequest,
  type MatchmakingResponse,
  type ReturnedTicket,
  type Ticket,
  validateGameMode,
  validateMatchmakingRequest,
  validateMatchmakingRequestFirstError,
  validateMatchmakingResponse,
  validateTicket,
} from "./matchmaking.js";

// Types derived from the schemas are the ones the matchmaker programs against.
assertType<Equal<GameMode["targetWaitingTime"], number | undefined>>();
assertType<Equal<Ticket["servers"], string[] | { [server: string]: number }>>();
assertType<
  Equal<Ticket["exactEqualityConstraints"], { [k: string]: string | number | boolean } | null | undefined>
>();
assertType<Equal<ReturnedTicket["exactEqualityConstraints"], { [k: string]: string | number | boolean }>>();
assertType<Equal<MatchmakingRequest["now"], number | undefined>>();

const basicTicket = {
  ticketId: "ticket-1",
  joinTimestamp: 1_700_000_000,
  rating: 1500,
  servers: ["eu-west-1", "eu-central-1"],
};

describe("GameMode", () => {
  it("accepts the two required fields of Idem's documentation", () => {
    expect(validateGameMode({ numTeams: 2, numPlayersPerTeam: 2 })).toBe(true);
  });

  it("accepts every optional tuning field", () => {
    const mode = {
      numTeams: 4,
      numPlayersPerTeam: 1,
      targetWaitingTime: 30,
      maxWaitingTime: 120,
      maxLatency: 80,
      ratingTolerance: 150,
    };
    expect(validateGameMode(mode)).toBe(true);
  });

  it("ignores options it does not know, so Idem customizations do not break a client", () => {
    expect(validateGameMode({ numTeams: 2, numPlayersPerTeam: 5, someIdemOption: true })).toBe(true);
  });

  it("rejects a team count or team size below 1 and names the field", () => {
    expect(fieldErrorsOf(validateGameMode, { numTeams: 0, numPlayersPerTeam: 2.5 })).toEqual([
      { pointer: "/numTeams", detail: "must be >= 1" },
      { pointer: "/numPlayersPerTeam", detail: "must be integer" },
    ]);
  });

  it("rejects a one-player game because a match needs at least two players", () => {
    expect(fieldErrorsOf(validateGameMode, { numTeams: 1, numPlayersPerTeam: 1 })).toEqual([
      { pointer: "/numPlayersPerTeam", detail: "must be >= 2" },
    ]);
    expect(validateGameMode({ numTeams: 1, numPlayersPerTeam: 4 })).toBe(true);
  });

  it("reports a missing numTeams once, without a misleading team-size error", () => {
    expect(fieldErrorsOf(validateGameMode, { numPlayersPerTeam: 1 })).toEqual([
      { pointer: "/numTeams", detail: "is required" },
    ]);
  });

  it("rejects a zero or negative rating tolerance and negative waiting times", () => {
    expect(
      fieldErrorsOf(validateGameMode, {
        numTeams: 2,
        numPlayersPerTeam: 1,
        ratingTolerance: 0,
        maxWaitingTime: -1,
      }),
    ).toEqual([
      { pointer: "/maxWaitingTime", detail: "must be >= 0" },
      { pointer: "/ratingTolerance", detail: "must be > 0" },
    ]);
  });
});

describe("Ticket", () => {
  it("accepts the basic ticket of Idem's documentation", () => {
    expect(validateTicket(basicTicket)).toBe(true);
  });

  it("accepts a latency map on the advanced edition", () => {
    const ticket = { ...basicTicket, servers: { "eu-west-1": 23, "us-east-1": 95.5 } };
    expect(validateTicket(ticket)).toBe(true);
    expect(isLatencyMap(ticket.servers)).toBe(true);
    expect(isLatencyMap(basicTicket.servers)).toBe(false);
  });

  it("accepts a party, constraints, a null constraints object and unknown fields", () => {
    expect(
      validateTicket({
        ...basicTicket,
        partyId: "party-7",
        exactEqualityConstraints: { region: "eu", ranked: true, mapPool: 3 },
        clientVersion: "1.4.2",
      }),
    ).toBe(true);
    expect(validateTicket({ ...basicTicket, exactEqualityConstraints: null })).toBe(true);
  });

  it("rejects an empty or blank server list and leaves repeated names to the matchmaker", () => {
    expect(fieldErrorsOf(validateTicket, { ...basicTicket, servers: [] })).toEqual([
      { pointer: "/servers", detail: "must NOT have fewer than 1 items" },
    ]);
    // Distinct names are the matchmaker's semantic check (see the cost note in matchmaking.ts).
    expect(validateTicket({ ...basicTicket, servers: ["eu", "eu"] })).toBe(true);
    expect(fieldErrorsOf(validateTicket, { ...basicTicket, servers: [""] })).toEqual([
      { pointer: "/servers/0", detail: "must NOT have fewer than 1 characters" },
    ]);
  });

  it("rejects an empty latency map, a negative latency and a blank server name", () => {
    expect(fieldErrorsOf(validateTicket, { ...basicTicket, servers: {} })).toEqual([
      { pointer: "/servers", detail: "must NOT have fewer than 1 properties" },
    ]);
    expect(fieldErrorsOf(validateTicket, { ...basicTicket, servers: { eu: -5, "": 10 } })).toEqual([
      { pointer: "/servers", detail: 'has a key "" that must NOT have fewer than 1 characters' },
      { pointer: "/servers/eu", detail: "must be >= 0" },
    ]);
  });

  it("rejects servers that are neither a list nor a map", () => {
    expect(fieldErrorsOf(validateTicket, { ...basicTicket, servers: "eu-west-1" })).toEqual([
      { pointer: "/servers", detail: "must be array,object" },
    ]);
  });

  it("rejects a fractional timestamp, a string rating and an empty ticketId", () => {
    expect(
      fieldErrorsOf(validateTicket, { ...basicTicket, ticketId: "", joinTimestamp: 1.5, rating: "1500" }),
    ).toEqual([
      { pointer: "/ticketId", detail: "must NOT have fewer than 1 characters" },
      { pointer: "/joinTimestamp", detail: "must be integer" },
      { pointer: "/rating", detail: "must be number" },
    ]);
  });

  it("rejects constraint values that are objects or arrays", () => {
    expect(
      fieldErrorsOf(validateTicket, { ...basicTicket, exactEqualityConstraints: { region: ["eu"] } }),
    ).toEqual([{ pointer: "/exactEqualityConstraints/region", detail: "must be string,number,boolean" }]);
  });
});

describe("MatchmakingRequest", () => {
  const request = {
    game_mode: { numTeams: 2, numPlayersPerTeam: 2 },
    tickets: Array.from({ length: 13 }, (_, i) => ({ ...basicTicket, ticketId: `t${i}`, rating: 1400 + i })),
  };

  it("accepts the 13-ticket 2x2 queue of Idem's documentation, with or without now", () => {
    expect(validateMatchmakingRequest(request)).toBe(true);
    expect(validateMatchmakingRequest({ ...request, now: 1_700_000_030 })).toBe(true);
  });

  it("accepts an empty queue", () => {
    expect(validateMatchmakingRequest({ ...request, tickets: [] })).toBe(true);
  });

  it("names the pointer of a bad field deep inside the queue", () => {
    const tickets = request.tickets.map((t, i) => (i === 7 ? { ...t, servers: [] } : t));
    expect(fieldErrorsOf(validateMatchmakingRequest, { ...request, tickets })).toEqual([
      { pointer: "/tickets/7/servers", detail: "must NOT have fewer than 1 items" },
    ]);
  });

  it("requires game_mode and tickets", () => {
    expect(fieldErrorsOf(validateMatchmakingRequest, {})).toEqual([
      { pointer: "/game_mode", detail: "is required" },
      { pointer: "/tickets", detail: "is required" },
    ]);
  });

  it("accepts explain as a boolean only", () => {
    expect(validateMatchmakingRequest({ ...request, explain: true })).toBe(true);
    expect(fieldErrorsOf(validateMatchmakingRequest, { ...request, explain: "yes" })).toEqual([
      { pointer: "/explain", detail: "must be boolean" },
    ]);
  });

  it("has a first-error validator that agrees with the full one and reports one error", () => {
    const tickets = request.tickets.map((t) => ({ ...t, rating: "x", servers: [] }));
    expect(validateMatchmakingRequestFirstError(request)).toBe(true);
    expect(validateMatchmakingRequestFirstError({ ...request, tickets })).toBe(false);
    expect(validateMatchmakingRequestFirstError.errors).toHaveLength(1);
    expect(validateMatchmakingRequest({ ...request, tickets })).toBe(false);
    expect(validateMatchmakingRequest.errors!.length).toBeGreaterThan(13);
  });

  it("names the game mode field with its parent pointer", () => {
    expect(fieldErrorsOf(validateMatchmakingRequest, { ...request, game_mode: { numTeams: 2 } })).toEqual([
      { pointer: "/game_mode/numPlayersPerTeam", detail: "is required" },
    ]);
  });
});

describe("MatchmakingResponse", () => {
  const returned = (ticketId: string) => ({
    ...basicTicket,
    ticketId,
    rating: 1500.0,
    exactEqualityConstraints: {},
  });
  const response: MatchmakingResponse = {
    matchSuggestions: [
      {
        id: "7d3c4f0e-2a53-4b8e-9a51-0f6f1f0c9a11",
        server: "eu-west-1",
        matchScore: 0.93,
        teams: [
          { id: "1b0e0d9c-44a6-4c52-8f0e-3c3b2a1d7e21", tickets: [returned("a"), returned("b")] },
          { id: "2c1f1e0d-55b7-4d63-9f1f-4d4c3b2e8f32", tickets: [returned("c"), returned("d")] },
        ],
      },
    ],
    unmatchedTickets: [returned("e")],
  };

  it("accepts a suggestion with two teams and an unmatched ticket", () => {
    expect(validateMatchmakingResponse(response)).toBe(true);
  });

  it("accepts an answer where nothing could be matched yet", () => {
    expect(
      validateMatchmakingResponse({ matchSuggestions: [], unmatchedTickets: [returned("a"), returned("b")] }),
    ).toBe(true);
  });

  it("requires every returned ticket to carry its constraints object", () => {
    const { exactEqualityConstraints: _omitted, ...bare } = returned("e");
    expect(fieldErrorsOf(validateMatchmakingResponse, { ...response, unmatchedTickets: [bare] })).toEqual([
      { pointer: "/unmatchedTickets/0/exactEqualityConstraints", detail: "is required" },
    ]);
  });

  it("accepts unmatchedReasons with the documented codes and refuses others", () => {
    const reasons = {
      e: { code: "waiting-for-better-match", detail: "…", requiredScore: 0.9, bestScore: 0.4 },
    };
    expect(validateMatchmakingResponse({ ...response, unmatchedReasons: reasons })).toBe(true);
    expect(
      fieldErrorsOf(validateMatchmakingResponse, { ...response, unmatchedReasons: { e: { code: "bored" } } }),
    ).toEqual([{ pointer: "/unmatchedReasons/e/code", detail: expect.stringMatching(/^must be one of/) }]);
  });

  it("rejects a match score outside 0..1 and an id that is not a uuid", () => {
    const [suggestion] = response.matchSuggestions;
    const bad = { ...suggestion, id: "match-1", matchScore: 1.2 };
    expect(fieldErrorsOf(validateMatchmakingResponse, { ...response, matchSuggestions: [bad] })).toEqual([
      { pointer: "/matchSuggestions/0/id", detail: 'must match format "uuid"' },
      { pointer: "/matchSuggestions/0/matchScore", detail: "must be <= 1" },
    ]);
  });
});
