/** Calls over which a recent peak size decays to half (the arena's and the search scratch's). */
const PEAK_HALF_LIFE_CALLS = 4;

/** `current`, or the recent peak decayed by one call when that is larger. */
export function decayedPeak(peak: number, current: number): number {
  return Math.max(current, peak * 0.5 ** (1 / PEAK_HALF_LIFE_CALLS));
}

/**
 * The typed arrays of one search, carved out of one ArrayBuffer that the next search reuses.
 *
 * Why not `new Int32Array(n)`: every such array of more than a few dozen bytes gets its own backing
 * store outside the JavaScript heap, and once the young arrays' stores pass 32 MB V8 runs a young
 * collection at the next allocation ("external memory pressure"). A 100k-ticket search allocates
 * about 11 MB of arrays while the request's 100k parsed tickets are still alive, so every second or
 * third request paid for copying all of them (35–110 ms each, seen with `--trace-gc`). Views of one
 * reused buffer allocate no backing store at all.
 *
 * An array from the arena lives until the next `reset` (the next search on the same scratch): a
 * result that outlives the search must not hold one. Arrays are zeroed, like `new Int32Array(n)`.
 * When the buffer is full, arrays are allocated as usual for the rest of that search, and the next
 * `reset` grows the buffer to what the search used, so an empty arena (a fresh `findMatches`
 * without scratch) behaves exactly like plain allocation.
 */
export class ArrayArena {
  private buffer = new ArrayBuffer(0);
  private used = 0;
  /** Bytes the current search asked for, whether or not they fitted. */
  private wanted = 0;
  /** A peak of `wanted` over recent searches, decaying (see PEAK_HALF_LIFE_CALLS). */
  private recentPeak = 0;

  int32(length: number): Int32Array {
    const at = this.carve(length * 4);
    return at < 0 ? new Int32Array(length) : new Int32Array(this.buffer, at, length).fill(0);
  }

  uint32(length: number): Uint32Array {
    const at = this.carve(length * 4);
    return at < 0 ? new Uint32Array(length) : new Uint32Array(this.buffer, at, length).fill(0);
  }

  float64(length: number): Float64Array {
    const at = this.carve(length * 8);
    return at < 0 ? new Float64Array(length) : new Float64Array(this.buffer, at, length).fill(0);
  }

  uint8(length: number): Uint8Array {
    const at = this.carve(length);
    return at < 0 ? new Uint8Array(length) : new Uint8Array(this.buffer, at, length).fill(0);
  }

  /** An arena copy of `values`. */
  copyOf(values: ArrayLike<number>): Int32Array {
    const copy = this.int32(values.length);
    copy.set(values);
    return copy;
  }

  /**
   * Starts a new search: every array handed out so far may be overwritten from now on. The buffer
   * grows to what the last search asked for, so the next search of that size fits; once it is
   * more than four times the recent peak, it is dropped, so one huge queue does not pin its memory
   * for the life of the process.
   */
  reset(): void {
    this.recentPeak = decayedPeak(this.recentPeak, this.wanted);
    if (this.wanted > this.buffer.byteLength) this.buffer = new ArrayBuffer(this.wanted);
    else if (this.buffer.byteLength > 4 * this.recentPeak + 65_536) this.buffer = new ArrayBuffer(0);
    this.used = 0;
    this.wanted = 0;
  }

  /** Bytes held between searches. */
  get capacity(): number {
    return this.buffer.byteLength;
  }

  /** The offset of `bytes` free bytes (8-aligned), or -1 when the buffer is full. */
  private carve(bytes: number): number {
    const size = Math.ceil(bytes / 8) * 8;
    this.wanted += size;
    if (this.used + size > this.buffer.byteLength) return -1;
    const at = this.used;
    this.used += size;
    return at;
  }
}
