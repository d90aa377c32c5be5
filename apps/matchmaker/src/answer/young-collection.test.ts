import { constants, PerformanceObserver } from "node:perf_hooks";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "@jest/globals";
import { collectYoungGarbageBefore, YOUNG_COLLECTION_MIN_BYTES } from "./young-collection.js";

/** Young collections (scavenges) seen while `work` runs, counted from Node's gc performance entries. */
async function youngCollectionsDuring(work: () => void): Promise<number> {
  let count = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      // A gc entry's detail (NodeGCPerformanceDetail) is missing from PerformanceEntry's type on Node 20.
      const { detail } = entry as unknown as { detail?: { kind?: number } };
      if (detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) count++;
    }
  });
  observer.observe({ entryTypes: ["gc"] });
  work();
  // Entries are delivered asynchronously.
  await new Promise((resolve) => setTimeout(resolve, 50));
  observer.disconnect();
  return count;
}

describe("collectYoungGarbageBefore", () => {
  it("collects the young generation before each large body, without --expose-gc", async () => {
    expect(typeof (globalThis as { gc?: unknown }).gc).not.toBe("function");
    const collections = await youngCollectionsDuring(() => {
      for (let i = 0; i < 20; i++) collectYoungGarbageBefore(YOUNG_COLLECTION_MIN_BYTES);
    });
    expect(collections).toBeGreaterThanOrEqual(20);
    // The flag is set only while the collector is fetched: contexts made later get no global gc.
    expect(runInNewContext("typeof gc")).toBe("undefined");
  });

  it("leaves smaller bodies alone", async () => {
    const collections = await youngCollectionsDuring(() => {
      for (let i = 0; i < 20; i++) collectYoungGarbageBefore(YOUNG_COLLECTION_MIN_BYTES - 1);
    });
    expect(collections).toBeLessThan(5);
  });
});
