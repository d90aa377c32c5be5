import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BASE_PORTS } from "../../scripts/platform-wiring.mjs";
import type { DevPlatform } from "./dev-platform.js";

// The fenced blocks of the READMEs, and how e2e/test/readme-blocks.test.ts runs them as a reader
// pastes them: the shell blocks of one README in order, in one shell, against `npm start`'s platform.

/** Info strings of blocks a reader pastes into a shell. */
const SHELL_LANGUAGES = new Set(["sh", "bash", "shell", "console", "zsh"]);

export interface FencedBlock {
  /** The README, relative to the repository root, and the line of the opening fence (1-based). */
  file: string;
  line: number;
  info: string;
  text: string;
  /**
   * The HTML comment on the line before the fence, if any: `<!-- not run: <why> -->` classifies a
   * shell block the test does not run (installs, Docker, kubectl, starting a service), and
   * `<!-- run -->` asks for a JavaScript block to be run with node.
   */
  marker?: { run: boolean; reason: string };
}

const MARKER = /^<!--\s*(not run|run)\s*(?::\s*(.*?))?\s*-->$/;

/** Every fenced block of a Markdown text, with the marker before it. */
export function fencedBlocks(file: string, markdown: string): FencedBlock[] {
  const lines = markdown.split("\n");
  const blocks: FencedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[2]!;
    const end = lines.findIndex((l, j) => j > i && l.trim() === fence);
    if (end === -1) throw new Error(`${file}:${i + 1}: a fence that is never closed`);
    const before = lines
      .slice(0, i)
      .findLast((l) => l.trim() !== "")
      ?.trim();
    const marked = before === undefined ? null : MARKER.exec(before);
    blocks.push({
      file,
      line: i + 1,
      info: open[3]!.trim(),
      text: lines.slice(i + 1, end).join("\n"),
      ...(marked ? { marker: { run: marked[1] === "run", reason: marked[2] ?? "" } } : {}),
    });
    i = end;
  }
  return blocks;
}

export const isShell = (block: FencedBlock) => SHELL_LANGUAGES.has(block.info.split(/\s/)[0]!);

/**
 * What is wrong with a block's classification, if anything: every block names its language, and a
 * shell block is run unless it says why not, so none that calls the platform is skipped silently.
 */
export function classificationProblem(block: FencedBlock): string | undefined {
  const where = `${block.file}:${block.line}`;
  if (block.info === "") return `${where}: a fenced block without an info string (sh, js, json, text, ...)`;
  if (block.marker && !block.marker.run && block.marker.reason === "")
    return `${where}: <!-- not run --> must say why (<!-- not run: needs a Docker engine -->)`;
  if (block.marker?.run && isShell(block)) return `${where}: shell blocks are run without a marker`;
  return undefined;
}

export const runsInShell = (block: FencedBlock) => isShell(block) && block.marker === undefined;
export const runsInNode = (block: FencedBlock) =>
  ["js", "javascript", "mjs"].includes(block.info) && block.marker?.run === true;

/**
 * The block as it runs on this machine's platform: the READMEs are written for `npm start` on the
 * default ports with the printed tenant, so the ports move by the platform's offset and the
 * placeholders become the development tenant's values. Nothing else changes.
 */
export function filled(text: string, platform: DevPlatform): string {
  const port = (base: string) => String(Number(base) + platform.offset);
  const bases = Object.values(BASE_PORTS).join("|");
  return text
    .replace(
      new RegExp(`\\b(?:localhost|127\\.0\\.0\\.1):(${bases})\\b`, "g"),
      (_, p) => `127.0.0.1:${port(p)}`,
    )
    .replaceAll("https://license.example.com", platform.url("license"))
    .replace(/<client[Ii]d>|<ClientId>/g, platform.clientId)
    .replace(/<user>|<USERNAME>/g, platform.admin.username)
    .replace(/<password>|<PASSWORD>/g, platform.admin.password)
    .replaceAll("ADMIN_TOKEN=...", `ADMIN_TOKEN=${platform.adminToken}`)
    .replaceAll("SIGNING_KEY_SECRET=...", `SIGNING_KEY_SECRET=${platform.signingKeySecret}`);
}

/** One HTTP call a block's curl made. */
export interface CurlCall {
  status: number;
  method: string;
  url: string;
}

export interface BlockRun {
  stdout: string;
  stderr: string;
  calls: CurlCall[];
  /** The shell's exit code if the block ended it (`set -e`: a command failed). */
  exitCode?: number | null;
}

const CURL_TRACE = "ARENA_CURL_CALL";

/**
 * A directory with a `curl` that is the real one, writing each call's status, method and URL to
 * stderr (`-w '%{stderr}…'`, curl ≥ 7.72), so a 404 is seen even where the block prints nothing.
 */
async function tracingCurl(): Promise<string> {
  const real = spawnSync("sh", ["-c", "command -v curl"], { encoding: "utf8" }).stdout.trim();
  if (real === "") throw new Error("the README blocks need curl, and it is not installed");
  const bin = await mkdtemp(join(tmpdir(), "arena-readme-curl-"));
  await writeFile(
    join(bin, "curl"),
    `#!/bin/sh\nexec ${real} -w '%{stderr}${CURL_TRACE} %{http_code} %{method} %{url_effective}\\n' "$@"\n`,
  );
  await chmod(join(bin, "curl"), 0o755);
  return bin;
}

/**
 * One `sh -e` a reader pastes blocks into: variables set by one block are there for the next. Each
 * block is written to a file and sourced, so a command that reads standard input cannot swallow
 * the next block. A failing command ends the shell (`-e`), and the block's run says so.
 */
export class ShellSession {
  private output = { stdout: "", stderr: "" };
  private exited: number | null | undefined;

  private constructor(
    private readonly child: ChildProcess,
    private readonly dir: string,
  ) {
    child.stdout?.on("data", (c: Buffer) => {
      this.output.stdout += c.toString();
    });
    child.stderr?.on("data", (c: Buffer) => {
      this.output.stderr += c.toString();
    });
    child.once("exit", (code) => {
      this.exited = code;
    });
  }

  static async open(cwd: string, env: Record<string, string>): Promise<ShellSession> {
    const bin = await tracingCurl();
    const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env, PATH: `${bin}:${process.env.PATH}` };
    delete childEnv.NODE_OPTIONS;
    // A group of its own: a block that overruns is killed with everything it started.
    const child = spawn("sh", ["-e"], {
      cwd,
      env: childEnv,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    return new ShellSession(child, bin);
  }

  /** Runs one block; the admin CLIs start in seconds, so a block of a dozen calls may take a minute. */
  async run(text: string, timeoutMs = 240_000): Promise<BlockRun> {
    const id = randomBytes(6).toString("hex");
    const file = join(this.dir, `block-${id}.sh`);
    await writeFile(file, `${text}\n`);
    const done = `ARENA_BLOCK_DONE_${id}`;
    this.output = { stdout: "", stderr: "" };
    this.child.stdin?.write(`. '${file}'\nprintf '\\n${done}\\n'; printf '${done}\\n' >&2\n`);
    const deadline = Date.now() + timeoutMs;
    while (!(this.output.stdout.includes(done) && this.output.stderr.includes(done))) {
      if (this.exited !== undefined) return this.result(done, this.exited);
      if (Date.now() > deadline) {
        this.kill();
        throw new Error(`the block did not end within ${timeoutMs} ms:\n${text}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    return this.result(done);
  }

  private result(done: string, exitCode?: number | null): BlockRun {
    const calls: CurlCall[] = [];
    const stderr = this.output.stderr
      .split("\n")
      .filter((line) => {
        const call = new RegExp(`^${CURL_TRACE} (\\d+) (\\S+) (\\S+)$`).exec(line);
        if (call) calls.push({ status: Number(call[1]), method: call[2]!, url: call[3]! });
        return !call && !line.includes(done);
      })
      .join("\n");
    const stdout = this.output.stdout.replace(`\n${done}\n`, "");
    return { stdout, stderr, calls, ...(exitCode !== undefined ? { exitCode } : {}) };
  }

  private kill(): void {
    if (this.exited === undefined && this.child.pid !== undefined) process.kill(-this.child.pid, "SIGKILL");
  }

  async close(): Promise<void> {
    this.child.stdin?.end();
    const exited = new Promise((r) => (this.exited === undefined ? this.child.once("exit", r) : r(null)));
    // Ended input ends the shell once its block is done; one still running after 10 s is killed.
    const timer = setTimeout(() => this.kill(), 10_000);
    await exited;
    clearTimeout(timer);
    await rm(this.dir, { recursive: true, force: true });
  }
}
