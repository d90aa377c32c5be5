import { createHash, createHmac, hkdfSync, randomBytes } from "node:crypto";

/**
 * The client's half of Cognito's SRP-6a (USER_SRP_AUTH), byte for byte as amazon-cognito-identity-js
 * computes it: the 3072-bit group of RFC 3526 with g = 2, SHA-256 over each number's `padHex`, the
 * session key an HKDF of S with info "Caldera Derived Key" (16 bytes), and the claim an HMAC over
 * poolName ‖ userId ‖ secret block ‖ timestamp. The password never leaves the process.
 *
 * The gateway's server half shares the group and the padding rule; they are written again here on
 * purpose, because the published SDK may not depend on the monorepo's packages. `test/srp-math.test.ts`
 * runs this half against the gateway's, so the two cannot drift apart unnoticed.
 */
export const SRP_N = BigInt(
  "0xFFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD" +
    "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED" +
    "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F" +
    "83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B" +
    "E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6955817183995497CEA956AE515D2261898FA0510" +
    "15728E5A8AAAC42DAD33170D04507A33A85521ABDF1CBA64ECFB850458DBEF0A8AEA71575D060C7DB3970F85A6E1E4C7" +
    "ABF5AE8CDB0933D71E8C94E04A25619DCEE3D2261AD2EE6BF12FFA06D98A0864D87602733EC86A64521F2B18177B200C" +
    "BBE117577A615D6C770988C0BAD946E208E24FA074E5AB3143DB5BFCE0FD108E4B82D120A93AD2CAFFFFFFFFFFFFFFFF",
);
export const SRP_G = 2n;

/** Even-length hex, with "00" before a leading digit 8-f (Java's BigInteger.toByteArray, as Cognito hashes it). */
export function padHex(value: bigint): string {
  let hex = value.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  return /^[89a-f]/.test(hex) ? `00${hex}` : hex;
}

const sha256 = (data: Buffer | string) => createHash("sha256").update(data).digest();
const hashHex = (...hex: string[]) => BigInt(`0x${sha256(Buffer.from(hex.join(""), "hex")).toString("hex")}`);
const K = hashHex(padHex(SRP_N), padHex(SRP_G));

/** base^exponent mod modulus by squaring. */
export function modPow(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n;
  let square = ((base % modulus) + modulus) % modulus;
  for (let e = exponent; e > 0n; e >>= 1n) {
    if (e & 1n) result = (result * square) % modulus;
    square = (square * square) % modulus;
  }
  return result;
}

/** The client's secret a and public A = g^a mod N (A mod N is never 0 for a in [1, N)). */
export function clientKeyPair(random: (size: number) => Buffer = randomBytes): { a: bigint; A: bigint } {
  const a = BigInt(`0x${random(128).toString("hex")}`) % SRP_N;
  return { a, A: modPow(SRP_G, a, SRP_N) };
}

export interface SrpChallenge {
  poolName: string;
  userId: string;
  password: string;
  saltHex: string;
  B: bigint;
}

/**
 * The 16-byte session key: u = H(A ‖ B), x = H(salt ‖ H(poolName ‖ userId ‖ ":" ‖ password)),
 * S = (B − k·g^x)^(a + u·x) mod N. Throws when the server's B is 0 mod N or u is 0 (the protocol's
 * aborts: a server sending them could learn something about the password).
 */
export function clientSessionKey(a: bigint, A: bigint, challenge: SrpChallenge): Buffer {
  const { B } = challenge;
  if (B % SRP_N === 0n) throw new Error("SRP: the server's B is 0 mod N");
  const u = hashHex(padHex(A), padHex(B));
  if (u === 0n) throw new Error("SRP: u is 0");
  const inner = sha256(Buffer.from(`${challenge.poolName}${challenge.userId}:${challenge.password}`, "utf8"));
  const x = hashHex(padHex(BigInt(`0x${challenge.saltHex}`)), inner.toString("hex"));
  const base = (((B - K * modPow(SRP_G, x, SRP_N)) % SRP_N) + SRP_N) % SRP_N;
  const S = modPow(base, a + u * x, SRP_N);
  return Buffer.from(
    hkdfSync(
      "sha256",
      Buffer.from(padHex(S), "hex"),
      Buffer.from(padHex(u), "hex"),
      "Caldera Derived Key",
      16,
    ),
  );
}

/** PASSWORD_CLAIM_SIGNATURE, base64. */
export function claimSignature(
  key: Buffer,
  claim: { poolName: string; userId: string; secretBlock: string; timestamp: string },
): string {
  return createHmac("sha256", key)
    .update(Buffer.from(claim.poolName, "utf8"))
    .update(Buffer.from(claim.userId, "utf8"))
    .update(Buffer.from(claim.secretBlock, "base64"))
    .update(Buffer.from(claim.timestamp, "utf8"))
    .digest("base64");
}

const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** TIMESTAMP as amazon-cognito-identity-js writes it: `ddd MMM D HH:mm:ss UTC YYYY`. */
export function srpTimestamp(now: Date = new Date()): string {
  const two = (n: number) => String(n).padStart(2, "0");
  const time = `${two(now.getUTCHours())}:${two(now.getUTCMinutes())}:${two(now.getUTCSeconds())}`;
  return `${WEEKDAYS[now.getUTCDay()]} ${MONTHS[now.getUTCMonth()]} ${now.getUTCDate()} ${time} UTC ${now.getUTCFullYear()}`;
}
