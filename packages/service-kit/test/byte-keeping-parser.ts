import type { Request } from "express";
import { type BodyParser, parseJsonBytes, readRawBody } from "../src/index.js";

/** The bytes of each request's body, as an app's own parser may keep them (the matchmaker does). */
export const keptBytes: WeakMap<Request, Buffer> = new WeakMap();

/** An app body parser built from the kit's pieces, keeping the raw bytes exactly as sent. */
export const byteKeepingParser: BodyParser = (settings) => [
  readRawBody(settings),
  (req, _res, next) => {
    const bytes = req.body;
    req.body = undefined;
    if (!Buffer.isBuffer(bytes) || bytes.length === 0) {
      next();
      return;
    }
    try {
      req.body = parseJsonBytes(req, bytes, settings.maxDepth);
      keptBytes.set(req, bytes);
      next();
    } catch (err) {
      next(err);
    }
  },
];
