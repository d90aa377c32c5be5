import { isAscii, isUtf8 } from "node:buffer";
import { type BodyParser, createJsonBodyParser } from "@arena/service-kit";
import type { Request } from "express";
import { collectYoungGarbageBefore } from "./young-collection.js";

/** A request body as received (after content-encoding), kept for the answer path. */
export interface RawJsonBody {
  /** The body's UTF-8 bytes; the answer copies each ticket from them. */
  bytes: Buffer;
}

const rawBodies = new WeakMap<Request, RawJsonBody>();

/** The body `rawJsonBody` kept for this request, if any. */
export function rawBodyOf(req: Request): RawJsonBody | undefined {
  return rawBodies.get(req);
}

/**
 * The matchmaker's body parser: the kit's (limit, compression, charset, syntax, depth), keeping the
 * bytes so the answer can copy each ticket's bytes instead of serializing it again. An ASCII body
 * is decoded as latin1 for JSON.parse (a plain copy, no UTF-8 pass). Bytes that are not valid UTF-8
 * are not kept: JSON.parse saw U+FFFD in their place, and the answer must say what was matched in
 * valid UTF-8, so those requests are answered from the parsed tickets. A large body is preceded by a
 * young-generation collection (see young-collection.ts).
 */
export const rawJsonBody: BodyParser = createJsonBodyParser({
  decode: (bytes) => {
    collectYoungGarbageBefore(bytes.length);
    return isAscii(bytes) ? bytes.toString("latin1") : undefined;
  },
  keep: (req, bytes, asciiText) => {
    if (asciiText !== undefined || isUtf8(bytes)) rawBodies.set(req, { bytes });
  },
});
