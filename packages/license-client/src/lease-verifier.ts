import { EDITIONS, type Edition, LEASE_AUDIENCE, LEASE_ISSUER, type LeaseClaims } from "@arena/contracts";
import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey, jwtVerify } from "jose";
import type { Lease } from "./license-state.js";

/** Only asymmetric algorithms: a lease must never verify with a shared secret. */
const LEASE_ALGORITHMS = [
  "EdDSA",
  "Ed25519",
  "ES256",
  "ES384",
  "ES512",
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
];

/** How long a fetched key set is used before it is fetched again (a failed fetch keeps it). */
const JWKS_MAX_AGE_MS = 15 * 60_000;
/** An unknown `kid` (key rotation) refetches the key set, but not more often than this. */
const JWKS_REFETCH_COOLDOWN_MS = 30_000;
/** Tolerated clock difference with the license service for `exp` and `iat`. */
const CLOCK_TOLERANCE_S = 30;

/** A lease that did not verify: a forgery, another audience, an unusable key set. Never trusted. */
export class LeaseVerificationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "LeaseVerificationError";
  }
}

export interface LeaseVerifier {
  /** `signal` ends a key-set fetch the verification needs (the check's deadline, or stop()). */
  verify(lease: string, requestId: string, signal: AbortSignal): Promise<Lease>;
}

export interface LeaseVerifierOptions {
  /** Fetches the JWKS document; throws when the license service cannot give it. */
  fetchJwks: (requestId: string, signal: AbortSignal) => Promise<unknown>;
  now: () => number;
}

interface CachedKeySet {
  getKey: JWTVerifyGetKey;
  fetchedAtMs: number;
}

/**
 * Verifies leases against the license service's JWKS. The last key set that could be fetched is
 * kept for as long as the service is unreachable, so an outage never makes a good lease unverifiable.
 */
export function createLeaseVerifier({ fetchJwks, now }: LeaseVerifierOptions): LeaseVerifier {
  let cached: CachedKeySet | null = null;
  let lastFetchAttemptMs = Number.NEGATIVE_INFINITY;

  async function loadKeySet(requestId: string, signal: AbortSignal): Promise<CachedKeySet> {
    lastFetchAttemptMs = now();
    const previous = cached;
    try {
      const document = await fetchJwks(requestId, signal);
      if (!isKeySet(document)) throw new Error("the answer is not a JWKS document");
      const fresh = { getKey: createLocalJWKSet(document), fetchedAtMs: now() };
      cached = fresh;
      return fresh;
    } catch (err) {
      if (previous !== null) return previous;
      throw new LeaseVerificationError(
        `the lease signing keys could not be fetched: ${(err as Error).message}`,
        {
          cause: err,
        },
      );
    }
  }

  function keySet(requestId: string, signal: AbortSignal): Promise<CachedKeySet> {
    if (cached === null || now() - cached.fetchedAtMs >= JWKS_MAX_AGE_MS)
      return loadKeySet(requestId, signal);
    return Promise.resolve(cached);
  }

  async function verifyWith(getKey: JWTVerifyGetKey, lease: string): Promise<LeaseClaims> {
    const { payload } = await jwtVerify<Partial<LeaseClaims>>(lease, getKey, {
      issuer: LEASE_ISSUER,
      audience: LEASE_AUDIENCE,
      algorithms: LEASE_ALGORITHMS,
      requiredClaims: ["sub", "exp", "iat"],
      currentDate: new Date(now()),
      clockTolerance: CLOCK_TOLERANCE_S,
    });
    if (!isEdition(payload.edition)) throw new LeaseVerificationError("the lease names no known edition");
    if (typeof payload.sub !== "string" || payload.sub === "") {
      throw new LeaseVerificationError("the lease names no license");
    }
    return payload as LeaseClaims;
  }

  return {
    async verify(lease, requestId, signal) {
      let set = await keySet(requestId, signal);
      let claims: LeaseClaims;
      try {
        try {
          claims = await verifyWith(set.getKey, lease);
        } catch (err) {
          // A kid we do not know may be a key the service rotated in since our last fetch.
          const mayBeRotation =
            err instanceof errors.JWKSNoMatchingKey && now() - lastFetchAttemptMs >= JWKS_REFETCH_COOLDOWN_MS;
          if (!mayBeRotation) throw err;
          set = await loadKeySet(requestId, signal);
          claims = await verifyWith(set.getKey, lease);
        }
      } catch (err) {
        throw err instanceof LeaseVerificationError
          ? err
          : new LeaseVerificationError(describeVerificationError(err), { cause: err });
      }
      return { edition: claims.edition, licenseId: claims.sub, expiresAtMs: claims.exp * 1000 };
    },
  };
}

function isKeySet(value: unknown): value is JSONWebKeySet {
  return typeof value === "object" && value !== null && Array.isArray((value as { keys?: unknown }).keys);
}

function isEdition(value: unknown): value is Edition {
  return (EDITIONS as readonly unknown[]).includes(value);
}

function describeVerificationError(err: unknown): string {
  if (err instanceof errors.JWTExpired) return "the lease has already expired (check both clocks)";
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === "aud") return `the lease is for another audience than ${LEASE_AUDIENCE}`;
    if (err.claim === "iss") return `the lease was not issued by ${LEASE_ISSUER}`;
    return `the lease claim "${err.claim}" is invalid (${err.reason})`;
  }
  if (err instanceof errors.JWKSNoMatchingKey)
    return "the lease is signed by a key the license service does not publish";
  if (err instanceof errors.JWSSignatureVerificationFailed) {
    return "the lease signature does not match the license service's published key";
  }
  if (err instanceof errors.JOSEAlgNotAllowed)
    return "the lease is signed with an algorithm that is not allowed";
  if (err instanceof errors.JOSEError) return `the lease could not be verified (${err.code}: ${err.message})`;
  return `the lease could not be verified (${(err as Error).message})`;
}
