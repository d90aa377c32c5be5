import { describe, expect, it } from "@jest/globals";
import request from "supertest";
import { asAppError, createLogger, createServiceApp, isDependencyUnreachable } from "../src/index.js";

// The shapes below are the errors the stats service logged while its PostgreSQL was stopped and
// restarted (e2e/test/faults.test.ts): node-postgres's, and Prisma 7's around its pg adapter.
const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
const shuttingDown = Object.assign(new Error("the database system is shutting down"), {
  code: "57P03",
  severity: "FATAL",
});
const adminShutdown = Object.assign(new Error("terminating connection due to administrator command"), {
  code: "57P01",
});
const terminated = new Error("Connection terminated unexpectedly");
const prismaUnreachable = Object.assign(new Error("Invalid `prisma.game.findUnique()` invocation"), {
  code: "P1001",
  meta: { driverAdapterError: { name: "DriverAdapterError", cause: { kind: "DatabaseNotReachable" } } },
});
const prismaRaw = Object.assign(new Error("Raw query failed. Code: `N/A`."), {
  code: "P2010",
  meta: { driverAdapterError: { name: "DriverAdapterError", cause: { kind: "ConnectionClosed" } } },
});

describe("isDependencyUnreachable", () => {
  it.each([
    ["a refused connection", refused],
    ["a server shutting down", shuttingDown],
    ["a connection terminated by the server", adminShutdown],
    ["a connection lost without a code", terminated],
    ["Prisma's unreachable server", prismaUnreachable],
    ["Prisma's raw query on a closed connection", prismaRaw],
    ["one wrapped as a cause", new Error("query failed", { cause: refused })],
  ])("recognises %s", (_name, err) => {
    expect(isDependencyUnreachable(err)).toBe(true);
  });

  it.each([
    ["a plain bug", new TypeError("cannot read properties of undefined")],
    ["a unique violation", Object.assign(new Error("duplicate key"), { code: "23505" })],
    ["a Prisma record not found", Object.assign(new Error("not found"), { code: "P2025" })],
    ["a syntax error", Object.assign(new Error("syntax error"), { code: "42601" })],
    ["no error at all", undefined],
  ])("leaves %s alone", (_name, err) => {
    expect(isDependencyUnreachable(err)).toBe(false);
  });

  it("maps to 503 with Retry-After, and everything else stays a 500", () => {
    const unavailable = asAppError(prismaUnreachable);
    expect(unavailable.status).toBe(503);
    expect(unavailable.code).toBe("SERVICE_UNAVAILABLE");
    expect(unavailable.headers?.["Retry-After"]).toBe("2");
    expect(asAppError(new Error("bug")).status).toBe(500);
  });

  it("answers a route whose database is down with a 503 problem, not a 500", async () => {
    const { app } = createServiceApp({
      name: "test",
      logger: createLogger({ name: "test", level: "silent" }),
      bodyLimit: 1024,
      routes(app) {
        app.get("/down", async () => {
          throw shuttingDown;
        });
      },
    });
    const res = await request(app).get("/down");
    expect(res.status).toBe(503);
    expect(res.headers["retry-after"]).toBe("2");
    expect(res.body.code).toBe("SERVICE_UNAVAILABLE");
  });
});
