import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BASE_PORTS } from "../../scripts/platform-wiring.mjs";
import {
  banner,
  dropDatabases,
  dropRedisKeys,
  freeOffset,
  interrupt,
  serverUrl,
  spawnStart,
} from "./npm-start.js";

type App = keyof typeof BASE_PORTS;

export interface DevUser {
  username: string;
  password: string;
}

/** A platform started by `npm start`, with the development tenant it creates and its secrets. */
export interface DevPlatform {
  /** Added to every port: the READMEs' `localhost:8080` is `127.0.0.1:<8080 + offset>` here. */
  offset: number;
  url(app: App): string;
  clientId: string;
  /** The tenant `dev`'s admin user (configures games and seasons) and its game-server user. */
  admin: DevUser;
  server: DevUser;
  adminToken: string;
  signingKeySecret: string;
  /** The settings an app's admin CLI reads (DATABASE_URL, REDIS_URL, REDIS_KEY_PREFIX), as `npm start` gives them. */
  cliEnvironment(app: "license" | "gateway"): Record<string, string>;
  close(): Promise<void>;
}

interface SecretsFile {
  adminToken: string;
  signingKeySecret: string;
  gatewayClientId: string;
  gatewayUsername: string;
  gatewayPassword: string;
  gatewayServerUsername: string;
  gatewayServerPassword: string;
}

/**
 * `npm start` in a dev directory of its own, on a free port offset and a database prefix of its
 * own; resolves once its banner is out, with the tenant `dev` it created (from the secrets file
 * it keeps, the same values the banner prints).
 */
export async function startDevPlatform(): Promise<DevPlatform> {
  const devDir = await mkdtemp(join(tmpdir(), "arena-readme-"));
  const offset = await freeOffset();
  const prefix = `arena_readme_${randomBytes(4).toString("hex")}_`;
  const redisKeyPrefix = `${prefix.replace(/_+$/, "")}:`;
  const run = spawnStart(["--no-build"], devDir, {
    ARENA_PORT_OFFSET: String(offset),
    ARENA_DATABASE_PREFIX: prefix,
    LOG_LEVEL: "warn",
  });
  const close = async () => {
    await interrupt(run);
    await dropDatabases(["license", "stats", "gateway"].map((app) => `${prefix}${app}`)).catch(() => {});
    dropRedisKeys(redisKeyPrefix);
    await rm(devDir, { recursive: true, force: true });
  };
  try {
    await banner(run, 240_000);
  } catch (err) {
    await close();
    throw err;
  }
  const secrets = JSON.parse(await readFile(join(devDir, "secrets.json"), "utf8")) as SecretsFile;
  const database = new URL(serverUrl);
  return {
    offset,
    url: (app) => `http://127.0.0.1:${BASE_PORTS[app] + offset}`,
    clientId: secrets.gatewayClientId,
    admin: { username: secrets.gatewayUsername, password: secrets.gatewayPassword },
    server: { username: secrets.gatewayServerUsername, password: secrets.gatewayServerPassword },
    adminToken: secrets.adminToken,
    signingKeySecret: secrets.signingKeySecret,
    cliEnvironment(app) {
      database.pathname = `/${prefix}${app}`;
      return {
        DATABASE_URL: database.toString(),
        REDIS_URL: process.env.REDIS_URL || "redis://127.0.0.1:6379",
        REDIS_KEY_PREFIX: redisKeyPrefix,
      };
    },
    close,
  };
}

/** An IdToken of `user`, by the Cognito `InitiateAuth` call a game server makes. */
export async function logIn(platform: DevPlatform, user: DevUser): Promise<string> {
  const res = await fetch(`${platform.url("gateway")}/auth/`, {
    method: "POST",
    headers: {
      "X-Amz-Target": "AWSCognitoIdentityProviderService.InitiateAuth",
      "Content-Type": "application/x-amz-json-1.1",
    },
    body: JSON.stringify({
      AuthFlow: "USER_PASSWORD_AUTH",
      ClientId: platform.clientId,
      AuthParameters: { USERNAME: user.username, PASSWORD: user.password },
    }),
  });
  if (!res.ok) throw new Error(`log-in answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { AuthenticationResult: { IdToken: string } }).AuthenticationResult.IdToken;
}
