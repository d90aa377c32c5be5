/**
 * Stable O(n) sort of item indices by a float key: LSD radix sort over the key's IEEE-754 bits
 * (16-bit digits, passes skipped when every key shares the digit). Comparison sorts with a callback
 * cost several times more at 100k items, and this is on the hot path of every request.
 */

import { ArrayArena } from "./array-arena.js";

/** Below this many items a comparison sort beats clearing the radix histograms. */
const SMALL = 2048;
const DIGIT_BUCKETS = 1 << 11;

const floatView = new Float64Array(1);
const wordView = new Uint32Array(floatView.buffer);
const lowWord = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 0 : 1;

/**
 * Sorts `items` (indices into `keys`) by `keys[item]` ascending; equal keys keep their order in
 * `items`. Returns the sorted array (a new array from `arrays`; `items` is left unchanged).
 */
export function sortIndicesByKey(
  items: Int32Array,
  keys: Float64Array,
  arrays: ArrayArena = new ArrayArena(),
): Int32Array {
  const n = items.length;
  if (n < SMALL) return comparisonSort(items, keys, arrays);
  // LSD radix sort on the order-preserving high word (11-bit digits, histograms in one pass);
  // keys that share it (rare: they differ only in the last 32 mantissa bits) are then put in order
  // by an insertion pass, which is stable.
  const hi = arrays.uint32(n);
  const counts = arrays.uint32(3 * DIGIT_BUCKETS);
  for (let i = 0; i < n; i++) {
    floatView[0] = keys[items[i]!]!;
    let h = wordView[1 - lowWord]!;
    // Order-preserving map of doubles to unsigned integers: flip all bits of negatives, the sign of the rest.
    h = h >>> 31 === 1 ? ~h >>> 0 : (h | 0x80000000) >>> 0;
    hi[i] = h;
    counts[h & 0x7ff]!++;
    counts[DIGIT_BUCKETS + ((h >>> 11) & 0x7ff)]!++;
    counts[2 * DIGIT_BUCKETS + (h >>> 22)]!++;
  }
  let src = arrays.copyOf(items);
  let srcHi = hi;
  let dst = arrays.int32(n);
  let dstHi = arrays.uint32(n);
  for (let pass = 0; pass < 3; pass++) {
    const shift = 11 * pass;
    const base = pass * DIGIT_BUCKETS;
    if (counts[base + ((srcHi[0]! >>> shift) & 0x7ff)] === n) continue;
    let sum = 0;
    for (let b = base; b < base + DIGIT_BUCKETS; b++) {
      const c = counts[b]!;
      counts[b] = sum;
      sum += c;
    }
    for (let i = 0; i < n; i++) {
      const h = srcHi[i]!;
      const at = counts[base + ((h >>> shift) & 0x7ff)]!++;
      dst[at] = src[i]!;
      dstHi[at] = h;
    }
    [src, dst] = [dst, src];
    [srcHi, dstHi] = [dstHi, srcHi];
  }
  for (let i = 1; i < n; i++) {
    const h = srcHi[i]!;
    if (h !== srcHi[i - 1]) continue;
    const item = src[i]!;
    const key = keys[item]!;
    if (!(key < keys[src[i - 1]!]!)) continue;
    let j = i - 1;
    while (j >= 0 && srcHi[j] === h && key < keys[src[j]!]!) {
      src[j + 1] = src[j]!;
      j--;
    }
    src[j + 1] = item;
  }
  return src;
}

/** Array.prototype.sort is stable, so equal keys keep their order in `items`. */
function comparisonSort(items: Int32Array, keys: Float64Array, arrays: ArrayArena): Int32Array {
  return arrays.copyOf(Array.from(items).sort((a, b) => keys[a]! - keys[b]!));
}

/** Stable counting sort of `items` by a small non-negative integer class (`classOf[item] < classCount`). */
export function sortIndicesByClass(
  items: Int32Array,
  classOf: Int32Array,
  classCount: number,
  arrays: ArrayArena = new ArrayArena(),
): Int32Array {
  if (classCount <= 1) return items;
  const counts = arrays.int32(classCount + 1);
  for (let i = 0; i < items.length; i++) counts[classOf[items[i]!]! + 1]!++;
  for (let c = 0; c < classCount; c++) counts[c + 1]! += counts[c]!;
  const out = arrays.int32(items.length);
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    out[counts[classOf[item]!]!++] = item;
  }
  return out;
}

const MAX_COUNTING_RANGE = 1 << 20;

/**
 * Stable sort of `items` by `Math.floor(keys[item])`, for keys such as Unix seconds: one counting
 * pass when the keys span less than about 12 days, the float radix sort otherwise.
 */
export function sortIndicesByWholeKey(
  items: Int32Array,
  keys: Float64Array,
  arrays: ArrayArena = new ArrayArena(),
): Int32Array {
  const n = items.length;
  if (n < SMALL) {
    return arrays.copyOf(Array.from(items).sort((a, b) => Math.floor(keys[a]!) - Math.floor(keys[b]!)));
  }
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    const k = keys[items[i]!]!;
    if (k < min) min = k;
    if (k > max) max = k;
  }
  const base = Math.floor(min);
  const range = Math.floor(max) - base + 1;
  if (!(range <= MAX_COUNTING_RANGE)) return sortIndicesByKey(items, keys, arrays);
  const counts = arrays.int32(range + 1);
  for (let i = 0; i < n; i++) counts[Math.floor(keys[items[i]!]!) - base + 1]!++;
  for (let b = 0; b < range; b++) counts[b + 1]! += counts[b]!;
  const out = arrays.int32(n);
  for (let i = 0; i < n; i++) {
    const item = items[i]!;
    out[counts[Math.floor(keys[item]!) - base]!++] = item;
  }
  return out;
}
