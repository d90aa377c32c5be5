/**
 * Large byte buffers kept for the next request. An answer of 100k tickets is about 20 MiB, and a
 * fresh allocation of that size each request costs page faults (the kernel hands out zeroed pages
 * one by one) and collections forced by V8's external-memory accounting. A buffer given back is
 * kept idle for the next `take` that fits: at most `keep` of them, and none once `idleMs` passed
 * without a request, so the memory goes back when traffic stops.
 */
export class BytePool {
  private idle: Buffer[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly allocate: (size: number) => Buffer = (size) => Buffer.allocUnsafe(size),
    private readonly keep = 2,
    private readonly idleMs = 10_000,
  ) {}

  /** A buffer of at least `size` bytes, its contents undefined. */
  take(size: number): Buffer {
    for (let i = this.idle.length - 1; i >= 0; i--) {
      const buffer = this.idle[i]!;
      if (buffer.length < size) continue;
      this.idle.splice(i, 1);
      return buffer;
    }
    // Too small for this request: they would only be kept to be passed over again.
    this.idle = [];
    return this.allocate(size);
  }

  /** Gives back a buffer nothing reads or writes any more. */
  give(buffer: Buffer): void {
    if (this.idle.length >= this.keep) return;
    this.idle.push(buffer);
    this.timer?.refresh();
    this.timer ??= setTimeout(() => {
      this.idle = [];
      this.timer = undefined;
    }, this.idleMs).unref();
  }

  /** Idle buffers held now (for tests and metrics). */
  get idleCount(): number {
    return this.idle.length;
  }
}
