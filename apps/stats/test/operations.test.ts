import { HOSTED_OPERATIONS, INTERNAL_OPERATIONS } from "@arena/contracts";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createHarness, type Harness } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** Every `METHOD /path` the app's routers serve (express 5's router stacks, walked). */
function servedRoutes(stack: readonly Layer[]): string[] {
  return stack.flatMap((layer) => {
    if (layer.route) {
      return Object.keys(layer.route.methods)
        .filter((m) => m !== "_all")
        .map((m) => `${m.toUpperCase()} ${layer.route!.path}`);
    }
    return layer.handle?.stack ? servedRoutes(layer.handle.stack) : [];
  });
}

/** The service kit's own routes, served by every app. */
const KIT_ROUTES = ["GET /livez", "GET /readyz", "GET /metrics"];

describe("the routes stats serves", () => {
  it("are exactly the action table's and the internal table's operations", () => {
    const app = h.stats.app as unknown as { router: { stack: Layer[] } };
    const served = servedRoutes(app.router.stack).filter((r) => !KIT_ROUTES.includes(r));
    const listed = [...HOSTED_OPERATIONS, ...INTERNAL_OPERATIONS].map(
      (op) => `${op.method} ${op.path.replace(/\{(\w+)\}/g, ":$1")}`,
    );
    expect([...served].sort()).toEqual([...listed].sort());
  });

  it("refuses a path parameter by the table's rule: a match id that is no UUID, on every match route", async () => {
    await h
      .as("acme")
      .put("/games/duel", { numTeams: 2, numPlayersPerTeam: 1, servers: ["eu-1"] })
      .expect(200);
    for (const [method, path] of [
      ["get", "/games/duel/matches/not-a-uuid"],
      ["post", "/games/duel/matches/not-a-uuid/statuses/confirmed"],
      ["post", "/games/duel/matches/not-a-uuid/statuses/completed"],
    ] as const) {
      const res = await h.as("acme")[method](path).send({ teams: [] });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([expect.objectContaining({ pointer: "/matchId" })]);
    }
  });

  it("answers a role the table does not allow with 403, before reading the body", async () => {
    const res = await h.as("acme", "server").put("/games/duel").send("not json at all");
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("FORBIDDEN");
  });

  it("refuses a query parameter the operation does not declare, naming it", async () => {
    const res = await h.as("acme").delete("/games/duel/players/p1?force=maybe&sort=asc");
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(["/force", "/sort"]);
  });
});
