import { AppError } from "@arena/service-kit";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { runAdminCli, UsageError } from "../src/tenants/admin-cli.js";
import { createHarness, type Harness, PASSWORD } from "./harness.js";

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
