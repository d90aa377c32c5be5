/** The worker side of createWorkerSpanScanner: scans bodies and sends the spans back, transferred. */
import { parentPort } from "node:worker_threads";
import { scanTicketSpans } from "./ticket-spans.js";

parentPort?.on(
  "message",
  ({
    id,
    bytes,
    length,
    expectedCount,
  }: {
    id: number;
    bytes: SharedArrayBuffer;
    length: number;
    expectedCount: number;
  }) => {
    const spans = scanTicketSpans(Buffer.from(bytes, 0, length), expectedCount);
    const transfer = spans
      ? [
          spans.start,
          spans.end,
          spans.ratingStart,
          spans.ratingEnd,
          spans.constraintsStart,
          spans.constraintsEnd,
        ].map((a) => a.buffer as ArrayBuffer)
      : [];
    parentPort?.postMessage({ id, spans }, transfer);
  },
);
