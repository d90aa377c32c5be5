import {
  createDiffieHellman,
  createHash,
  createHmac,
  getDiffieHellman,
  hkdfSync,
  randomBytes,
} from "node:crypto";

/**
 * Cognito's SRP-6a, byte for byte as amazon-cognito-identity-js (AuthenticationHelper.js) and
 * Cognito compute it: the 3072-bit group of RFC 3526 with g = 2, SHA-256, every number hashed as
 * its `padHex` (the even-length two's-complement hex of Java's BigInteger.toByteArray), the
 * session key an HKDF of S with info "Caldera Derived Key", 16 bytes.
 */
export const N = BigInt(
  "0xFFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD" +
    "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED" +
    "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F" +
    "83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B" +
    "E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6955817183995497CEA956AE515D2261898FA0510" +
    "15728E5A8AAAC42DAD33170D04507A33A85521ABDF1CBA64ECFB850458DBEF0A8AEA71575D060C7DB3970F85A6E1E4C7" +
    "ABF5AE8CDB0933D71E8C94E04A25619DCEE3D2261AD2EE6BF12FFA06D98A0864D87602733EC86A64521F2B18177B200C" +
    "BBE117577A615D6C770988C0BAD946E208E24FA074E5AB3143DB5BFCE0FD108E4B82D120A93AD2CAFFFFFFFFFFFFFFFF",
);
export const g = 2n;

/** Hex of a non-negative number, even length, with "00" before a leading digit 8-f (never negative here). */
export function padHex(value: bigint): string {
  let hex = value.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  return /^[89a-f]/.test(hex) ? `00${hex}` : hex;
}

const sha256 = (data: Buffer | string) => createHash("sha256").update(data).digest();
/** SHA-256 of the bytes a hex string spells, as a number. */
const hashHex = (...hex: string[]) => BigInt(`0x${sha256(Buffer.from(hex.join(""), "hex")).toString("hex")}`);

/** The multiplier k = H(padHex(N) ‖ padHex(g)). */
export const k = hashHex(padHex(N), padHex(g));

/** base^exponent mod modulus, by squaring in JavaScript: about 10 times slower than OpenSSL. */
export function modPow(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n;
  let square = ((base % modulus) + modulus) % modulus;
  for (let e = exponent; e > 0n; e >>= 1n) {
    if (e & 1n) result = (result * square) % modulus;
    square = (square * square) % modulus;
  }
  return result;
}

/**
 * OpenSSL's Diffie-Hellman over this very group (RFC 3526's modp15 is N with g = 2) computes
 * base^exponent mod N as `computeSecret`: about 5 ms where `modPow` takes 45 (measured on the
 * 2-core CI machine), which bounds what an unauthenticated challenge costs. One object, reused:
 * each call sets its exponent and finishes synchronously.
 */
const group = getDiffieHellman("modp15");
const openssl = createDiffieHellman(group.getPrime(), group.getGenerator());
const EXPONENT_BYTES = 32;

/** base^exponent mod N for exponents below 2^256 (hashes and the server's secret). */
export function powModN(base: bigint, exponent: bigint): bigint {
  const reduced = base % N;
  // OpenSSL refuses 0, 1 and N - 1 as a peer's key; their powers are trivial anyway.
  if (reduced < 2n || reduced > N - 2n || exponent >> BigInt(8 * EXPONENT_BYTES) !== 0n || exponent === 0n) {
    return modPow(reduced, exponent, N);
  }
  openssl.setPrivateKey(Buffer.from(exponent.toString(16).padStart(2 * EXPONENT_BYTES, "0"), "hex"));
  const secret = openssl.computeSecret(Buffer.from(reduced.toString(16).padStart(768, "0"), "hex"));
  return BigInt(`0x${secret.toString("hex")}`);
}

/** A user's stored SRP secret: the salt as the challenge sends it (hex) and the verifier g^x mod N (hex). */
export interface SrpVerifier {
  salt: string;
  verifier: string;
}

/** x = H(padHex(salt) ‖ H(poolName ‖ userId ‖ ":" ‖ password)). */
function passwordExponent(poolName: string, userId: string, password: string, saltHex: string): bigint {
  const inner = sha256(Buffer.from(`${poolName}${userId}:${password}`, "utf8")).toString("hex");
  return hashHex(padHex(BigInt(`0x${saltHex}`)), inner);
}

/**
 * The verifier of a password: a 16-byte random salt (written as the client reads it back, padHex)
 * and g^x mod N. `userId` is the USER_ID_FOR_SRP the challenge will carry.
 */
export function createVerifier(poolName: string, userId: string, password: string): SrpVerifier {
  const salt = padHex(BigInt(`0x${randomBytes(16).toString("hex")}`));
  const x = passwordExponent(poolName, userId, password, salt);
  return { salt, verifier: powModN(g, x).toString(16) };
}

/** The server's half of one exchange: its secret b and public B = k·v + g^b mod N (never 0 mod N). */
export function serverKeyPair(verifier: bigint): { b: bigint; B: bigint } {
  for (;;) {
    const b = BigInt(`0x${randomBytes(32).toString("hex")}`);
    const B = (k * verifier + powModN(g, b)) % N;
    if (B !== 0n) return { b, B };
  }
}

/**
 * The 16-byte session key both sides derive: u = H(padHex(A) ‖ padHex(B)), S = (A·v^u)^b mod N,
 * HKDF-SHA256(ikm padHex(S), salt padHex(u), info "Caldera Derived Key"). Undefined when u is 0
 * (the protocol forbids it; the client refuses it too).
 */
export function sessionKey(exchange: {
  A: bigint;
  B: bigint;
  b: bigint;
  verifier: bigint;
}): Buffer | undefined {
  const { A, B, b, verifier } = exchange;
  const u = hashHex(padHex(A), padHex(B));
  if (u === 0n) return undefined;
  const S = powModN((A % N) * powModN(verifier, u), b);
  const key = hkdfSync(
    "sha256",
    Buffer.from(padHex(S), "hex"),
    Buffer.from(padHex(u), "hex"),
    "Caldera Derived Key",
    16,
  );
  return Buffer.from(key);
}

/** PASSWORD_CLAIM_SIGNATURE: HMAC-SHA256(key, poolName ‖ userId ‖ secret block bytes ‖ timestamp). */
export function claimSignature(
  key: Buffer,
  claim: { poolName: string; userId: string; secretBlock: Buffer; timestamp: string },
): Buffer {
  return createHmac("sha256", key)
    .update(Buffer.from(claim.poolName, "utf8"))
    .update(Buffer.from(claim.userId, "utf8"))
    .update(claim.secretBlock)
    .update(Buffer.from(claim.timestamp, "utf8"))
    .digest();
}
