import { describe, expect, it } from "@jest/globals";
import { eventually } from "../src/testing.js";

/** A probe that gives `answers` in turn (the last one over and over), counting its calls. */
function probeOf<T>(...answers: T[]) {
  const probe = () => answers[Math.min(probe.calls++, answers.length - 1)];
  probe.calls = 0;
  return probe;
}

describe("eventually", () => {
  it("returns the first answer that is neither undefined nor false, and asks no more", async () => {
    const probe = probeOf<{ n: number } | undefined | false>(undefined, false, undefined, { n: 3 }, { n: 4 });
    expect(await eventually(probe, { everyMs: 1 })).toEqual({ n: 3 });
    expect(probe.calls).toBe(4);
  });

  it("takes 0, null and the empty string for answers (only undefined and false mean not yet)", async () => {
    const once = { timeoutMs: 0 };
    expect(await eventually(() => 0, once)).toBe(0);
    expect(await eventually(() => null, once)).toBeNull();
    expect(await eventually(() => "", once)).toBe("");
  });

  it("returns true for a boolean predicate, sync or async", async () => {
    const sync = probeOf(false, false, true);
    const held: true = await eventually(sync, { everyMs: 1 });
    expect(held).toBe(true);
    expect(sync.calls).toBe(3);
    const async = probeOf(false, true);
    expect(await eventually(async () => async(), { everyMs: 1 })).toBe(true);
    expect(async.calls).toBe(2);
  });

  it("times out after timeoutMs with a message naming what it waited for", async () => {
    const probe = probeOf(false);
    const started = Date.now();
    await expect(
      eventually(probe, { timeoutMs: 100, everyMs: 20, what: "the flag to be set" }),
    ).rejects.toThrow(/^timed out after \d+ ms waiting for the flag to be set$/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    // Asked every 20 ms at the most: once at the start and at most once per pause after it.
    expect(probe.calls).toBeGreaterThanOrEqual(2);
    expect(probe.calls).toBeLessThanOrEqual(6);
  });

  it("reads a `what` function only at the timeout, to say what was seen by then", async () => {
    let seen = "nothing";
    const what = () => `the child to print READY (it printed ${seen})`;
    const waiting = eventually(
      () => {
        seen = "starting";
        return undefined;
      },
      { timeoutMs: 30, everyMs: 5, what },
    );
    await expect(waiting).rejects.toThrow("waiting for the child to print READY (it printed starting)");
  });

  it("ends the wait with the probe's own error, and asks no more", async () => {
    let calls = 0;
    const probe = async () => {
      if (++calls === 3) throw new Error("the child exited with 1");
      return undefined;
    };
    await expect(eventually(probe, { timeoutMs: 1000, everyMs: 1 })).rejects.toThrow(
      /^the child exited with 1$/,
    );
    expect(calls).toBe(3);
  });
});
