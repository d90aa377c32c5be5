/**
 * A request over the WebSocket that did not get its answer: the gateway's error answer (`code` is
 * the HTTP status REST would have answered), or `"timeout"`, `"disconnected"`, `"closed"`.
 */
export class RealtimeError extends Error {
  override readonly name = "RealtimeError";

  constructor(
    readonly action: string,
    readonly code: number | "timeout" | "disconnected" | "closed",
    message: string,
    readonly errors?: Array<{ pointer: string; detail: string }>,
  ) {
    super(message);
  }
}
