import { isAscii } from "node:buffer";
import { type BodyParser, parseJsonBytes, readRawBody } from "@arena/service-kit";
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
 * The matchmaker's body parser: the kit's raw reader (limit, compression) and JSON rules (charset,
 * syntax, depth), keeping the bytes so the answer can copy each ticket's text instead of serializing
 * it again. An ASCII body is decoded once, as latin1, and that text is both parsed and reused.
 */
export const rawJsonBody: BodyParser = (settings) => [
  readRawBody(settings),
  (req, _res, next) => {
    const bytes = req.body;
    req.body = undefined;
    if (!Buffer.isBuffer(bytes) || bytes.length === 0) {
      next();
      return;
    }
    try {
      const asciiText = isAscii(bytes) ? bytes.toString("latin1") : undefined;
      req.body = parseJsonBytes(req, bytes, settings.maxDepth, { text: asciiText });
      rawBodies.set(req, asciiText === undefined ? { bytes } : { bytes, asciiText });
      next();
    } catch (err) {
      next(err);
    }
  },
];
