import { randomBytes, randomInt } from "node:crypto";

const CLIENT_ID_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

/** An app client id shaped like Cognito's: 26 lowercase letters and digits (~134 bits). */
export function newClientId(): string {
  let id = "";
  // randomInt draws without modulo bias.
  for (let i = 0; i < 26; i++) id += CLIENT_ID_ALPHABET[randomInt(CLIENT_ID_ALPHABET.length)];
  return id;
}

/** Our ids carry a readable prefix: `usr_…` for users, `rtk_…` for refresh tokens. */
export function newId(prefix: "usr" | "rtk"): string {
  return `${prefix}_${randomBytes(15).toString("base64url")}`;
}

/** 256 random bits, base64url: a refresh token. Only its SHA-256 is stored. */
export function newSecretToken(): string {
  return randomBytes(32).toString("base64url");
}
