import { isAscii } from "node:buffer";
import { type BodyParser, createJsonBodyParser } from "@arena/service-kit";
import type { Request } from "express";

/** A request body as received (after content-encoding), kept for the answer path. */
export interface RawJsonBody {
  bytes: Buffer;
  /** The body's text when it is all ASCII: latin1 decoding, a plain copy, and offsets are bytes. */
  asciiText?: string;
}

const rawBodies = new WeakMap<Request, RawJsonBody>();

/** The body `rawJsonBody` kept for this request, if any. */
export function rawBodyOf(req: Request): RawJsonBody | undefined {
  return rawBodies.get(req);
}

/**
 * The matchmaker's body parser: the kit's (limit, compression, charset, syntax, depth), keeping the
 * bytes so the answer can copy each ticket's text instead of serializing it again. An ASCII body is
 * decoded once, as latin1 (a plain copy), and that text is both parsed and reused.
 */
export const rawJsonBody: BodyParser = createJsonBodyParser({
  decode: (bytes) => (isAscii(bytes) ? bytes.toString("latin1") : undefined),
  keep: (req, bytes, asciiText) =>
    rawBodies.set(req, asciiText === undefined ? { bytes } : { bytes, asciiText }),
});
