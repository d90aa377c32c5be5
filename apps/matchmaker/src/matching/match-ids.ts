/**
 * Deterministic version-4-shaped UUIDs: a 128-bit hash of (seed, the id's index in the response).
 * Ids are distinct within a response by construction; the same request and seed give the same ids,
 * and a random seed per request (as the HTTP shell passes) gives fresh ones.
 *
 * All ids of a response are written as ASCII into one buffer and decoded once; each id is then a
 * slice of that string, which costs far less than building tens of thousands of strings piecewise.
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
  const bytes = Buffer.allocUnsafe(total * UUID_LENGTH);
  for (let i = 0; i < total; i++) {
    const w0 = fmix((s0 + i) | 0);
    const w1 = fmix(w0 ^ s1);
    const w2 = fmix((w1 + s2) | 0);
    words[0] = w0;
    words[1] = w1;
    words[2] = w2;
    words[3] = fmix(w2 ^ s3);
    writeUuid(words, 0, bytes, i * UUID_LENGTH);
  }
  const text = bytes.toString("latin1");
  const ids = new Array<string>(total);
  for (let i = 0; i < total; i++) ids[i] = text.slice(i * UUID_LENGTH, (i + 1) * UUID_LENGTH);
  return ids;
}
