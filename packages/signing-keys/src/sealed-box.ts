import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * The AES-256 key that seals signing keys at rest, derived from SIGNING_KEY_SECRET with HKDF so the
 * secret itself is never used directly as a cipher key. `salt` names the service (`arena-license`,
 * `arena-gateway`): the same secret configured in two services still seals with different keys.
 */
export function deriveSealingKey(secret: string, salt: string): Buffer {
  return Buffer.from(hkdfSync("sha256", secret, salt, "signing-key-seal/v1", 32));
}

/**
 * AES-256-GCM: `v1.` + base64url(iv | tag | ciphertext). `context` (the key id) is authenticated
 * data, so a sealed value moved to another row does not open.
 */
export function seal(plaintext: string, key: Buffer, context: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(context, "utf8"));
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url")}`;
}

/** Opens a sealed value; throws when the key, the context or the ciphertext is wrong. */
export function open(sealed: string, key: Buffer, context: string): string {
  const [version, payload] = sealed.split(".");
  if (version !== VERSION || payload === undefined) throw new Error("unknown sealed value format");
  const raw = Buffer.from(payload, "base64url");
  const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(context, "utf8"));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
    "utf8",
  );
}
