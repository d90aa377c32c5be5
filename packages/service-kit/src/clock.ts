import { Writable } from "node:stream";

/** The one time source of every app: injected, never `Date.now()` inside logic. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * A clock moved by hand (tests, replays): starts at the real time, so libraries that read the
 * system time themselves (JWT checks) agree with it until it is moved.
 */
export class ManualClock implements Clock {
  private current = Date.now();
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current += ms;
  }
}

/** A log destination that keeps every line, for tests that prove what was (or was not) logged. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.lines.push(chunk.toString("utf8"));
    done();
  }
  get text(): string {
    return this.lines.join("");
  }
}
