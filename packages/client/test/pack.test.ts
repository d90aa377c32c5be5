import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "@jest/globals";

/**
 * The package as a game server gets it: `pnpm pack`ed, installed with npm into a scratch project
 * outside the workspace (so nothing of the monorepo can be resolved), compiled against with the
 * TypeScript consumers use, and imported by Node.js. Also keeps the README's size figures true.
 */
const packageDir = fileURLToPath(new URL("..", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "arena-client-consumer-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const run = (command: string, args: string[], cwd: string) =>
  execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

/** What a game server writes: every public name it needs, used the way the README shows. */
const CONSUMER = `
import {
  ArenaApiError, type ArenaClient, type CallEvent, type ClientHooks, CognitoTokens, createArenaClient,
  DeadlineError, LoginError, NetworkError, OPERATIONS, type OperationTypes, REPEATABLE,
} from "@arena/client";

const hooks: ClientHooks = { metrics: { call: (e: CallEvent) => void e.durationMs } };
export const client: ArenaClient = createArenaClient({
  baseUrl: "http://127.0.0.1:1", clientId: "c", username: "u", password: "p", hooks, deadlineMs: 1_000,
});
export async function journey(): Promise<number> {
  await client.addPlayers({ gameId: "duel", body: { players: [{ playerId: "ann" }] } });
  const matches = await client.getMatches({ gameId: "duel" });
  const first: OperationTypes["completeMatch"]["answer"] | undefined = undefined;
  void first;
  // @ts-expect-error: gameId is required
  await client.getGame({});
  return matches.length + (await client.listSeasons()).seasons.length;
}
export const names = [ArenaApiError, DeadlineError, LoginError, NetworkError, CognitoTokens].map((c) => c.name);
export const count = Object.keys(OPERATIONS).length + Object.keys(REPEATABLE).length;
`;

describe("the packed @arena/client", () => {
  it("installs outside the workspace, compiles in a consumer project and imports without the monorepo", () => {
    const packDir = join(scratch, "pack");
    run("pnpm", ["pack", "--pack-destination", packDir], packageDir);
    const tarball = join(packDir, readdirSync(packDir).find((f) => f.endsWith(".tgz")) as string);

    // The README's figures: the tarball and its unpacked size, within 15%.
    const packed = statSync(tarball).size;
    const unpacked = run("tar", ["tzvf", tarball], packDir)
      .trim()
      .split("\n")
      .reduce((sum, line) => sum + Number(line.trim().split(/\s+/)[2]), 0);
    const readme = readFileSync(join(packageDir, "README.md"), "utf8");
    const stated = /tarball is \*\*(\d+) kB\*\* \((\d+) kB unpacked/.exec(readme);
    expect(stated).not.toBeNull();
    const near = (actual: number, kB: number) => Math.abs(actual / 1000 - kB) / kB <= 0.15;
    expect({
      packed,
      unpacked,
      near: near(packed, Number(stated![1])) && near(unpacked, Number(stated![2])),
    }).toEqual({ packed, unpacked, near: true });

    const manifest = JSON.parse(run("tar", ["xzf", tarball, "-O", "package/package.json"], packDir));
    expect(Object.keys(manifest.dependencies ?? {}).filter((d) => d.startsWith("@arena/"))).toEqual([]);
    expect(JSON.stringify(manifest.exports)).not.toContain("src/");

    writeFileSync(
      join(scratch, "package.json"),
      JSON.stringify({ name: "consumer", private: true, type: "module" }),
    );
    writeFileSync(
      join(scratch, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          outDir: "out",
          types: ["node"],
        },
        include: ["consumer.ts"],
      }),
    );
    writeFileSync(join(scratch, "consumer.ts"), CONSUMER);
    run(
      "npm",
      [
        "install",
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        tarball,
        "typescript@~5.9",
        "@types/node@20",
      ],
      scratch,
    );
    run(join(scratch, "node_modules", ".bin", "tsc"), ["-p", "."], scratch);

    const imported = run(
      "node",
      [
        "--input-type=module",
        "-e",
        "const m = await import('./out/consumer.js'); console.log(JSON.stringify([m.names, m.count]))",
      ],
      scratch,
    );
    expect(JSON.parse(imported)).toEqual([
      ["ArenaApiError", "DeadlineError", "LoginError", "NetworkError", "CognitoTokens"],
      44,
    ]);
  }, 180_000);
});
