import { describe, expect, it } from "@jest/globals";
import { safely } from "../src/hooks.js";

describe("safely", () => {
  it("calls the hook with its arguments", () => {
    const seen: unknown[][] = [];
    safely((a: string, b: number) => seen.push([a, b]), "call", 3);
    expect(seen).toEqual([["call", 3]]);
  });

  it("swallows what a hook throws, so monitoring never fails a call", () => {
    let called = false;
    expect(() =>
      safely(() => {
        called = true;
        throw new Error("dashboard down");
      }),
    ).not.toThrow();
    expect(called).toBe(true);
  });

  it("does nothing when the hook is not set", () => {
    expect(() => safely(undefined)).not.toThrow();
  });
});
