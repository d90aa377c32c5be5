import { AppError } from "@arena/service-kit";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { runAdminCli, UsageError } from "../src/tenants/admin-cli.js";
import { adminAuth, createHarness, type Harness, PASSWORD } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

async function cli(...argv: string[]): Promise<unknown> {
  const printed: unknown[] = [];
  await runAdminCli(argv, {
    admin: h.gateway.admin,
    signingKeys: () => h.gateway.signingKeys,
    readPassword: async () => PASSWORD,
    print: (value) => printed.push(value),
  });
  return printed[0];
}

describe("the admin CLI", () => {
  it("sets up a tenant a game server can log in to, through the same code as the API", async () => {
    expect(await cli("create-tenant", "cli-studio", "--name", "CLI Studio")).toMatchObject({
      tenantId: "cli-studio",
      // The user pool id a Cognito client configures: the default region, the derived name.
      userPoolId: expect.stringMatching(/^eu-west-1_[0-9a-f]{12}$/),
    });
    expect(await cli("show-tenant", "cli-studio")).toMatchObject({
      userPoolId: expect.stringMatching(/^eu-west-1_[0-9a-f]{12}$/),
    });
    const { clientId } = (await cli("create-client", "cli-studio", "--name", "servers")) as {
      clientId: string;
    };
    expect(
      await cli("create-user", "cli-studio", "--username", "cli-server", "--role", "server"),
    ).toMatchObject({
      username: "cli-server",
      role: "server",
      disabled: false,
    });
    await h.login("cli-server", clientId);
    expect(await cli("list-users", "cli-studio")).toMatchObject({ users: [{ username: "cli-server" }] });
    expect(await cli("revoke-refresh-tokens", "cli-studio", "cli-server")).toEqual({ revoked: 1 });
    expect(await cli("disable-user", "cli-studio", "cli-server")).toMatchObject({ disabled: true });
    await expect(h.login("cli-server", clientId)).rejects.toThrow(/User is disabled/);
    expect(await cli("enable-user", "cli-studio", "cli-server")).toMatchObject({ disabled: false });
    expect(await cli("rotate-signing-key")).toEqual({
      kid: expect.any(String),
      createdAt: expect.any(String),
    });
  });

  it("shows a tenant's limits in force and sets its own, a number or back to the default", async () => {
    await cli("create-tenant", "cli-limits", "--name", "Limits");
    expect(await cli("show-tenant", "cli-limits")).toMatchObject({
      limits: { requests: 6000, windowSeconds: 60, webSocketConnections: 1000 },
      overrides: { requests: null, windowSeconds: null, webSocketConnections: null },
    });
    await cli("set-tenant-limits", "cli-limits", "--requests", "500", "--websocket-connections", "20");
    expect(
      await cli("set-tenant-limits", "cli-limits", "--window-seconds", "30", "--requests", "default"),
    ).toMatchObject({
      limits: { requests: 6000, windowSeconds: 30, webSocketConnections: 20 },
      overrides: { requests: null, windowSeconds: 30, webSocketConnections: 20 },
    });
    // The API answers the same, from the same store.
    const api = await h.http.get("/admin/tenants/cli-limits").set(adminAuth).expect(200);
    expect(api.body.overrides).toEqual({ requests: null, windowSeconds: 30, webSocketConnections: 20 });

    const bad = await cli("set-tenant-limits", "cli-limits", "--requests", "lots").catch(
      (err: AppError) => err,
    );
    expect(bad).toBeInstanceOf(AppError);
    expect((bad as AppError).errors).toEqual([
      { pointer: "/limits/requests", detail: "must be integer,null" },
    ]);
    await expect(cli("set-tenant-limits", "cli-limits")).rejects.toBeInstanceOf(UsageError);
    await expect(cli("set-tenant-limits", "cli-limits", "--requests", "-5")).rejects.toBeInstanceOf(
      UsageError,
    );
    await expect(cli("show-tenant", "no-such-tenant")).rejects.toThrow(/No tenant/);
  });

  it("reports what the API would refuse, and usage mistakes apart", async () => {
    await expect(cli("create-tenant", "Bad Id", "--name", "x")).rejects.toBeInstanceOf(AppError);
    await expect(cli("create-client", "no-such-tenant", "--name", "x")).rejects.toThrow(/No tenant/);
    await expect(
      cli("create-user", "cli-studio", "--username", "u", "--role", "root"),
    ).rejects.toBeInstanceOf(UsageError);
    await expect(cli("frobnicate")).rejects.toBeInstanceOf(UsageError);
    await expect(cli()).rejects.toBeInstanceOf(UsageError);
  });
});
