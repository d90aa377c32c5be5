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

  it("group indices by class keeping their order", () => {
    const items = Int32Array.of(4, 0, 3, 1, 2);
    const classOf = Int32Array.of(1, 0, 1, 0, 1);
    expect(Array.from(sortIndicesByClass(items, classOf, 2))).toEqual([3, 1, 4, 0, 2]);
  });
});
