import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { decodeJwt } from "jose";
import { loadGatewayConfig } from "../src/config.js";
import { createHarness, type Harness } from "./harness.js";

/** ID_TOKEN_SECONDS: short-lived tokens for clients that renew (the SDK's e2e test runs with 5 s). */
let h: Harness;
let clientId: string;
beforeAll(async () => {
  h = await createHarness({ env: { ID_TOKEN_SECONDS: "5" } });
  clientId = await h.createTenant("acme");
  await h.createUser("acme", "server-eu");
});
afterAll(async () => {
  await h?.close();
});

describe("ID_TOKEN_SECONDS", () => {
  it("sets the tokens' lifetime and ExpiresIn; the token works until then and is refused after", async () => {
    const tokens = await h.login("server-eu", clientId);
    expect(tokens.ExpiresIn).toBe(5);
    const claims = decodeJwt(tokens.IdToken);
    expect((claims.exp as number) - (claims.iat as number)).toBe(5);
    await h.http.get("/seasons").set("Authorization", tokens.IdToken).expect(200);
    h.clock.advance(5_001);
    const expired = await h.http.get("/seasons").set("Authorization", tokens.IdToken);
    expect(expired.status).toBe(401);
    expect(expired.body.detail).toMatch(/expired/);
  });

  it("is an integer from 5 to 3600, 3600 by default", () => {
    const { env } = h;
    expect(loadGatewayConfig({ ...env, ID_TOKEN_SECONDS: undefined }).ID_TOKEN_SECONDS).toBe(3600);
    expect(loadGatewayConfig({ ...env, ID_TOKEN_SECONDS: "3600" }).ID_TOKEN_SECONDS).toBe(3600);
    for (const bad of ["4", "3601", "7.5", "soon"]) {
      expect(() => loadGatewayConfig({ ...env, ID_TOKEN_SECONDS: bad })).toThrow(/ID_TOKEN_SECONDS/);
    }
  });
});
