import { MATCH_STATUSES, type MatchStatus } from "@arena/contracts";

/**
 * The hosted match state machine (docs/architecture.md), as pure rules:
 *
 *   suggested → delivered → confirmed → completed
 *   suggested | delivered | confirmed → failed
 *
 * Confirming an undelivered suggestion delivers it on the way (a pushed suggestion may be
 * confirmed before its delivery is recorded). Repeating a transition that already happened
 * (confirm a confirmed match, fail a failed one) is a no-op, so a retried request is safe.
 */
export type Transition = "deliver" | "confirm" | "fail" | "complete";

export type TransitionVerdict =
  | { kind: "apply"; to: MatchStatus }
  | { kind: "repeat" }
  | { kind: "refuse"; detail: string };

const OPEN: readonly MatchStatus[] = ["suggested", "delivered", "confirmed"];

export function transition(from: MatchStatus, t: Transition): TransitionVerdict {
  switch (t) {
    case "deliver":
      if (from === "suggested") return { kind: "apply", to: "delivered" };
      return { kind: "repeat" };
    case "confirm":
      if (from === "suggested" || from === "delivered") return { kind: "apply", to: "confirmed" };
      if (from === "confirmed") return { kind: "repeat" };
      return {
        kind: "refuse",
        detail: `the match is ${from}; only a suggested or delivered match can be confirmed`,
      };
    case "fail":
      if (OPEN.includes(from)) return { kind: "apply", to: "failed" };
      if (from === "failed") return { kind: "repeat" };
      return { kind: "refuse", detail: "the match is completed; a completed match cannot fail" };
    case "complete":
      if (from === "confirmed") return { kind: "apply", to: "completed" };
      if (from === "completed") return { kind: "repeat" };
      return { kind: "refuse", detail: `the match is ${from}; only a confirmed match can be completed` };
  }
}

/** Statuses whose players still hold their queue rows (state `matched`). */
export const UNCONFIRMED: readonly MatchStatus[] = ["suggested", "delivered"];

/** The statuses from which `t` applies (for statements that check it in the database itself). */
export function appliesFrom(t: Transition): MatchStatus[] {
  return MATCH_STATUSES.filter((s) => transition(s, t).kind === "apply");
}
