import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import SwaggerParser from "@apidevtools/swagger-parser";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createHarness, type Harness } from "./harness.js";

const gatewayDir = join(dirname(fileURLToPath(import.meta.url)), "..");
/** The package's own @redocly/cli, with the package's redocly.yaml. */
const REDOCLY = join(gatewayDir, "node_modules", ".bin", "redocly");

let h: Harness;
let dir: string;
let documentPath: string;
let served: Record<string, unknown>;
beforeAll(async () => {
  h = await createHarness();
  served = (await h.http.get("/openapi.json").expect(200)).body;
  dir = await mkdtemp(join(tmpdir(), "arena-openapi-"));
  documentPath = join(dir, "openapi.json");
  await writeFile(documentPath, JSON.stringify(served));
});
afterAll(async () => {
  await h?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("the served /openapi.json, checked by the tools studios run", () => {
  it("passes redocly lint (recommended rules, apps/gateway/redocly.yaml) with 0 errors and 0 warnings", async () => {
    const { stdout } = await promisify(execFile)(
      REDOCLY,
      ["lint", documentPath, "--config", join(gatewayDir, "redocly.yaml"), "--format", "json"],
      { cwd: gatewayDir, maxBuffer: 16 * 1024 * 1024 },
    ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? "" }));
    const report = JSON.parse(stdout.slice(stdout.indexOf("{"))) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; message: string }[];
    };
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);

  it("is valid for swagger-parser, every reference resolved", async () => {
    const api = await SwaggerParser.validate(structuredClone(served) as never);
    expect(api.info.title).toBe("Arena hosted API");
  });
});
