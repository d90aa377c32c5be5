import { describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import { ArrayArena } from "./array-arena.js";
import { sortIndicesByKey, sortIndicesByWholeKey } from "./index-sort.js";

describe("ArrayArena", () => {
  it("allocates plainly while empty, then carves the next search's arrays out of one buffer", () => {
    const arena = new ArrayArena();
    const first = arena.int32(1000);
    expect(first.buffer.byteLength).toBe(4000);
    arena.float64(10);
    arena.reset();
    expect(arena.capacity).toBe(4000 + 80);

    const a = arena.int32(1000);
    const b = arena.float64(10);
    expect(a.buffer).toBe(b.buffer);
    expect(b.byteOffset % 8).toBe(0);
    // Full: the rest of this search is allocated plainly, and the next reset grows the buffer.
    const c = arena.uint8(100);
    expect(c.buffer).not.toBe(a.buffer);
    arena.reset();
    expect(arena.capacity).toBe(4000 + 80 + 104);
  });

  it("hands out zeroed arrays even where the last search wrote", () => {
    const arena = new ArrayArena();
    arena.int32(64);
    arena.reset();
    arena.int32(64).fill(-1);
    arena.reset();
    expect(Array.from(arena.int32(64))).toEqual(new Array(64).fill(0));
    expect(Array.from(arena.float64(0))).toEqual([]);
  });

  it("drops its buffer once it is more than four times what recent searches used", () => {
    const arena = new ArrayArena();
    arena.int32(1_000_000);
    arena.reset();
    expect(arena.capacity).toBe(4_000_000);
    let resets = 0;
    while (arena.capacity > 0 && resets < 100) {
      arena.int32(100);
      arena.reset();
      resets++;
    }
    expect(arena.capacity).toBe(0);
    // The peak decays by half every four searches: it takes several before the buffer goes.
    expect(resets).toBeGreaterThan(4);
  });

  it("sorts as with fresh arrays when the arena's memory held another sort's data", () => {
    // The radix sorts (2048 items and more) read their scratch arrays before writing some of them.
    const arena = new ArrayArena();
    const keyArrays = fc.array(fc.double({ noNaN: true, min: -1e6, max: 1e6 }), {
      minLength: 2048,
      maxLength: 3000,
    });
    fc.assert(
      fc.property(fc.array(keyArrays, { minLength: 2, maxLength: 3 }), (runs) => {
        for (const values of runs) {
          arena.reset();
          const keys = Float64Array.from(values);
          const items = Int32Array.from(values.keys());
          expect(Array.from(sortIndicesByKey(items, keys, arena))).toEqual(
            Array.from(sortIndicesByKey(items, keys)),
          );
          expect(Array.from(sortIndicesByWholeKey(items, keys, arena))).toEqual(
            Array.from(sortIndicesByWholeKey(items, keys)),
          );
        }
      }),
      { numRuns: 20 },
    );
  });
});
