import { describe, expect, it } from "@jest/globals";
import { expressPath, fillPath, HOSTED_OPERATIONS, operationOfAction } from "./actions.js";
import { INTERNAL_OPERATIONS, internalOperation } from "./internal-operations.js";
import { MESSAGE_ACTIONS } from "./messages.js";
import { SCHEMA_NAMES } from "./schema-registry.js";

describe("the action table", () => {
  it("names each operation and each method and path once", () => {
    const ids = HOSTED_OPERATIONS.map((op) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const routes = HOSTED_OPERATIONS.map((op) => `${op.method} ${op.path}`);
    expect(new Set(routes).size).toBe(routes.length);
  });

  it("refers only to registered schemas", () => {
    for (const op of HOSTED_OPERATIONS) {
      const names = [
        ...("body" in op ? [op.body] : []),
        ...Object.values(op.answers).filter((n): n is NonNullable<typeof n> => n !== null),
      ];
      for (const name of names) expect(SCHEMA_NAMES).toContain(name);
    }
  });

  it("declares every path parameter, and only those", () => {
    for (const op of HOSTED_OPERATIONS) {
      const inPath = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      expect(Object.keys(op.params).sort()).toEqual(inPath.sort());
    }
  });

  it("maps every WebSocket action but subscribe to one REST operation", () => {
    for (const action of MESSAGE_ACTIONS) {
      if (action === "subscribe") expect(operationOfAction(action)).toBeUndefined();
      else expect(operationOfAction(action)?.action).toBe(action);
    }
  });

  it("turns OpenAPI paths into express paths", () => {
    expect(expressPath("/games/{gameId}/matches/{matchId}")).toBe("/games/:gameId/matches/:matchId");
  });
});

describe("the internal operations", () => {
  it("name each operation and route once, apart from the hosted ones", () => {
    const routes = [...HOSTED_OPERATIONS, ...INTERNAL_OPERATIONS].map((op) => `${op.method} ${op.path}`);
    expect(new Set(routes).size).toBe(routes.length);
    for (const op of INTERNAL_OPERATIONS) expect(op.path.startsWith("/internal/")).toBe(true);
  });

  it("declare every path parameter and refer only to registered schemas", () => {
    for (const op of INTERNAL_OPERATIONS) {
      const inPath = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      expect(Object.keys(op.params).sort()).toEqual(inPath.sort());
      const names = [...("body" in op ? [op.body] : []), ...Object.values(op.answers)].filter(
        (n) => n !== null,
      );
      for (const name of names) expect(SCHEMA_NAMES).toContain(name);
    }
  });

  it("fill a path's parameters, encoded", () => {
    expect(fillPath(internalOperation("connectionClosed").path, { connectionId: "a/b c" })).toBe(
      "/internal/connections/a%2Fb%20c/closed",
    );
  });
});
