import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "@jest/globals";
import {
  APPS,
  appEnvironment,
  BASE_PORTS,
  DATABASE_APPS,
  NODE_FLAGS,
  type PlatformWiring,
  platformPorts,
} from "../../scripts/platform-wiring.mjs";
import { appConfig } from "../src/app-config.js";
import { imageStages, parseAssignments, parseDockerfile } from "../src/dockerfile.js";

/**
 * The one description of how the platform is wired (scripts/platform-wiring.mjs), which
 * `npm start`, the end-to-end platform and the benchmarks start the apps from, checked against
 * each app's own config schema (its build) and its image (the Dockerfile's stage for it).
 */
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

const everything: PlatformWiring = {
  ports: platformPorts(100),
  secrets: {
    adminToken: "wiring-admin-token-0123456789",
    serviceToken: "wiring-service-token-0123456789",
    signingKeySecret: "wiring-signing-key-secret-0123456789abcdef",
    licenseKey: "lk_wiring",
  },
  databaseUrls: Object.fromEntries(
    DATABASE_APPS.map((app) => [app, `postgresql://postgres@127.0.0.1:5432/wiring_${app}`]),
  ),
  redisUrl: "redis://127.0.0.1:6379",
  redisKeyPrefix: "wiring:",
  mailDir: "/tmp/wiring-mail",
  host: "127.0.0.1",
  logLevel: "warn",
};

describe("the platform's wiring", () => {
  it.each(APPS)(
    "gives %s only settings its config knows, every one it requires, and a configuration it accepts",
    async (app) => {
      const env = appEnvironment(app, everything);
      const { schema, load } = await appConfig(app);
      const unknown = Object.keys(env).filter((name) => !(name in schema.properties));
      expect(unknown).toEqual([]);
      const missing = schema.required.filter((name) => env[name] === undefined);
      expect(missing).toEqual([]);
      const config = load(env);
      expect(config.PORT).toBe(everything.ports[app]);
      // Without an offset, the app's own default port is the platform's.
      expect(schema.properties.PORT?.default).toBe(BASE_PORTS[app]);
    },
  );

  it("points every address at the app that serves it, on its port", () => {
    const url = (app: keyof typeof BASE_PORTS) => `http://127.0.0.1:${BASE_PORTS[app] + 100}`;
    expect(appEnvironment("matchmaker", everything).LICENSE_URL).toBe(url("license"));
    expect(appEnvironment("stats", everything).MATCHMAKER_URL).toBe(url("matchmaker"));
    expect(appEnvironment("gateway", everything).STATS_URL).toBe(url("stats"));
    expect(appEnvironment("gateway", everything).PUBLIC_URL).toBe(url("gateway"));
    expect(appEnvironment("license", everything).PUBLIC_URL).toBe(url("license"));
    for (const app of APPS) {
      const env = appEnvironment(app, everything);
      expect(env.PORT).toBe(String(everything.ports[app]));
      if (DATABASE_APPS.includes(app as never))
        expect(env.DATABASE_URL).toBe(everything.databaseUrls![app as "stats"]);
      else expect(env.DATABASE_URL).toBeUndefined();
    }
  });

  it("gives stats and the gateway one Redis, one key prefix and one service token", () => {
    const stats = appEnvironment("stats", everything);
    const gateway = appEnvironment("gateway", everything);
    for (const name of ["REDIS_URL", "REDIS_KEY_PREFIX", "SERVICE_TOKEN"]) {
      expect(stats[name]).toBeDefined();
      expect(gateway[name]).toBe(stats[name]);
    }
  });

  it("leaves out what a partial platform lacks, and refuses an app it does not run", () => {
    const partial: PlatformWiring = {
      ports: { stats: 18081, gateway: 18080 },
      secrets: { adminToken: "a", serviceToken: "s", signingKeySecret: "k" },
    };
    const stats = appEnvironment("stats", partial);
    expect(stats).toEqual({ PORT: "18081", SERVICE_TOKEN: "s" });
    expect(appEnvironment("gateway", partial).STATS_URL).toBe("http://127.0.0.1:18081");
    expect(() => appEnvironment("matchmaker", partial)).toThrow("matchmaker has no port");
  });

  it("adds an offset to every port", () => {
    expect(platformPorts()).toEqual({ ...BASE_PORTS });
    expect(platformPorts(100)).toEqual({ license: 8182, matchmaker: 8100, stats: 8181, gateway: 8180 });
  });

  it.each(APPS)("matches the %s image: its PORT, EXPOSE and Node.js flags", (app) => {
    const file = parseDockerfile(readFileSync(join(root, "Dockerfile"), "utf8"));
    const env: Record<string, string> = {};
    const expose: string[] = [];
    for (const stage of imageStages(file, { APP: app }))
      for (const ins of stage.instructions) {
        if (ins.keyword === "ENV") Object.assign(env, Object.fromEntries(parseAssignments(ins.args, env)));
        if (ins.keyword === "EXPOSE") expose.push(...ins.args.split(/\s+/));
      }
    expect(env.PORT).toBe(String(BASE_PORTS[app]));
    expect(expose).toEqual([String(BASE_PORTS[app])]);
    expect(env.NODE_OPTIONS?.split(" ") ?? []).toEqual(NODE_FLAGS[app]);
  });
});
