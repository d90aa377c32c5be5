import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import type { Redis, RedisKeys } from "@arena/redis";

/**
 * What the gateway must remember between the PASSWORD_VERIFIER challenge and its answer, carried
 * by the client as SECRET_BLOCK instead of kept by the gateway: any replica can check the answer,
 * and a client that never answers costs nothing. Sealed with AES-256-GCM under a key derived from
 * SIGNING_KEY_SECRET, so a client can neither read the server's secret `b` nor forge a block.
 */
export interface SrpExchange {
  clientId: string;
  /** USER_ID_FOR_SRP: the lower-cased username the challenge was for. */
  userId: string;
  /** The client's public value, the server's public value and the server's secret exponent. */
  A: bigint;
  B: bigint;
  b: bigint;
  issuedAt: Date;
}

/** An opened block, with the id its single use is recorded under. */
export interface OpenedBlock extends SrpExchange {
  id: string;
}

const VERSION = 1;
const NUMBER_BYTES = 384; // the 3072-bit group: A and B are below N
const SECRET_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const AAD = Buffer.from("arena-gateway srp secret block v1");

const toBytes = (value: bigint, length: number) =>
  Buffer.from(value.toString(16).padStart(length * 2, "0"), "hex");
const fromBytes = (bytes: Buffer) => BigInt(`0x${bytes.toString("hex") || "0"}`);

function encode(exchange: SrpExchange): Buffer {
  const header = Buffer.alloc(9);
  header.writeUInt8(VERSION, 0);
  header.writeBigUInt64BE(BigInt(exchange.issuedAt.getTime()), 1);
  const clientId = Buffer.from(exchange.clientId, "utf8");
  const userId = Buffer.from(exchange.userId, "utf8");
  const lengths = Buffer.alloc(4);
  lengths.writeUInt16BE(clientId.length, 0);
  lengths.writeUInt16BE(userId.length, 2);
  return Buffer.concat([
    header,
    toBytes(exchange.A, NUMBER_BYTES),
    toBytes(exchange.B, NUMBER_BYTES),
    toBytes(exchange.b, SECRET_BYTES),
    lengths,
    clientId,
    userId,
  ]);
}

function decode(plain: Buffer): SrpExchange | undefined {
  const fixed = 9 + 2 * NUMBER_BYTES + SECRET_BYTES + 4;
  if (plain.length < fixed || plain.readUInt8(0) !== VERSION) return undefined;
  let at = 9;
  const take = (n: number) => {
    const part = plain.subarray(at, at + n);
    at += n;
    return part;
  };
  const A = fromBytes(take(NUMBER_BYTES));
  const B = fromBytes(take(NUMBER_BYTES));
  const b = fromBytes(take(SECRET_BYTES));
  const clientLength = plain.readUInt16BE(at);
  const userLength = plain.readUInt16BE(at + 2);
  at += 4;
  if (plain.length !== fixed + clientLength + userLength) return undefined;
  const clientId = take(clientLength).toString("utf8");
  const userId = take(userLength).toString("utf8");
  return { clientId, userId, A, B, b, issuedAt: new Date(Number(plain.readBigUInt64BE(1))) };
}

export interface SecretBlocksOptions {
  secret: string;
  redis: Redis;
  keys: RedisKeys;
  /** How long a challenge may be answered. */
  lifetimeMs: number;
}

/** Seals exchanges into SECRET_BLOCKs, opens them, and lets each be answered once. */
export class SecretBlocks {
  private readonly key: Buffer;

  constructor(private readonly options: SecretBlocksOptions) {
    this.key = Buffer.from(hkdfSync("sha256", options.secret, "arena-gateway", "srp secret block", 32));
  }

  /** The SECRET_BLOCK (standard base64, which the client decodes to sign it). */
  seal(exchange: SrpExchange): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv).setAAD(AAD);
    const sealed = Buffer.concat([cipher.update(encode(exchange)), cipher.final()]);
    return Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString("base64");
  }

  /**
   * The exchange of a block this gateway sealed and that has not expired at `now`; undefined for
   * anything else (forged, altered, not canonical base64, expired).
   */
  open(block: string, now: Date): OpenedBlock | undefined {
    const bytes = Buffer.from(block, "base64");
    // Node's decoder skips what is not base64: only the exact text the gateway wrote is accepted.
    if (bytes.toString("base64") !== block || bytes.length < IV_BYTES + TAG_BYTES) return undefined;
    const iv = bytes.subarray(0, IV_BYTES);
    let plain: Buffer;
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.key, iv).setAAD(AAD);
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      plain = Buffer.concat([
        decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
        decipher.final(),
      ]);
    } catch {
      return undefined;
    }
    const exchange = decode(plain);
    if (!exchange) return undefined;
    const age = now.getTime() - exchange.issuedAt.getTime();
    if (age < 0 || age > this.options.lifetimeMs) return undefined;
    return { ...exchange, id: iv.toString("base64url") };
  }

  /** Records the block's one answer: false when it was answered before (a replay). */
  async consume(block: OpenedBlock, now: Date): Promise<boolean> {
    const left = this.options.lifetimeMs - (now.getTime() - block.issuedAt.getTime());
    const key = this.options.keys.global("srp-block", block.id);
    const set = await this.options.redis.set(key, "1", "PX", Math.max(1, left) + 1000, "NX");
    return set === "OK";
  }
}
