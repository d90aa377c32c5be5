import { describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import { sortIndicesByClass, sortIndicesByKey, sortIndicesByWholeKey } from "./index-sort.js";

const reference = (keys: number[], key: (k: number) => number) =>
  keys.map((_, i) => i).sort((a, b) => key(keys[a]!) - key(keys[b]!) || a - b);

describe("index sorts", () => {
  it("sort indices by float key stably, like a comparison sort", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(0, -0, 1, -1, 1500)),
          {
            maxLength: 300,
          },
        ),
        (keys) => {
          const items = Int32Array.from(keys.map((_, i) => i));
          const sorted = Array.from(sortIndicesByKey(items, Float64Array.from(keys)));
          // -0 sorts before 0 here, which a comparison sort treats as equal: compare by value only.
          expect(sorted.map((i) => keys[i]! + 0)).toEqual(reference(keys, (k) => k).map((i) => keys[i]! + 0));
          expect(new Set(sorted).size).toBe(keys.length);
        },
      ),
    );
  });

  it("sort indices by whole-second key stably, whatever the range", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.integer({ min: 1_700_000_000, max: 1_700_000_100 }), fc.integer()), {
          maxLength: 300,
        }),
        (keys) => {
          const items = Int32Array.from(keys.map((_, i) => i));
          expect(Array.from(sortIndicesByWholeKey(items, Float64Array.from(keys)))).toEqual(
            reference(keys, (k) => k),
          );
        },
      ),
    );
  });

  it("sort large arrays (the radix and counting paths) like a comparison sort", () => {
    fc.assert(
      fc.property(fc.integer(), fc.constantFrom(1, 3, 1e6, 1e12), (seed, scale) => {
        let state = seed >>> 0;
        const next = () => {
          state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
          return state / 4294967296;
        };
        const floats = Array.from({ length: 5000 }, () => Math.round((next() - 0.5) * scale * 8) / 8);
        const items = Int32Array.from(floats.map((_, i) => i));
        expect(
          Array.from(sortIndicesByKey(items, Float64Array.from(floats))).map((i) => floats[i]! + 0),
        ).toEqual(reference(floats, (k) => k).map((i) => floats[i]! + 0));
        const seconds = floats.map((f) => 1_700_000_000 + Math.floor(f));
        expect(Array.from(sortIndicesByWholeKey(items, Float64Array.from(seconds)))).toEqual(
          reference(seconds, (k) => k),
        );
      }),
      { numRuns: 20 },
    );
  });

  it("group indices by class keeping their order", () => {
    const items = Int32Array.of(4, 0, 3, 1, 2);
    const classOf = Int32Array.of(1, 0, 1, 0, 1);
    expect(Array.from(sortIndicesByClass(items, classOf, 2))).toEqual([3, 1, 4, 0, 2]);
  });
});
