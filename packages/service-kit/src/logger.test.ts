import { Writable } from "node:stream";
import { describe, expect, it } from "@jest/globals";
import { createLogger, redactKeysDeep } from "./logger.js";

const keys = new Set(["PASSWORD", "IdToken"]);

describe("redaction by key at any depth", () => {
  it("censors the named keys however deep, in objects and arrays", () => {
    const value = { a: { b: [{ c: { PASSWORD: "p" } }, { IdToken: "t", keep: 1 }] }, PASSWORD: "q" };
    expect(redactKeysDeep(value, keys)).toEqual({
      a: { b: [{ c: { PASSWORD: "[redacted]" } }, { IdToken: "[redacted]", keep: 1 }] },
      PASSWORD: "[redacted]",
    });
    expect(value.PASSWORD).toBe("q");
  });

  it("returns the same object when there is nothing to censor", () => {
    const value = { a: { b: [1, 2, { c: "d" }] } };
    expect(redactKeysDeep(value, keys)).toBe(value);
  });

  it("cuts structures deeper than its limit instead of walking them forever", () => {
    const deep: Record<string, unknown> = {};
    let node = deep;
    for (let i = 0; i < 100; i++) node = node.next = {} as Record<string, unknown>;
    node.PASSWORD = "hidden";
    expect(JSON.stringify(redactKeysDeep(deep, keys))).not.toContain("hidden");
  });

  it("is applied by a logger given redactKeys", () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = createLogger({ name: "t", destination, redactKeys: ["PASSWORD"] });
    logger.info({ body: { AuthParameters: { PASSWORD: "s3cret-value" } } }, "login");
    expect(lines.join("")).not.toContain("s3cret-value");
    expect(lines.join("")).toContain("[redacted]");
  });
});
