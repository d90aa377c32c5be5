import type { BytePool } from "./byte-pool.js";

/**
 * The bytes of one answer, written in place: copies of the request's own byte ranges and the few
 * strings around them (ids, servers, scores). Nothing is built as an intermediate string, so the
 * answer costs one copy of each ticket and no flattening of a rope of thousands of slices (which
 * once took longer than the whole match search for a 100k-ticket queue).
 */
export class AnswerBytes {
  private buf: Buffer;
  private pos = 0;
  // DataViews of `buf` and of the request body copied from, for the word-wise copy.
  private bufView: DataView<ArrayBufferLike>;
  private source: Buffer | undefined;
  private sourceView: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));

  /** Writes into a buffer of `pool`'s, which `release` gives back once the answer has been sent. */
  constructor(
    capacity: number,
    private readonly pool: BytePool,
  ) {
    this.buf = pool.take(Math.max(1024, Math.ceil(capacity)));
    this.bufView = viewOf(this.buf);
  }

  /** The answer so far (a view of the written bytes, not a copy). */
  get bytes(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  /** Gives the buffer back to the pool: call it once nothing reads `bytes` any more. */
  release(): void {
    this.pool.give(this.buf);
  }

  /**
   * Appends `raw[start..end)`, four bytes at a time through DataViews. Not `raw.copy`: on Node 20
   * each call makes a Uint8Array view of the range, and the answer's few copies per ticket made
   * about 10 MB of garbage per 100k-ticket answer, which was also five times slower than this loop.
   */
  copy(raw: Buffer, start: number, end: number): void {
    const length = end - start;
    if (length <= 0) return;
    this.reserve(length);
    if (raw !== this.source) {
      this.source = raw;
      this.sourceView = viewOf(raw);
    }
    const from = this.sourceView;
    const to = this.bufView;
    let pos = this.pos;
    let i = start;
    for (; i + 4 <= end; i += 4, pos += 4) to.setInt32(pos, from.getInt32(i));
    const buf = this.buf;
    for (; i < end; i++) buf[pos++] = raw[i]!;
    this.pos = pos;
  }

  /** Appends bytes encoded once, ahead of time (the answer's fixed JSON pieces). */
  constant(bytes: Uint8Array): void {
    const length = bytes.length;
    this.reserve(length);
    const buf = this.buf;
    let pos = this.pos;
    for (let i = 0; i < length; i++) buf[pos++] = bytes[i]!;
    this.pos = pos;
  }

  /**
   * Appends a string whose characters are all ASCII (the match and team ids, hex and dashes), with
   * one native copy: a character loop costs more for 36 characters than the call.
   */
  ascii(value: string): void {
    this.reserve(value.length);
    this.pos += this.buf.write(value, this.pos, "latin1");
  }

  /** Appends one ASCII byte (a bracket, a comma). */
  byte(value: number): void {
    this.reserve(1);
    this.buf[this.pos++] = value;
  }

  /**
   * Appends a string as UTF-8 (ids, numbers, JSON text). Short flat strings are copied by a loop,
   * which beats a native call for a handful of characters; pass the pieces of a text one by one
   * rather than concatenated, or each concatenation is built and flattened first.
   */
  text(value: string): void {
    const length = value.length;
    this.reserve(length * 3);
    const buf = this.buf;
    let pos = this.pos;
    if (length < 64) {
      for (let i = 0; i < length; i++) {
        const c = value.charCodeAt(i);
        if (c > 0x7f) {
          this.pos += buf.write(value, this.pos, "utf8");
          return;
        }
        buf[pos++] = c;
      }
      this.pos = pos;
      return;
    }
    this.pos = pos + buf.write(value, pos, "utf8");
  }

  private reserve(length: number): void {
    if (this.pos + length <= this.buf.length) return;
    const bigger = this.pool.take(Math.max(this.buf.length * 2, this.pos + length));
    this.buf.copy(bigger, 0, 0, this.pos);
    this.pool.give(this.buf);
    this.buf = bigger;
    this.bufView = viewOf(bigger);
  }
}

const viewOf = (bytes: Buffer) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
