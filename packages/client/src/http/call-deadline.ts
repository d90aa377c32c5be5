/**
 * One call's time budget: an AbortSignal that fires at the deadline or when the caller's own
 * signal does, and sleeps between attempts that end early when it fires.
 */
export class CallDeadline {
  readonly signal: AbortSignal;
  private readonly endsAt: number;
  private readonly controller = new AbortController();
  private readonly timer: ReturnType<typeof setTimeout>;
  private readonly onCallerAbort = () => this.controller.abort(this.callerSignal?.reason);

  constructor(
    readonly deadlineMs: number,
    private readonly callerSignal?: AbortSignal,
  ) {
    this.endsAt = Date.now() + deadlineMs;
    this.signal = this.controller.signal;
    this.timer = setTimeout(() => this.controller.abort(new DeadlinePassed()), deadlineMs);
    if (callerSignal?.aborted) this.onCallerAbort();
    else callerSignal?.addEventListener("abort", this.onCallerAbort, { once: true });
  }

  /** Whether the deadline (not the caller) ended the call. */
  get expired(): boolean {
    return this.signal.aborted && this.signal.reason instanceof DeadlinePassed;
  }

  remainingMs(): number {
    return Math.max(0, this.endsAt - Date.now());
  }

  /** Waits `ms`, or less when the call is aborted (then rejects with the abort's reason). */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.signal.aborted) return reject(this.signal.reason);
      const onAbort = () => {
        clearTimeout(timer);
        reject(this.signal.reason);
      };
      const timer = setTimeout(() => {
        this.signal.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      this.signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** `promise`, or the abort's reason when the call is aborted first (a login that hangs). */
  within<T>(promise: Promise<T>): Promise<T> {
    if (this.signal.aborted) return Promise.reject(this.signal.reason);
    let onAbort = () => {};
    const aborted = new Promise<never>((_resolve, reject) => {
      onAbort = () => reject(this.signal.reason);
      this.signal.addEventListener("abort", onAbort, { once: true });
    });
    return Promise.race([promise, aborted]).finally(() => this.signal.removeEventListener("abort", onAbort));
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.callerSignal?.removeEventListener("abort", this.onCallerAbort);
  }
}

/** The abort reason of a passed deadline, told apart from the caller's own abort. */
export class DeadlinePassed extends Error {
  override readonly name = "DeadlinePassed";
}
