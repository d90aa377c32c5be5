import { Worker } from "node:worker_threads";
import { BytePool } from "./byte-pool.js";
import { scanTicketSpans, type TicketSpans } from "./ticket-spans.js";

/**
 * Finds the ticket spans of a request body (see ticket-spans.ts). Two implementations: inline, on
 * the request's own thread, and on a worker thread, so the scan of a large body runs on a second
 * core while the request thread validates the queue and searches for matches.
 */
export interface SpanScanner {
  scan(raw: Buffer, expectedCount: number): Promise<TicketSpans | null>;
  close(): Promise<void>;
  /** How many scans a worker thread answered (0 for the inline scanner, or after a fallback). */
  readonly workerScans: number;
}

export function createInlineSpanScanner(): SpanScanner {
  return {
    scan: async (raw, expectedCount) => scanTicketSpans(raw, expectedCount),
    close: async () => {},
    workerScans: 0,
  };
}

interface ScanReply {
  id: number;
  spans: TicketSpans | null;
}

/**
 * Below this size the round trip to the worker (a copy of the body and two messages) costs more
 * than scanning inline.
 */
const WORKER_MIN_BYTES = 64 * 1024;

/**
 * Scans on one worker thread (`span-scanner-worker.js`, compiled beside this file). The body is
 * copied into shared memory kept for the next scan, the spans come back as transferred typed
 * arrays. If the worker cannot start or dies, every scan falls back to the inline scanner, so a
 * request never fails because of it.
 */
export function createWorkerSpanScanner(
  workerUrl = new URL("./span-scanner-worker.js", import.meta.url),
): SpanScanner {
  const inline = createInlineSpanScanner();
  const pending = new Map<
    number,
    { resolve: (s: TicketSpans | null) => void; raw: Buffer; expectedCount: number; copy: Buffer }
  >();
  const copies = new BytePool((size) => Buffer.from(new SharedArrayBuffer(size)));
  let nextId = 0;
  let workerScans = 0;
  let worker: Worker | undefined;
  let failed = false;

  const fallBack = () => {
    failed = true;
    worker = undefined;
    for (const [id, job] of pending) {
      pending.delete(id);
      job.resolve(scanTicketSpans(job.raw, job.expectedCount));
    }
  };

  const start = (): Worker | undefined => {
    if (worker || failed) return worker;
    try {
      worker = new Worker(workerUrl);
    } catch {
      fallBack();
      return undefined;
    }
    worker.unref();
    worker.on("message", (reply: ScanReply) => {
      const job = pending.get(reply.id);
      if (!job) return;
      pending.delete(reply.id);
      copies.give(job.copy);
      workerScans++;
      job.resolve(reply.spans);
    });
    worker.on("error", fallBack);
    worker.on("exit", () => {
      if (!failed) fallBack();
    });
    return worker;
  };

  return {
    scan(raw, expectedCount) {
      const target = raw.length >= WORKER_MIN_BYTES ? start() : undefined;
      if (!target) return inline.scan(raw, expectedCount);
      // Shared memory reused from scan to scan: the worker reads it in place, nothing is transferred.
      const copy = copies.take(raw.length);
      raw.copy(copy);
      const id = nextId++;
      return new Promise((resolve) => {
        pending.set(id, { resolve, raw, expectedCount, copy });
        target.postMessage({ id, bytes: copy.buffer, length: raw.length, expectedCount });
      });
    },
    get workerScans() {
      return workerScans;
    },
    async close() {
      const current = worker;
      failed = true;
      worker = undefined;
      if (current) await current.terminate();
    },
  };
}
