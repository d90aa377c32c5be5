/**
 * Deterministic version-4-shaped UUIDs: a 128-bit hash of (seed, the id's index in the response).
 * Ids are distinct within a response by construction; the same request and seed give the same ids,
 * and a random seed per request (as the HTTP shell passes) gives fresh ones.
 *
 * The ids are written as ASCII a block at a time into one reused buffer, and each block is decoded
 * once; each id is then a slice of its block's string, which costs far less than building tens of
 * thousands of strings piecewise.
 */
import { Buffer } from "node:buffer";
import { fmix } from "./hash-mix.js";

const LANE_SEEDS = [0x811c9dc5, 0x3c6ef372, 0xa54ff53a, 0x510e527f];
const UUID_LENGTH = 36;
const HEX_CODES = new Uint8Array(512);
for (let i = 0; i < 256; i++) {
  const hex = i.toString(16).padStart(2, "0");
  HEX_CODES[2 * i] = hex.charCodeAt(0);
  HEX_CODES[2 * i + 1] = hex.charCodeAt(1);
}
const DASH = 0x2d;
/**
 * Ids decoded per string: 1,800 ids are 64,800 characters. A string of 128 KiB or more is a large
 * object in V8, and creating one costs about a hundred times more per byte than a smaller one (on
 * the benchmark machine, 1.35 ms for the 270 KB of a 10k-ticket 2v2 answer's 7,500 ids, against
 * 0.15 ms in blocks), until strings grow past about 1 MB and Node makes them external.
 */
const IDS_PER_BLOCK = 1_800;
/** One block's ASCII, reused by every call (the function runs to its end without yielding). */
const blockBytes = Buffer.allocUnsafe(IDS_PER_BLOCK * UUID_LENGTH);

function hashInto(text: string, start: ArrayLike<number>, out: Uint32Array, at: number): void {
  for (let lane = 0; lane < 4; lane++) {
    let h = start[lane]! >>> 0;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193 + 2 * lane);
    out[at + lane] = fmix(h ^ text.length ^ (lane << 24));
  }
}

function writeUuid(words: Uint32Array, at: number, bytes: Uint8Array, offset: number): void {
  let o = offset;
  for (let k = 0; k < 16; k++) {
    let byte = (words[at + (k >>> 2)]! >>> (24 - 8 * (k & 3))) & 0xff;
    if (k === 6) byte = (byte & 0x0f) | 0x40;
    else if (k === 8) byte = (byte & 0x3f) | 0x80;
    if (k === 4 || k === 6 || k === 8 || k === 10) bytes[o++] = DASH;
    bytes[o++] = HEX_CODES[2 * byte]!;
    bytes[o++] = HEX_CODES[2 * byte + 1]!;
  }
}

/**
 * Ids for `matchCount` matches of `teams` teams: entry `m * (teams + 1)` is match m's id, the next
 * `teams` entries its team ids. Entry i is hashed from (seed, i): the first word is a bijection of
 * i (a seeded offset through the invertible murmur3 finaliser), so the ids of a response are
 * distinct by construction, and the other three words chain from it. Only the seed's characters are
 * hashed, once per response.
 */
export function generateMatchIds(seed: string, matchCount: number, teams: number): string[] {
  const seedWords = new Uint32Array(4);
  hashInto(seed, LANE_SEEDS, seedWords, 0);
  const s0 = seedWords[0]!;
  const s1 = seedWords[1]!;
  const s2 = seedWords[2]!;
  const s3 = seedWords[3]!;
  const total = matchCount * (teams + 1);
  const words = new Uint32Array(4);
  const ids = new Array<string>(total);
  for (let first = 0; first < total; first += IDS_PER_BLOCK) {
    const last = Math.min(first + IDS_PER_BLOCK, total);
    for (let i = first; i < last; i++) {
      const w0 = fmix((s0 + i) | 0);
      const w1 = fmix(w0 ^ s1);
      const w2 = fmix((w1 + s2) | 0);
      words[0] = w0;
      words[1] = w1;
      words[2] = w2;
      words[3] = fmix(w2 ^ s3);
      writeUuid(words, 0, blockBytes, (i - first) * UUID_LENGTH);
    }
    const block = blockBytes.toString("latin1", 0, (last - first) * UUID_LENGTH);
    for (let i = first; i < last; i++) {
      const at = (i - first) * UUID_LENGTH;
      ids[i] = block.slice(at, at + UUID_LENGTH);
    }
  }
  return ids;
}
