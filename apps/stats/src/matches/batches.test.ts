import { describe, expect, it } from "@jest/globals";
import { Batches } from "./batches.js";

/** A batch runner whose batches end when the test says so. */
function harness(options: {
  maxConcurrent: number;
  maxSize: number;
  fits?: (b: readonly string[], j: string) => boolean;
}) {
  const started: string[][] = [];
  const finish: Array<() => void> = [];
  const batches = new Batches<string>({
    ...options,
    fits: options.fits ?? (() => true),
    run: (batch) => {
      started.push(batch);
      return new Promise<void>((resolve) => finish.push(resolve));
    },
  });
  const endNext = async () => {
    finish.shift()!();
    await new Promise((r) => setImmediate(r));
  };
  return { batches, started, endNext };
}

describe("Batches", () => {
  it("runs a job at once, alone, while there is room", () => {
    const { batches, started } = harness({ maxConcurrent: 2, maxSize: 8 });
    batches.submit("a");
    batches.submit("b");
    expect(started).toEqual([["a"], ["b"]]);
    expect(batches.backlog).toBe(0);
  });

  it("groups the jobs that arrive while every batch is running, in arrival order", async () => {
    const { batches, started, endNext } = harness({ maxConcurrent: 1, maxSize: 8 });
    for (const job of ["a", "b", "c", "d"]) batches.submit(job);
    expect(started).toEqual([["a"]]);
    expect(batches.backlog).toBe(3);
    await endNext();
    expect(started).toEqual([["a"], ["b", "c", "d"]]);
    expect(batches.backlog).toBe(0);
  });

  it("takes at most maxSize jobs, and the rest wait for the next batch", async () => {
    const { batches, started, endNext } = harness({ maxConcurrent: 1, maxSize: 2 });
    for (const job of ["a", "b", "c", "d", "e"]) batches.submit(job);
    await endNext();
    await endNext();
    expect(started).toEqual([["a"], ["b", "c"], ["d", "e"]]);
  });

  it("leaves a job that does not fit for a later batch, which it then leads", async () => {
    // Jobs fit together unless they share their first letter (a match or player in common).
    const fits = (batch: readonly string[], job: string) => batch.every((other) => other[0] !== job[0]);
    const { batches, started, endNext } = harness({ maxConcurrent: 1, maxSize: 8, fits });
    for (const job of ["x0", "a1", "a2", "b1", "a3", "c1"]) batches.submit(job);
    await endNext();
    expect(started[1]).toEqual(["a1", "b1", "c1"]);
    await endNext();
    expect(started[2]).toEqual(["a2"]);
    await endNext();
    expect(started[3]).toEqual(["a3"]);
    expect(batches.backlog).toBe(0);
  });

  it("refuses a configuration with no room for a job", () => {
    expect(() => harness({ maxConcurrent: 0, maxSize: 8 })).toThrow();
    expect(() => harness({ maxConcurrent: 1, maxSize: 0 })).toThrow();
  });
});
