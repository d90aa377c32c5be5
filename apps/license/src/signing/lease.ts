import { type Edition, LEASE_AUDIENCE, LEASE_ISSUER, type LeaseClaims } from "@arena/contracts";
import { type SigningKeys, signJwt } from "@arena/signing-keys";

export interface SignedLease {
  lease: string;
  expiresAt: Date;
}

/** A lease: a short-lived JWT that lets a matchmaker run `edition` without asking again until `exp`. */
export async function signLease(
  keys: SigningKeys,
  license: { id: string; edition: Edition },
  now: Date,
  ttlSeconds: number,
): Promise<SignedLease> {
  const key = await keys.active();
  const iat = Math.floor(now.getTime() / 1000);
  const claims: LeaseClaims = {
    iss: LEASE_ISSUER,
    aud: LEASE_AUDIENCE,
    sub: license.id,
    edition: license.edition,
    iat,
    exp: iat + ttlSeconds,
  };
  const lease = await signJwt(key, { ...claims });
  return { lease, expiresAt: new Date(claims.exp * 1000) };
}
