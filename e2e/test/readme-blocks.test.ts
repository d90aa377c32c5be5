import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { type DevPlatform, logIn, startDevPlatform } from "../src/dev-platform.js";
import { root } from "../src/npm-start.js";
import {
  type BlockRun,
  classificationProblem,
  type FencedBlock,
  fencedBlocks,
  filled,
  runsInNode,
  runsInShell,
  ShellSession,
} from "../src/readme-blocks.js";

// Every README's examples, run as a reader pastes them against `npm start`'s platform: the shell
// blocks of one README in order in one shell (a variable one block sets is there for the next),
// the JavaScript blocks marked `<!-- run -->` with node. The ports move by the platform's offset and
// the placeholders (<clientId>, <user>, <password>, ADMIN_TOKEN=..., SIGNING_KEY_SECRET=...) become
// the development tenant's values; nothing else of a block changes. A block that cannot run here
// (Docker, kubectl, starting a service) says why in a `<!-- not run: ... -->` comment before it.

/** The root README first: the gateway README's WebSocket example plays the game it configures. */
async function readmes(): Promise<string[]> {
  const apps = (await readdir(join(root, "apps"), { withFileTypes: true })).filter((d) => d.isDirectory());
  const appReadmes: string[] = [];
  for (const app of apps.map((d) => d.name).sort()) {
    const file = `apps/${app}/README.md`;
    if (
      await readFile(join(root, file)).then(
        () => true,
        () => false,
      )
    )
      appReadmes.push(file);
  }
  return ["README.md", ...appReadmes, "infra/README.md"];
}

async function blocksOf(file: string): Promise<FencedBlock[]> {
  return fencedBlocks(file, await readFile(join(root, file), "utf8"));
}

/** What went wrong with one block's run, if anything: the shell ended, or a call failed. */
function problemOf(block: FencedBlock, run: BlockRun): string | undefined {
  const failed = run.calls.filter((c) => c.status === 0 || c.status >= 400);
  if (run.exitCode === undefined && failed.length === 0) return undefined;
  return [
    `${block.file}:${block.line}`,
    ...(run.exitCode !== undefined ? [`  a command failed: the shell ended with ${run.exitCode}`] : []),
    ...failed.map((c) => `  ${c.method} ${c.url} answered ${c.status || "nothing"}`),
    `  stdout: ${run.stdout.slice(-1500)}`,
    `  stderr: ${run.stderr.slice(-1500)}`,
  ].join("\n");
}

/** A `<!-- run -->` JavaScript block as a file beside e2e's node_modules (its imports resolve there). */
function runNode(source: string, env: Record<string, string>): Promise<BlockRun> {
  return (async () => {
    const dir = join(root, "e2e", "node_modules", ".cache", "readme-blocks");
    await mkdir(dir, { recursive: true });
    const file = join(dir, `block-${randomBytes(6).toString("hex")}.mjs`);
    await writeFile(file, source);
    const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
    delete childEnv.NODE_OPTIONS;
    try {
      return await new Promise<BlockRun>((resolve) =>
        execFile(process.execPath, [file], { env: childEnv, timeout: 30_000 }, (err, stdout, stderr) =>
          resolve({ stdout, stderr, calls: [], ...(err ? { exitCode: err.code as number | null } : {}) }),
        ),
      );
    } finally {
      await rm(file, { force: true });
    }
  })();
}

describe("the READMEs' blocks", () => {
  it("name their language, and each shell block is run or says why it is not", async () => {
    const problems: string[] = [];
    let shellBlocks = 0;
    for (const file of await readmes()) {
      for (const block of await blocksOf(file)) {
        const problem = classificationProblem(block);
        if (problem) problems.push(problem);
        if (runsInShell(block)) shellBlocks++;
      }
    }
    expect(problems).toEqual([]);
    expect(shellBlocks).toBeGreaterThanOrEqual(8);
  });

  it("finds a block's marker on the line before it, and an unmarked or unnamed block is not skipped", () => {
    const text = [
      "```sh",
      "curl localhost:8080/seasons",
      "```",
      "<!-- not run: needs a Docker engine -->",
      "",
      "```sh",
      "docker compose up",
      "```",
      "<!-- not run -->",
      "```bash",
      "kubectl apply",
      "```",
      "```",
      "curl localhost:8080/seasons",
      "```",
    ].join("\n");
    const [called, docker, unexplained, unnamed] = fencedBlocks("X.md", text);
    expect(runsInShell(called!)).toBe(true);
    expect(docker!.marker).toEqual({ run: false, reason: "needs a Docker engine" });
    expect(runsInShell(docker!)).toBe(false);
    expect(classificationProblem(docker!)).toBeUndefined();
    expect(classificationProblem(unexplained!)).toMatch(/must say why/);
    expect(classificationProblem(unnamed!)).toMatch(/without an info string/);
  });

  describe("run against `npm start`'s platform", () => {
    let platform: DevPlatform;

    beforeAll(async () => {
      platform = await startDevPlatform();
    }, 300_000);

    afterAll(async () => {
      await platform?.close();
    });

    it("every README's shell blocks in order in one shell, and its `<!-- run -->` JavaScript, without an error", async () => {
      const problems: string[] = [];
      let ran = 0;
      for (const file of await readmes()) {
        const blocks = (await blocksOf(file)).filter((b) => runsInShell(b) || runsInNode(b));
        if (blocks.length === 0) continue;
        const app = /^apps\/(license|gateway)\//.exec(file)?.[1] as "license" | "gateway" | undefined;
        const env = {
          ADMIN_TOKEN: platform.adminToken,
          // The admin CLI's `create-user` reads the new user's password from it.
          PASSWORD: randomBytes(12).toString("hex"),
          ...(app ? platform.cliEnvironment(app) : {}),
        };
        const shell = await ShellSession.open(join(root, dirname(file)), env);
        try {
          for (const block of blocks) {
            const source = filled(block.text, platform);
            const run = runsInNode(block)
              ? await runNode(source, { TOKEN: await logIn(platform, platform.server) })
              : await shell.run(source);
            ran++;
            const problem =
              problemOf(block, run) ??
              (runsInNode(block) && /"error":/.test(run.stdout)
                ? `${block.file}:${block.line}: a message was answered with an error:\n${run.stdout}`
                : undefined);
            if (problem) {
              problems.push(problem);
              break;
            }
          }
        } finally {
          await shell.close();
        }
      }
      expect(problems).toEqual([]);
      expect(ran).toBeGreaterThanOrEqual(9);
    }, 900_000);
  });
});
