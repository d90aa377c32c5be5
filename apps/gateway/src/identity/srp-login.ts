import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import type {
  InitiateAuthRequest,
  InitiateAuthResponse,
  RespondToAuthChallengeRequest,
} from "@arena/contracts";
import type { Request } from "express";
import type { Clock } from "../clock.js";
import { CognitoError } from "./cognito-errors.js";
import { srpUserId } from "./credentials.js";
import type { IdentityStore, LoginClient, LoginUser } from "./identity-store.js";
import { type AuthenticationAnswer, type LoginFlows, throttled, WRONG_CREDENTIALS } from "./login-flows.js";
import type { LoginThrottle } from "./login-throttle.js";
import { claimSignature, N, padHex, serverKeyPair, sessionKey } from "./srp.js";
import type { OpenedBlock, SecretBlocks } from "./srp-secret-block.js";
import { parseSrpTimestamp } from "./srp-timestamp.js";

/** How far a TIMESTAMP may be from the gateway's clock, either way. */
export const SRP_TIMESTAMP_SKEW_MS = 5 * 60_000;
/** How long a PASSWORD_VERIFIER challenge may be answered (Cognito's default session: 3 minutes). */
export const SRP_CHALLENGE_LIFETIME_MS = 3 * 60_000;

export interface SrpLoginDeps {
  identity: IdentityStore;
  throttle: LoginThrottle;
  clock: Clock;
  blocks: SecretBlocks;
  flows: LoginFlows;
  /** SIGNING_KEY_SECRET: keys the stand-in salts and verifiers of names without a verifier. */
  secret: string;
}

const BAD_BLOCK = "Invalid session for the user: the SECRET_BLOCK is expired, used or not this pool's.";

/**
 * USER_SRP_AUTH: InitiateAuth answers the PASSWORD_VERIFIER challenge, RespondToAuthChallenge
 * checks the client's proof of the password and signs it in like USER_PASSWORD_AUTH. A name with
 * no verifier here (unknown, another tenant's, or a user from before SRP) gets a challenge made
 * the same way from a stand-in verifier, so neither the answer nor its timing tell them apart; its
 * proof never verifies.
 */
export class SrpLogin {
  private readonly standInKey: Buffer;

  constructor(private readonly deps: SrpLoginDeps) {
    this.standInKey = Buffer.from(
      hkdfSync("sha256", deps.secret, "arena-gateway", "srp stand-in verifier", 32),
    );
  }

  async challenge(body: InitiateAuthRequest, client: LoginClient): Promise<InitiateAuthResponse> {
    const A = clientPublicValue(body.AuthParameters.SRP_A as string);
    const userId = srpUserId(body.AuthParameters.USERNAME as string);
    const user = await this.userWithVerifier(userId, client);
    const salt = user?.srp.salt ?? this.standInSalt(client.tenantId, userId);
    const { b, B } = serverKeyPair(this.verifierOf(user, client.tenantId, userId));
    const block = this.deps.blocks.seal({
      clientId: client.clientId,
      userId,
      A,
      B,
      b,
      issuedAt: this.deps.clock.now(),
    });
    return {
      ChallengeName: "PASSWORD_VERIFIER",
      ChallengeParameters: {
        SALT: salt,
        SRP_B: B.toString(16),
        SECRET_BLOCK: block,
        USER_ID_FOR_SRP: userId,
        USERNAME: userId,
      },
    };
  }

  async respond(
    req: Request,
    body: RespondToAuthChallengeRequest,
    client: LoginClient,
  ): Promise<AuthenticationAnswer> {
    const responses = body.ChallengeResponses;
    const signature = claimedSignature(responses.PASSWORD_CLAIM_SIGNATURE);
    const timestamp = responses.TIMESTAMP;
    const now = this.deps.clock.now();
    const at = parseSrpTimestamp(timestamp);
    if (!at) {
      throw new CognitoError(
        "InvalidParameterException",
        "TIMESTAMP must be written as `ddd MMM D HH:mm:ss UTC YYYY`",
      );
    }
    if (Math.abs(at.getTime() - now.getTime()) > SRP_TIMESTAMP_SKEW_MS) {
      throw new CognitoError(
        "NotAuthorizedException",
        "TIMESTAMP is more than 5 minutes away from the server's time.",
      );
    }
    const blockText = responses.PASSWORD_CLAIM_SECRET_BLOCK;
    const block = this.deps.blocks.open(blockText, now);
    const matches = block?.clientId === client.clientId && block.userId === srpUserId(responses.USERNAME);
    if (!block || !matches || !(await this.deps.blocks.consume(block, now))) {
      throw new CognitoError("NotAuthorizedException", BAD_BLOCK);
    }
    const claim = { signature, timestamp, secretBlock: Buffer.from(blockText, "base64") };
    const user = await throttled(
      this.deps.throttle,
      { req, tenantId: client.tenantId, username: block.userId },
      () => this.verify(block, claim, client),
    );
    if (!user) throw new CognitoError("NotAuthorizedException", WRONG_CREDENTIALS);
    return this.deps.flows.signIn(user, client.clientId);
  }

  /** The user when the proof is of its password; the stand-in costs the same work and never matches. */
  private async verify(
    block: OpenedBlock,
    claim: { signature: Buffer; timestamp: string; secretBlock: Buffer },
    client: LoginClient,
  ): Promise<LoginUser | undefined> {
    const user = await this.userWithVerifier(block.userId, client);
    const verifier = this.verifierOf(user, client.tenantId, block.userId);
    const key = sessionKey({ A: block.A, B: block.B, b: block.b, verifier });
    if (!key) return undefined;
    const expected = claimSignature(key, { poolName: client.poolName, userId: block.userId, ...claim });
    return timingSafeEqual(expected, claim.signature) && user ? user : undefined;
  }

  /** The client's tenant's user by that SRP name, when it has a verifier. */
  private async userWithVerifier(
    userId: string,
    client: LoginClient,
  ): Promise<(LoginUser & { srp: NonNullable<LoginUser["srp"]> }) | undefined> {
    const found = await this.deps.identity.findLoginUser(userId);
    if (found?.tenantId !== client.tenantId || found.srp === null) return undefined;
    return { ...found, srp: found.srp };
  }

  private verifierOf(user: LoginUser | undefined, tenantId: string, userId: string): bigint {
    if (user?.srp) return BigInt(`0x${user.srp.verifier}`);
    const bytes = hkdfSync("sha256", this.standInKey, `${tenantId}\n${userId}`, "verifier", 384);
    return BigInt(`0x${Buffer.from(bytes).toString("hex")}`) % N;
  }

  /** A name without a verifier always gets the same salt per tenant, as a user would, never a real one's. */
  private standInSalt(tenantId: string, userId: string): string {
    const digest = createHmac("sha256", this.standInKey).update(`salt\n${tenantId}\n${userId}`).digest();
    return padHex(BigInt(`0x${digest.subarray(0, 16).toString("hex")}`));
  }
}

/** SRP_A as a number: 0 < A < N, or InvalidParameterException (the schema bounded it to hex digits). */
function clientPublicValue(hex: string): bigint {
  const A = BigInt(`0x${hex}`);
  if (A % N === 0n || A >= N) {
    throw new CognitoError(
      "InvalidParameterException",
      "SRP_A must be a number from 1 to N - 1 (A mod N cannot be 0)",
    );
  }
  return A;
}

/** PASSWORD_CLAIM_SIGNATURE: a base64 HMAC-SHA256, 32 bytes. */
function claimedSignature(text: string): Buffer {
  const bytes = Buffer.from(text, "base64");
  if (bytes.length !== 32 || bytes.toString("base64") !== text) {
    throw new CognitoError(
      "InvalidParameterException",
      "PASSWORD_CLAIM_SIGNATURE must be a base64 HMAC-SHA256 (32 bytes)",
    );
  }
  return bytes;
}
