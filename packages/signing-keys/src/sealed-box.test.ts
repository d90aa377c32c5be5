import { describe, expect, it } from "@jest/globals";
import { deriveSealingKey, open, seal } from "./sealed-box.js";

const key = deriveSealingKey("a-long-enough-signing-key-secret-0123456789", "arena-test");

describe("sealed box", () => {
  it("opens what it sealed", () => {
    expect(open(seal("private jwk", key, "kid-1"), key, "kid-1")).toBe("private jwk");
  });

  it("does not contain the plaintext", () => {
    expect(seal("very secret private key material", key, "kid-1")).not.toContain("secret");
  });

  it("refuses to open with another secret", () => {
    const other = deriveSealingKey("another-long-enough-signing-key-secret-987654", "arena-test");
    expect(() => open(seal("x", key, "kid-1"), other, "kid-1")).toThrow();
  });

  it("refuses to open with the same secret of another service", () => {
    const other = deriveSealingKey("a-long-enough-signing-key-secret-0123456789", "arena-other");
    expect(() => open(seal("x", key, "kid-1"), other, "kid-1")).toThrow();
  });

  it("refuses to open a value sealed for another key id", () => {
    expect(() => open(seal("x", key, "kid-1"), key, "kid-2")).toThrow();
  });

  it("refuses a tampered ciphertext", () => {
    const sealed = seal("some plaintext", key, "kid-1");
    // Flip the second-to-last character, always to a different one (the last may carry padding bits).
    const at = sealed.length - 2;
    const tampered = `${sealed.slice(0, at)}${sealed[at] === "A" ? "B" : "A"}${sealed.slice(at + 1)}`;
    expect(tampered).not.toBe(sealed);
    expect(() => open(tampered, key, "kid-1")).toThrow();
  });
});
