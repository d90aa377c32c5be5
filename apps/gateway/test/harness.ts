import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createTestDatabase, type TestDatabase } from "@arena/database/testing";
import { closeRedis, createRedis } from "@arena/redis";
import { createTestRedis, type TestRedis } from "@arena/redis/testing";
import { createLogger, LogCapture, ManualClock as TestClock } from "@arena/service-kit";
import supertest from "supertest";
import { createApp, GATEWAY_REDACTED_KEYS, type GatewayApp } from "../src/app.js";
import { loadGatewayConfig } from "../src/config.js";
import { createDatabaseClient, type Database } from "../src/db.js";
import { INITIATE_AUTH_TARGET } from "../src/identity/cognito-routes.js";
import { migrationsDir, schemaPath } from "../src/schema-version.js";
import { type StatsStub, startStatsStub } from "./stats-stub.js";

/** Harness names for the kit's test helpers, so the tests read as before. */
export { LogCapture, TestClock };

export const ADMIN_TOKEN = "test-admin-token-0123456789";
export const SERVICE_TOKEN = "test-service-token-0123456789";
export const SIGNING_KEY_SECRET = "test-signing-key-secret-0123456789abcdef";
export const PASSWORD = "correct horse battery staple";

export interface Instance {
  gateway: GatewayApp;
  db: Database;
  http: ReturnType<typeof supertest>;
  /** Listens on an ephemeral port (for clients that need a real address, like the AWS SDK). */
  listen(): Promise<string>;
  close(): Promise<void>;
}

export interface Tokens {
  IdToken: string;
  AccessToken: string;
  RefreshToken: string;
  ExpiresIn: number;
}

export interface Harness extends Instance {
  database: TestDatabase;
  redis: TestRedis;
  stats: StatsStub;
  clock: TestClock;
  logs: LogCapture;
  env: Record<string, string>;
  /** Another gateway (a replica, or one with other settings) on the same database and Redis. */
  startInstance(env?: Record<string, string>): Promise<Instance>;
  /** A tenant with one app client; answers the client id. */
  createTenant(tenantId: string): Promise<string>;
  createUser(tenantId: string, username: string, role?: "server" | "admin"): Promise<void>;
  /** InitiateAuth USER_PASSWORD_AUTH; the raw supertest answer. */
  initiateAuth(body: object, ip?: string): supertest.Test;
  login(username: string, clientId: string, password?: string): Promise<Tokens>;
  close(): Promise<void>;
}

let ipCounter = 0;
/** A fresh client address per call, so login throttling never leaks between tests. */
export function nextIp(): string {
  ipCounter++;
  return `198.51.${Math.floor(ipCounter / 250)}.${(ipCounter % 250) + 1}`;
}

export const adminAuth = { Authorization: `Bearer ${ADMIN_TOKEN}` };

export async function createHarness(options: { env?: Record<string, string> } = {}): Promise<Harness> {
  const database = await createTestDatabase({ schemaPath, migrationsDir, prefix: "gateway_test" });
  const redis = await createTestRedis("gateway_test");
  const stats = await startStatsStub();
  const clock = new TestClock();
  const logs = new LogCapture();
  const env: Record<string, string> = {
    DATABASE_URL: database.url,
    REDIS_URL: redis.url,
    REDIS_KEY_PREFIX: redis.prefix,
    STATS_URL: stats.url,
    ADMIN_TOKEN,
    SERVICE_TOKEN,
    SIGNING_KEY_SECRET,
    PASSWORD_SCRYPT_LOG_N: "14",
    // supertest connects from 127.0.0.1: believe its X-Forwarded-For, so tests choose addresses.
    TRUST_PROXY: "loopback",
    LOG_LEVEL: "debug",
    PUBLIC_URL: "http://gateway.test",
    ...options.env,
  };
  const instances: Instance[] = [];
  const servers: Server[] = [];

  const startInstance = async (extra: Record<string, string> = {}): Promise<Instance> => {
    const config = loadGatewayConfig({ ...env, ...extra });
    const db = createDatabaseClient(config.DATABASE_URL);
    const logger = createLogger({
      name: "gateway",
      level: config.LOG_LEVEL,
      destination: logs,
      redactKeys: GATEWAY_REDACTED_KEYS,
    });
    // The run's Redis, or (a test of a Redis outage) whatever REDIS_URL the instance was given.
    const client = extra.REDIS_URL ? createRedis(extra.REDIS_URL) : redis.client();
    const gateway = createApp({ db, redis: client, clock, config, logger });
    const instance: Instance = {
      gateway,
      db,
      http: supertest(gateway.app),
      async listen() {
        const server = gateway.app.listen(0, "127.0.0.1");
        await new Promise<void>((resolve) => server.once("listening", resolve));
        servers.push(server);
        return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      },
      async close() {
        await gateway.close();
        await db.$disconnect();
        if (extra.REDIS_URL) await closeRedis(client);
      },
    };
    instances.push(instance);
    return instance;
  };

  const main = await startInstance();
  const initiateAuth = (body: object, ip = nextIp()) =>
    main.http
      .post("/auth/")
      .set("X-Amz-Target", INITIATE_AUTH_TARGET)
      .set("Content-Type", "application/x-amz-json-1.1")
      .set("X-Forwarded-For", ip)
      .send(JSON.stringify(body));
  return {
    ...main,
    database,
    redis,
    stats,
    clock,
    logs,
    env,
    startInstance,
    initiateAuth,
    async createTenant(tenantId) {
      await main.http
        .post("/admin/tenants")
        .set(adminAuth)
        .send({ tenantId, name: `Tenant ${tenantId}` })
        .expect(201);
      const client = await main.http
        .post(`/admin/tenants/${tenantId}/clients`)
        .set(adminAuth)
        .send({ name: "game servers" })
        .expect(201);
      return client.body.clientId as string;
    },
    async createUser(tenantId, username, role = "server") {
      await main.http
        .post(`/admin/tenants/${tenantId}/users`)
        .set(adminAuth)
        .send({ username, password: PASSWORD, role })
        .expect(201);
    },
    async login(username, clientId, password = PASSWORD) {
      const res = await initiateAuth({
        AuthFlow: "USER_PASSWORD_AUTH",
        AuthParameters: { USERNAME: username, PASSWORD: password },
        ClientId: clientId,
      });
      if (res.status !== 200) throw new Error(`login answered ${res.status}: ${res.text}`);
      return JSON.parse(res.text).AuthenticationResult as Tokens;
    },
    async close() {
      for (const server of servers) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
      for (const instance of instances) await instance.close().catch(() => {});
      await stats.close();
      await redis.cleanup();
      await database.drop();
    },
  };
}
