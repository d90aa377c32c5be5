import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { runAdminCli } from "../src/tenants/admin-cli.js";
import { adminAuth, createHarness, type Harness, nextIp, PASSWORD } from "./harness.js";

// Failed logins must not let anyone lock a user out from elsewhere: not through another tenant's
// app client, not from another address, not with a variant spelling of the name; an operator can
// lift a lock; and what a login body may hold is bounded before anything is stored or hashed.

let h: Harness;
let acme: string;
let globex: string;
beforeAll(async () => {
  h = await createHarness({
    env: {
      LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS: "3",
      LOGIN_FAILURES_PER_USERNAME: "6",
      LOGIN_FAILURE_DELAY_MAX_SECONDS: "8",
    },
  });
  acme = await h.createTenant("acme");
  globex = await h.createTenant("globex");
});
afterAll(async () => {
  await h?.close();
});

const login = (USERNAME: string, PASSWORD_: string, ClientId: string, ip: string) =>
  h.initiateAuth(
    { AuthFlow: "USER_PASSWORD_AUTH", AuthParameters: { USERNAME, PASSWORD: PASSWORD_ }, ClientId },
    ip,
  );

/** The Cognito error answered: type, message and Retry-After (seconds, when sent). */
async function answer(
  req: ReturnType<typeof login>,
): Promise<{ type: string; message?: string; retryAfter?: number }> {
  const res = await req;
  if (res.status === 200) return { type: "ok" };
  const body = JSON.parse(res.text);
  const retryAfter = res.headers["retry-after"];
  return {
    type: body.__type as string,
    message: body.message as string,
    ...(retryAfter === undefined ? {} : { retryAfter: Number(retryAfter) }),
  };
}

const WRONG = { type: "NotAuthorizedException", message: "Incorrect username or password." };

// "kåre-server" and spellings a login lookup treats as the same name: case, NFD, the Kelvin sign.
const NAME = "kåre-server";
const VARIANTS = ["KÅRE-SERVER", "ka\u030are-server", "\u212aåre-server"];

describe("failed logins through another tenant's app client", () => {
  it("never count against the user: answered like any wrong login, the user still logs in", async () => {
    await h.createUser("acme", NAME);
    const addresses = [nextIp(), nextIp(), nextIp()];
    // Five failures over three addresses, under every spelling of the name, then a sixth: even
    // the right password is just a wrong login through the other tenant's client.
    for (const [i, username] of [NAME, ...VARIANTS, NAME].entries()) {
      expect(await answer(login(username, `wrong-${i}-password`, globex, addresses[i % 3]!))).toEqual(WRONG);
    }
    expect(await answer(login(NAME, PASSWORD, globex, addresses[2]!))).toEqual(WRONG);
    expect(await answer(login(NAME, PASSWORD, acme, addresses[0]!))).toEqual({ type: "ok" });
    expect(await answer(login(VARIANTS[2]!, PASSWORD, acme, nextIp()))).toEqual({ type: "ok" });
  });
});

describe("failed logins of one user at one address", () => {
  it("lock that user at that address only, counting every spelling of the name as one", async () => {
    await h.createUser("acme", "lock-at-one");
    const here = nextIp();
    for (const [i, username] of ["LOCK-AT-ONE", "lock-at-one", "Lock-At-One"].entries()) {
      expect(await answer(login(username, `wrong-${i}-password`, acme, here))).toEqual(WRONG);
    }
    const locked = await answer(login("lock-at-one", PASSWORD, acme, here));
    expect(locked).toMatchObject({ type: "TooManyRequestsException", retryAfter: expect.any(Number) });
    expect(await answer(login("lock-at-one", PASSWORD, acme, nextIp()))).toEqual({ type: "ok" });
    // Another user at the same address is not locked either.
    await h.createUser("acme", "neighbour");
    expect(await answer(login("neighbour", PASSWORD, acme, here))).toEqual({ type: "ok" });
  });

  it("count NFD, Kelvin-sign and compatibility spellings as the same name", async () => {
    const here = nextIp();
    for (const [i, username] of ["ka\u030are-server", "\u212aÅRE-SERVER", "ｋåre-server"].entries()) {
      expect(await answer(login(username, `wrong-${i}-password`, acme, here))).toEqual(WRONG);
    }
    expect(await answer(login(NAME, PASSWORD, acme, here))).toMatchObject({
      type: "TooManyRequestsException",
    });
  });

  it("are cleared by a success there", async () => {
    await h.createUser("acme", "forgetful");
    const here = nextIp();
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 2; i++) {
        expect(await answer(login("forgetful", "wrong-password", acme, here))).toEqual(WRONG);
      }
      expect(await answer(login("forgetful", PASSWORD, acme, here))).toEqual({ type: "ok" });
    }
  });
});

describe("failed logins of one user from many addresses", () => {
  it("slow new addresses down with a growing wait, never lock, and leave known addresses alone", async () => {
    await h.createUser("acme", "spread-out");
    const home = nextIp();
    expect(await answer(login("spread-out", PASSWORD, acme, home))).toEqual({ type: "ok" });
    for (let i = 0; i < 6; i++) {
      expect(await answer(login("spread-out", "wrong-password", acme, nextIp()))).toEqual(WRONG);
    }
    const waits: number[] = [];
    for (let i = 0; i < 5; i++) {
      const refused = await answer(login("spread-out", PASSWORD, acme, nextIp()));
      expect(refused).toMatchObject({ type: "TooManyRequestsException" });
      const wait = refused.retryAfter!;
      waits.push(wait);
      // The address where the user logs in is never kept waiting by failures elsewhere.
      expect(await answer(login("spread-out", PASSWORD, acme, home))).toEqual({ type: "ok" });
      h.clock.advance(wait * 1000);
      expect(await answer(login("spread-out", "wrong-password", acme, nextIp()))).toEqual(WRONG);
    }
    expect(waits).toEqual([1, 2, 4, 8, 8]);
    // Past the wait, the right password from a new address logs in.
    h.clock.advance(8000);
    expect(await answer(login("spread-out", PASSWORD, acme, nextIp()))).toEqual({ type: "ok" });
  });
});

describe("concurrent logins", () => {
  it("cannot slip guesses past a bound, and never lock out a fleet logging in at once", async () => {
    await h.createUser("acme", "fleet-server");
    const guesser = nextIp();
    const guesses = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        answer(login("fleet-server", `wrong-${i}-password`, acme, guesser)),
      ),
    );
    expect(guesses.filter((a) => a.type === "NotAuthorizedException")).toHaveLength(3);
    expect(guesses.filter((a) => a.type === "TooManyRequestsException")).toHaveLength(5);
    // Eight servers behind one address: those past a bound still in flight are told to retry in 1 s.
    const fleet = nextIp();
    const boots = await Promise.all(
      Array.from({ length: 8 }, () => answer(login("fleet-server", PASSWORD, acme, fleet))),
    );
    for (const boot of boots) expect(boot.type === "ok" || boot.retryAfter === 1).toBe(true);
    expect(boots.some((boot) => boot.type === "ok")).toBe(true);
    for (let i = 0; i < 4; i++) {
      expect(await answer(login("fleet-server", PASSWORD, acme, fleet))).toEqual({ type: "ok" });
    }
  });
});

describe("an operator", () => {
  async function lockOut(username: string, here: string) {
    for (let i = 0; i < 3; i++) await login(username, "wrong-password", acme, here);
    expect(await answer(login(username, PASSWORD, acme, here))).toMatchObject({
      type: "TooManyRequestsException",
    });
  }

  it("clears a user's login lock over the admin API (204), 404 for no such user", async () => {
    await h.createUser("acme", "locked-out");
    const here = nextIp();
    await lockOut("locked-out", here);
    const res = await h.http.delete("/admin/tenants/acme/users/LOCKED-OUT/login-lock").set(adminAuth);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect(await answer(login("locked-out", PASSWORD, acme, here))).toEqual({ type: "ok" });
    await h.http.delete("/admin/tenants/globex/users/locked-out/login-lock").set(adminAuth).expect(404);
    await h.http.delete("/admin/tenants/acme/users/nobody/login-lock").set(adminAuth).expect(404);
    await h.http.delete("/admin/tenants/acme/users/locked-out/login-lock").expect(401);
  });

  it("clears it with the CLI", async () => {
    await h.createUser("acme", "cli-locked");
    const here = nextIp();
    await lockOut("cli-locked", here);
    const printed: unknown[] = [];
    await runAdminCli(["clear-login-lock", "acme", "CLI-LOCKED"], {
      admin: h.gateway.admin,
      signingKeys: undefined,
      readPassword: async () => PASSWORD,
      print: (value) => printed.push(value),
    });
    expect(printed).toEqual([{ tenantId: "acme", username: "cli-locked", loginLock: "cleared" }]);
    expect(await answer(login("cli-locked", PASSWORD, acme, here))).toEqual({ type: "ok" });
  });
});

describe("login bodies", () => {
  it("bound USERNAME and PASSWORD, answered with InvalidParameterException naming the parameter", async () => {
    const long = await answer(login("u".repeat(129), "wrong-password", acme, nextIp()));
    expect(long.type).toBe("InvalidParameterException");
    expect(long.message).toContain("/AuthParameters/USERNAME");
    const longPassword = await answer(login("server-x", "p".repeat(257), acme, nextIp()));
    expect(longPassword.type).toBe("InvalidParameterException");
    expect(longPassword.message).toContain("/AuthParameters/PASSWORD");
    expect(await answer(login("u".repeat(128), "p".repeat(256), acme, nextIp()))).toEqual(WRONG);
  });

  it("refuse bounds on a new user's username and password too, naming the field", async () => {
    const res = await h.http
      .post("/admin/tenants/acme/users")
      .set(adminAuth)
      .send({ username: "u".repeat(129), password: "p".repeat(257), role: "server" })
      .expect(400);
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual([
      "/password",
      "/username",
    ]);
  });

  it("never put what a client sent into Redis: twenty 1 MB usernames leave Redis as it was", async () => {
    const redis = h.redis.client();
    const usage = async () => {
      let bytes = 0;
      for (const key of await redis.keys(`${h.redis.prefix}*`)) {
        bytes += key.length + ((await redis.memory("USAGE", key)) ?? 0);
      }
      return bytes;
    };
    const before = await usage();
    for (let i = 0; i < 20; i++) {
      const huge = `${i}-${"x".repeat(1_000_000)}`;
      expect((await answer(login(huge, "wrong-password", acme, nextIp()))).type).toBe(
        "InvalidParameterException",
      );
    }
    expect((await usage()) - before).toBeLessThan(10_000);
    await login("visible-username-in-keys", "wrong-password", acme, "203.0.113.77");
    const keys = (await redis.keys(`${h.redis.prefix}*`)).join("\n");
    expect(keys).not.toContain("visible-username");
    expect(keys).not.toContain("203.0.113.77");
  });
});
