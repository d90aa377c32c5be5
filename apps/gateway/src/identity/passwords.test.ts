import { describe, expect, it } from "@jest/globals";
import { hashPassword, verifyPassword } from "./passwords.js";

const cost = { logN: 14 };

describe("password hashes", () => {
  it("verify the password they were made from and no other", async () => {
    const stored = await hashPassword("correct horse battery staple", cost);
    expect(await verifyPassword("correct horse battery staple", stored)).toBe(true);
    expect(await verifyPassword("correct horse battery stapler", stored)).toBe(false);
  });

  it("are salted: the same password hashes differently each time", async () => {
    expect(await hashPassword("same password", cost)).not.toBe(await hashPassword("same password", cost));
  });

  it("carry their parameters and never contain the password", async () => {
    const stored = await hashPassword("visible-password", cost);
    expect(stored).toMatch(/^scrypt\$14\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(stored).not.toContain("visible-password");
  });

  it("verify a hash made with another cost, so raising the cost keeps old users", async () => {
    const old = await hashPassword("p4ssword-from-before", { logN: 15 });
    expect(await verifyPassword("p4ssword-from-before", old)).toBe(true);
  });

  it("never match a malformed stored hash", async () => {
    for (const stored of ["", "scrypt$", "bcrypt$14$8$1$abc$def", "plain-password"]) {
      expect(await verifyPassword("plain-password", stored)).toBe(false);
    }
  });

  it("treat composed and decomposed Unicode alike (NFC)", async () => {
    const stored = await hashPassword("caf\u00e9-password", cost);
    expect(await verifyPassword("cafe\u0301-password", stored)).toBe(true);
  });
});
