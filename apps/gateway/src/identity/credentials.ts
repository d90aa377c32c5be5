import { normalizeUsername } from "./identity-store.js";
import { hashPassword, type ScryptCost } from "./passwords.js";
import { createVerifier, type SrpVerifier } from "./srp.js";

/**
 * USER_ID_FOR_SRP, the name a user's SRP verifier and proofs are computed with: its lookup form
 * (NFC, lower case), whatever spelling the client logs in with. The challenge of an unknown name
 * carries the same form of the name sent, so the answer never shows whether a user exists.
 */
export const srpUserId = (username: string) => normalizeUsername(username);

/** The SRP verifier of a user's password in its tenant's user pool. */
export const srpVerifierOf = (poolName: string, username: string, password: string): SrpVerifier =>
  createVerifier(poolName, srpUserId(username), password);

/**
 * What is stored whenever a password is set: its scrypt hash (USER_PASSWORD_AUTH) and its SRP
 * verifier (USER_SRP_AUTH). Setting a password anywhere goes through here, so both always agree.
 */
export async function passwordCredentials(
  password: string,
  user: { username: string; poolName: string },
  cost: ScryptCost,
): Promise<{ passwordHash: string; srp: SrpVerifier }> {
  return {
    passwordHash: await hashPassword(password, cost),
    srp: srpVerifierOf(user.poolName, user.username, password),
  };
}
