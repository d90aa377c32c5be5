import { createJsonBodyParser } from "@arena/service-kit";
import type { Request } from "express";

const bodies = new WeakMap<Request, Buffer>();

/** The request body's bytes exactly as the client sent them (after content-encoding), if any. */
export function forwardedBodyOf(req: Request): Buffer | undefined {
  return bodies.get(req);
}

/**
 * The gateway's body parser: the kit's (limits, compression, charset, syntax, depth), keeping the
 * bytes, so a hosted body goes to stats byte for byte while the gateway can still read it.
 */
export const forwardingBodyParser = createJsonBodyParser({ keep: (req, bytes) => bodies.set(req, bytes) });
