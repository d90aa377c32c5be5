import { getHeapSpaceStatistics } from "node:v8";
import { runInNewContext } from "node:vm";
import { beforeAll, describe, expect, it } from "@jest/globals";
import { collectYoungGarbageBefore, YOUNG_COLLECTION_MIN_BYTES } from "./young-collection.js";

const youngBytes = () => getHeapSpaceStatistics().find((s) => s.space_name === "new_space")!.space_used_size;

/**
 * The young generation's size in use at the start, after about half a megabyte of garbage is made,
 * and after `collect`. It starts from an emptied young generation, so the garbage fits without a
 * scavenge of its own (one while it is made would empty it before it is measured), and it is read
 * synchronously: a young collection empties the young generation of garbage at once, where gc
 * performance entries arrive later and, under load, after the test.
 */
function youngBytesAround(collect: () => void): { garbage: number; before: number; after: number } {
  collectYoungGarbageBefore(YOUNG_COLLECTION_MIN_BYTES);
  const start = youngBytes();
  let garbage: number[][] | null = [];
  for (let i = 0; i < 1_500; i++) garbage.push(new Array(32).fill(i));
  garbage = null;
  const before = youngBytes();
  collect();
  return { garbage: before - start, before, after: youngBytes() };
}

describe("collectYoungGarbageBefore", () => {
  beforeAll(() => {
    // The first call creates the context that holds `gc`; two collections move what survives of it
    // out of the young generation, so the measurements below see only their own garbage.
    collectYoungGarbageBefore(YOUNG_COLLECTION_MIN_BYTES);
    collectYoungGarbageBefore(YOUNG_COLLECTION_MIN_BYTES);
  });

  it("collects the young generation before a large body, without --expose-gc", () => {
    expect(typeof (globalThis as { gc?: unknown }).gc).not.toBe("function");
    const { garbage, before, after } = youngBytesAround(() =>
      collectYoungGarbageBefore(YOUNG_COLLECTION_MIN_BYTES),
    );
    expect(garbage).toBeGreaterThan(300_000);
    expect(before - after).toBeGreaterThan(0.8 * garbage);
    // The flag is set only while the collector is fetched: contexts made later get no global gc.
    expect(runInNewContext("typeof gc")).toBe("undefined");
  });

  it("leaves smaller bodies alone", () => {
    const { garbage, before, after } = youngBytesAround(() =>
      collectYoungGarbageBefore(YOUNG_COLLECTION_MIN_BYTES - 1),
    );
    expect(garbage).toBeGreaterThan(300_000);
    expect(after).toBeGreaterThanOrEqual(before);
  });
});
