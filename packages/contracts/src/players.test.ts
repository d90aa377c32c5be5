import { describe, expect, it } from "@jest/globals";
import { fieldErrorsOf } from "../test/field-errors.js";
import {
  validatePlayerList,
  validateSubmitPlayersRequest,
  validateSubmitPlayersResponse,
} from "./players.js";

describe("player submission", () => {
  it("accepts a party of two as in Idem's documentation", () => {
    expect(
      validateSubmitPlayersRequest({
        partyName: "player_1_1276543",
        players: [
          { playerId: "player_1", servers: ["eu-west-1"], reference: "steam:7656119" },
          { playerId: "player_2", servers: ["eu-west-1", "eu-central-1"] },
        ],
      }),
    ).toBe(true);
  });

  it("accepts a player without an id, whose id the service generates", () => {
    expect(validateSubmitPlayersRequest({ players: [{}] })).toBe(true);
  });

  it("ignores fields an Idem client sends that this service does not use", () => {
    expect(validateSubmitPlayersRequest({ players: [{ playerId: "p", region: "eu" }], priority: 1 })).toBe(
      true,
    );
  });

  it("rejects an empty player list and names bad fields per player", () => {
    expect(fieldErrorsOf(validateSubmitPlayersRequest, { players: [] })).toEqual([
      { pointer: "/players", detail: "must NOT have fewer than 1 items" },
    ]);
    expect(
      fieldErrorsOf(validateSubmitPlayersRequest, {
        players: [{ playerId: "" }, { servers: [] }, { reference: 7 }],
      }),
    ).toEqual([
      { pointer: "/players/0/playerId", detail: "must NOT have fewer than 1 characters" },
      { pointer: "/players/1/servers", detail: "must NOT have fewer than 1 items" },
      { pointer: "/players/2/reference", detail: "must be string,null" },
    ]);
  });
});

describe("queued players", () => {
  const waiting = { playerId: "player_1", state: "waiting", reference: "steam:7656119" };

  it("answers a submission with every player's id, reference and state", () => {
    expect(
      validateSubmitPlayersResponse({
        players: [waiting, { playerId: "0b6e4c1e-generated", state: "waiting", reference: null }],
      }),
    ).toBe(true);
  });

  it("lists waiting and matched players as a plain array", () => {
    expect(validatePlayerList([waiting, { ...waiting, playerId: "player_2", state: "matched" }])).toBe(true);
    expect(fieldErrorsOf(validatePlayerList, [{ ...waiting, state: "playing" }])).toEqual([
      { pointer: "/0/state", detail: 'must be one of "waiting", "matched"' },
    ]);
  });
});

describe("the size of a submission", () => {
  it("takes at most a match's worth of players, each with at most 100 servers", () => {
    const players = (n: number, servers = 1) =>
      Array.from({ length: n }, (_, i) => ({
        playerId: `p${i}`,
        servers: Array.from({ length: servers }, (_, s) => `s${s}`),
      }));
    expect(validateSubmitPlayersRequest({ players: players(1000, 100) })).toBe(true);
    expect(fieldErrorsOf(validateSubmitPlayersRequest, { players: players(1001) })).toContainEqual(
      expect.objectContaining({ pointer: "/players" }),
    );
    expect(fieldErrorsOf(validateSubmitPlayersRequest, { players: players(1, 101) })).toContainEqual(
      expect.objectContaining({ pointer: "/players/0/servers" }),
    );
  });
});
