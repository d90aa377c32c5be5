/**
 * A young-generation collection before a large body is parsed.
 *
 * A request's parsed tickets stay alive until its answer is written. When V8's young generation
 * fills up in between, the scavenge copies every live ticket and promotes them to the old
 * generation, on fresh pages, and a mark-compact follows. A 100k-ticket body is 12 MB and its
 * tickets and search allocate about 40 MB; besides, V8 also scavenges once 32 MB of young external
 * memory has accumulated, and the body counts three times towards that (the socket's chunks, their
 * concatenation, the decoded text). So most 100k-ticket requests paid one or two scavenges of the
 * live queue (15–90 ms each, `--trace-gc`) plus 10–20k page faults. Collecting just before parsing
 * finds almost nothing alive (the previous request is over), costs 2–3 ms, and leaves the whole
 * young generation to the request.
 *
 * Measured with two matchmakers side by side, requests interleaved: at 100k tickets the collection
 * made 2v2 requests ×0.87 and ×0.85 as long (median of paired ratios, in two runs with the roles
 * swapped) and 5v5 ×0.97 and ×0.88. At 10k tickets, a collection before every request made them
 * about 10 % slower (a scavenge every dozen requests is all they need), hence the threshold.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** Bodies from this size on (about 33k tickets) are preceded by a young collection. */
export const YOUNG_COLLECTION_MIN_BYTES = 4 * 1024 * 1024;

type GcFunction = (options: { type: "minor" | "major" }) => void;
let gcFunction: GcFunction | null | undefined;

/**
 * V8's `gc`, without `--expose-gc` on the command line (the image passes flags in NODE_OPTIONS,
 * which does not take it on Node 20): the flag is set for as long as it takes to create one context,
 * whose global `gc` is then kept. Null when that fails; requests then go without the collection.
 */
function gcFunctionOnce(): GcFunction | null {
  if (gcFunction !== undefined) return gcFunction;
  try {
    setFlagsFromString("--expose-gc");
    const gc: unknown = runInNewContext("typeof gc === 'function' ? gc : null");
    gcFunction = typeof gc === "function" ? (gc as GcFunction) : null;
  } catch {
    gcFunction = null;
  } finally {
    if (typeof (globalThis as { gc?: unknown }).gc !== "function") setFlagsFromString("--no-expose-gc");
  }
  return gcFunction;
}

/** Runs a young-generation collection when a body of `bodyBytes` is about to be parsed and is large. */
export function collectYoungGarbageBefore(bodyBytes: number): void {
  if (bodyBytes < YOUNG_COLLECTION_MIN_BYTES) return;
  gcFunctionOnce()?.({ type: "minor" });
}
