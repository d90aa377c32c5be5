import type { MatchStatus } from "@arena/contracts";
import { describe, expect, it } from "@jest/globals";
import { appliesFrom, type Transition, transition } from "./match-state.js";

const statuses: MatchStatus[] = ["suggested", "delivered", "confirmed", "completed", "failed"];

describe("the match state machine", () => {
  it("confirms only suggested or delivered matches, repeats on confirmed, refuses the rest", () => {
    expect(statuses.map((s) => transition(s, "confirm").kind)).toEqual([
      "apply",
      "apply",
      "repeat",
      "refuse",
      "refuse",
    ]);
  });

  it("fails any open match, repeats on failed, refuses a completed one", () => {
    expect(statuses.map((s) => transition(s, "fail").kind)).toEqual([
      "apply",
      "apply",
      "apply",
      "refuse",
      "repeat",
    ]);
  });

  it("completes only confirmed matches", () => {
    expect(statuses.map((s) => transition(s, "complete").kind)).toEqual([
      "refuse",
      "refuse",
      "apply",
      "repeat",
      "refuse",
    ]);
  });

  it("lists, for the database, exactly the statuses each transition applies from", () => {
    for (const t of ["deliver", "confirm", "fail", "complete"] as Transition[]) {
      expect(appliesFrom(t)).toEqual(statuses.filter((s) => transition(s, t).kind === "apply"));
    }
    expect(appliesFrom("confirm")).toEqual(["suggested", "delivered"]);
  });
});
