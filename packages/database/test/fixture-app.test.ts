import { spawn } from "node:child_process";
import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { runPrismaGenerate } from "../src/index.js";
import { createTestDatabase, type TestDatabase } from "../src/testing.js";
import { createPrismaClient, findPlayerByHandle, registerPlayer } from "./fixtures/app/src/player-store.js";
import { FIXTURE_APP, FIXTURE_MIGRATIONS, FIXTURE_SCHEMA } from "./support.js";

function run(command: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve(output) : reject(new Error(`${args.join(" ")}: ${output}`)),
    );
  });
}

describe("an app built on @arena/database (test/fixtures/app)", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase({ schemaPath: FIXTURE_SCHEMA, migrationsDir: FIXTURE_MIGRATIONS });
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("creates a row and reads it back through its generated client under Jest", async () => {
    const prisma = createPrismaClient(db.url);
    try {
      const created = await registerPlayer(prisma, "ada", "EU");
      const found = await findPlayerByHandle(prisma, "ada");

      expect(found).toEqual({
        id: created.id,
        handle: "ada",
        region: "EU",
        rating: 1500,
        createdAt: expect.any(Date),
      });
    } finally {
      await prisma.$disconnect();
    }
  });

  it("compiles with tsc (NodeNext) and runs as plain Node ESM", async () => {
    const outDir = path.join(FIXTURE_APP, "dist", `run-${process.pid}-${Date.now()}`);
    const require = createRequire(import.meta.url);
    const typescript = path.dirname(require.resolve("typescript/package.json"));
    const manifest = JSON.parse(await readFile(path.join(typescript, "package.json"), "utf8")) as {
      bin: Record<string, string>;
    };
    try {
      await run(
        process.execPath,
        [path.join(typescript, manifest.bin.tsc!), "-p", ".", "--outDir", outDir],
        FIXTURE_APP,
      );

      const output = await run(process.execPath, [path.join(outDir, "smoke.js"), db.url], FIXTURE_APP);

      expect(JSON.parse(output)).toEqual({ handle: "compiled", region: "NA", rating: 1500 });
    } finally {
      await rm(outDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("runPrismaGenerate", () => {
  it("generates an ESM client with .js import specifiers without downloading any engine", async () => {
    const appDir = await mkdtemp(path.join(tmpdir(), "arena-generate-"));
    try {
      await cp(path.join(FIXTURE_APP, "prisma"), path.join(appDir, "prisma"), { recursive: true });

      const { output } = await runPrismaGenerate({ cwd: appDir, stdio: "pipe" });

      expect(output).toContain("Generated Prisma Client");
      const client = await readFile(path.join(appDir, "src", "generated", "prisma", "client.ts"), "utf8");
      expect(client).toContain('import * as $Class from "./internal/class.js"');
    } finally {
      await rm(appDir, { recursive: true, force: true });
    }
  }, 60_000);
});
