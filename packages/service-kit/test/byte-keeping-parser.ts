import type { Request } from "express";
import { createJsonBodyParser } from "../src/index.js";

/** The bytes of each request's body, as an app's own parser may keep them (the matchmaker does). */
export const keptBytes: WeakMap<Request, Buffer> = new WeakMap();

/** An app body parser built on the kit's, keeping the raw bytes exactly as sent. */
export const byteKeepingParser = createJsonBodyParser({ keep: (req, bytes) => keptBytes.set(req, bytes) });
