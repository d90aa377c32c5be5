import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { chmod, chown, cp, mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, posix } from "node:path";
import {
  argDeclaration,
  type Dockerfile,
  expand,
  finalStage,
  globalArgValues,
  type Instruction,
  parseAssignments,
  type Stage,
} from "./dockerfile.js";

/**
 * Replays a Dockerfile's stages on this machine, without a Docker engine: each stage gets a
 * directory standing for its `/`, COPY copies between them and from the build context, RUN runs
 * the same command with the stage's ARG and ENV, its container paths pointed into that directory.
 * What a base image would provide is this machine's: Node.js (the final stage's base must be the
 * same major version) and the globally installed tools, whose versions must be the ones the RUN
 * line pins. Installs run `--prefer-offline` from the local pnpm store: the packages are there
 * after the workspace's own install, but pnpm 12's supply-chain check of the pruned lockfile reads
 * each package's full registry metadata, which that install may not have cached (a package added
 * since is then fetched once, instead of failing the replay).
 */
export interface ReplayOptions {
  repoRoot: string;
  dockerfile: Dockerfile;
  /** A copy of the build context (see copyBuildContext). */
  contextDir: string;
  /** Where the stages' directories go. */
  workDir: string;
  /** Like `docker build --build-arg`: each must be an ARG of the file. */
  buildArgs?: Record<string, string>;
  log?: (line: string) => void;
}

export interface ReplayedImage {
  /** The final stage's FROM, expanded. */
  base: string;
  /** The host directory standing for the final stage's `/`. */
  root: string;
  workdir: string;
  env: Record<string, string>;
  user?: string;
  expose: string[];
  cmd: string[];
  healthcheck?: { cmd: string[]; flags: Record<string, string> };
  /** Seconds each RUN line took, in order. */
  runs: Array<{ stage: string; command: string; seconds: number }>;
  hostPath(containerPath: string): string;
}

interface StageState {
  name: string;
  root: string;
  env: Record<string, string>;
  args: Record<string, string>;
  workdir: string;
  user?: string;
  expose: string[];
  cmd: string[];
  healthcheck?: { cmd: string[]; flags: Record<string, string> };
  base: string;
}

/** First segments of the absolute paths the Dockerfile itself names: the image's own directories. */
function containerRoots(file: Dockerfile): Set<string> {
  const roots = new Set<string>();
  for (const stage of file.stages)
    for (const ins of stage.instructions) {
      const paths =
        ins.keyword === "WORKDIR" ? [ins.args] : ins.keyword === "COPY" ? ins.args.split(/\s+/) : [];
      for (const p of paths) {
        const first = /^\/([^/$\s]+)/.exec(p)?.[1];
        if (first) roots.add(first);
      }
    }
  return roots;
}

/**
 * The stages the target is built from, each with how many of them build on it or copy from it
 * (a stage used once can hand its directory over instead of being copied).
 */
function stagesNeeded(
  file: Dockerfile,
  target: Stage,
  globalArgs: Record<string, string>,
): Map<number, number> {
  const byName = new Map(file.stages.map((s) => [s.name ?? String(s.index), s]));
  const uses = new Map<number, number>();
  const visit = (stage: Stage) => {
    if (uses.has(stage.index)) return;
    uses.set(stage.index, 0);
    const used = (source: Stage) => {
      visit(source);
      uses.set(source.index, uses.get(source.index)! + 1);
    };
    // A FROM may name a stage through a global ARG (`FROM ${APP}`), as the builder allows.
    const parent = byName.get(expand(stage.from, globalArgs));
    if (parent) used(parent);
    for (const ins of stage.instructions) {
      const from = ins.keyword === "COPY" ? ins.flags.from : undefined;
      if (from !== undefined) {
        const source = byName.get(from);
        if (!source) throw new Error(`COPY --from=${from}: only earlier stages are supported by the replay`);
        used(source);
      }
    }
  };
  visit(target);
  return uses;
}

/** What every stage's replay reads, and where it records its stages and RUN lines. */
interface ReplayContext extends RunContext {
  workDir: string;
  contextDir: string;
  buildArgs: Record<string, string>;
  globalArgs: Record<string, string>;
  /** The stages replayed so far, by name (or index). */
  states: Map<string, StageState>;
  runs: ReplayedImage["runs"];
}

export async function replayDockerfile(options: ReplayOptions): Promise<ReplayedImage> {
  const { dockerfile: file, workDir } = options;
  const log = options.log ?? (() => {});
  const roots = containerRoots(file);
  const buildArgs = options.buildArgs ?? {};
  checkBuildArgs(file, buildArgs);
  const globalArgs = globalArgValues(file, buildArgs);
  const toolsDir = join(workDir, "tools");
  await mkdir(toolsDir, { recursive: true });
  const target = finalStage(file);
  const needed = stagesNeeded(file, target, globalArgs);
  const ctx: ReplayContext = {
    roots,
    toolsDir,
    repoRoot: options.repoRoot,
    log,
    workDir,
    contextDir: options.contextDir,
    buildArgs,
    globalArgs,
    states: new Map(),
    runs: [],
  };
  let state: StageState | undefined;
  for (const stage of file.stages) {
    if (!needed.has(stage.index)) continue;
    state = await enterStage(file, stage, needed, ctx);
    for (const ins of stage.instructions) await replayInstruction(ins, state, ctx);
  }
  return replayedImage(state!, ctx.runs);
}

/** Like `docker build`, refuses a build arg the Dockerfile does not declare. */
function checkBuildArgs(file: Dockerfile, buildArgs: Record<string, string>): void {
  const declared = [...file.globalArgs, ...file.stages.flatMap((s) => s.instructions)]
    .filter((ins) => ins.keyword === "ARG")
    .map((ins) => argDeclaration(ins, {})[0]);
  for (const name of Object.keys(buildArgs))
    if (!declared.includes(name))
      throw new Error(`--build-arg ${name}: the Dockerfile declares no ARG ${name}`);
}

/**
 * The stage's directory and state: its parent stage's (handed over when only this stage uses it,
 * copied otherwise), or an empty `/` for a base image.
 */
async function enterStage(
  file: Dockerfile,
  stage: Stage,
  needed: Map<number, number>,
  ctx: ReplayContext,
): Promise<StageState> {
  const name = stage.name ?? String(stage.index);
  const root = join(ctx.workDir, "stages", name);
  await rm(root, { recursive: true, force: true });
  const from = expand(stage.from, ctx.globalArgs);
  if (from === "") throw new Error(`FROM ${stage.from} names nothing: is a build arg missing?`);
  const parent = ctx.states.get(from);
  let state: StageState;
  if (parent) {
    const parentStage = file.stages.find((st) => (st.name ?? String(st.index)) === parent.name)!;
    if (needed.get(parentStage.index) === 1) await rename(parent.root, root);
    else await cp(parent.root, root, { recursive: true, verbatimSymlinks: true });
    state = { ...structuredClone(parent), name, root, args: {} };
  } else {
    await mkdir(root, { recursive: true });
    state = { name, root, env: {}, args: {}, workdir: "/", expose: [], cmd: [], base: from };
  }
  ctx.states.set(name, state);
  return state;
}

async function replayInstruction(ins: Instruction, s: StageState, ctx: ReplayContext): Promise<void> {
  const hostPath = (p: string) => join(s.root, posix.resolve(s.workdir, p));
  const vars = () => ({ ...s.args, ...s.env });
  switch (ins.keyword) {
    case "ARG": {
      const [argName, value] = argDeclaration(ins, vars());
      s.args[argName] = ctx.buildArgs[argName] ?? value ?? ctx.globalArgs[argName] ?? "";
      break;
    }
    case "ENV":
      for (const [k, v] of parseAssignments(ins.args, vars())) s.env[k] = v;
      break;
    case "WORKDIR":
      s.workdir = posix.resolve(s.workdir, expand(ins.args, vars()));
      await mkdir(hostPath(s.workdir), { recursive: true });
      break;
    case "COPY":
      await copy(ins, s, ctx.states, ctx.contextDir, vars());
      break;
    case "RUN": {
      const started = Date.now();
      await run(ins, s, ctx);
      ctx.runs.push({ stage: s.name, command: ins.args, seconds: (Date.now() - started) / 1000 });
      ctx.log(`[${s.name}] ${((Date.now() - started) / 1000).toFixed(1)} s`);
      break;
    }
    case "USER":
      s.user = expand(ins.args, vars());
      break;
    case "EXPOSE":
      s.expose.push(...expand(ins.args, vars()).split(/\s+/));
      break;
    case "CMD":
      s.cmd = ins.exec ?? ["/bin/sh", "-c", ins.args];
      break;
    case "HEALTHCHECK":
      s.healthcheck = healthcheck(ins);
      break;
    case "LABEL":
      break;
    default:
      throw new Error(`line ${ins.line}: ${ins.keyword} is not supported by the replay`);
  }
}

/** A HEALTHCHECK's command and flags; none for `HEALTHCHECK NONE`. */
function healthcheck(ins: Instruction): StageState["healthcheck"] {
  const cmd = /^CMD\s+(.*)$/s.exec(ins.args)?.[1];
  if (cmd === undefined) return undefined;
  const exec = cmd.trim().startsWith("[") ? (JSON.parse(cmd) as string[]) : ["/bin/sh", "-c", cmd];
  return { cmd: exec, flags: ins.flags };
}

/** The final stage as an image: its ENV's absolute paths pointed into its directory. */
function replayedImage(final: StageState, runs: ReplayedImage["runs"]): ReplayedImage {
  const env = Object.fromEntries(
    Object.entries(final.env).map(([k, v]) => [k, v.startsWith("/") ? join(final.root, v) : v]),
  );
  return {
    base: final.base,
    root: final.root,
    workdir: final.workdir,
    env,
    user: final.user,
    expose: final.expose,
    cmd: final.cmd,
    healthcheck: final.healthcheck,
    runs,
    hostPath: (p) => join(final.root, posix.resolve(final.workdir, p)),
  };
}

async function copy(
  ins: Instruction,
  s: StageState,
  states: Map<string, StageState>,
  contextDir: string,
  vars: Record<string, string>,
) {
  for (const flag of Object.keys(ins.flags))
    if (!["from", "chown", "link"].includes(flag))
      throw new Error(`line ${ins.line}: COPY --${flag} is not supported by the replay`);
  const parts = (ins.exec ?? ins.args.split(/\s+/)).map((p) => expand(p, vars));
  const dest = posix.resolve(s.workdir, parts.pop()!);
  const source = ins.flags.from === undefined ? undefined : states.get(ins.flags.from);
  if (ins.flags.from !== undefined && !source)
    throw new Error(`line ${ins.line}: no stage ${ins.flags.from}`);
  const destIsDir = parts.length > 1 || parts.at(-1) === "." || /\/\.?$/.test(ins.args.split(/\s+/).at(-1)!);
  for (const src of parts) {
    if (/[*?[]/.test(src))
      throw new Error(`line ${ins.line}: COPY wildcards are not supported by the replay`);
    const from = source ? join(source.root, posix.resolve("/", src)) : join(contextDir, posix.normalize(src));
    const info = await stat(from);
    const to = join(
      s.root,
      info.isFile() && destIsDir ? posix.join(dest, posix.basename(src)) : dest === "/" ? "" : dest,
    );
    await mkdir(info.isDirectory() ? to : dirname(to), { recursive: true });
    await cp(from, to, { recursive: true, verbatimSymlinks: true });
  }
}

interface RunContext {
  roots: Set<string>;
  toolsDir: string;
  repoRoot: string;
  log: (line: string) => void;
}

/** Where this machine's copy of a tool a base stage installs globally comes from. */
function provideTool(name: string, version: string, repoRoot: string): { path: string; version: string } {
  if (name === "pnpm") {
    const probe = spawnSync("pnpm", ["--version"], { encoding: "utf8" });
    const which = spawnSync("sh", ["-c", "command -v pnpm"], { encoding: "utf8" });
    return { path: which.stdout.trim(), version: probe.stdout.trim() };
  }
  if (name === "turbo") {
    // The repository's own turbo (a root devDependency): its version is the lockfile's.
    const pkg = JSON.parse(readFileSync(join(repoRoot, "node_modules", "turbo", "package.json"), "utf8")) as {
      version: string;
    };
    return { path: join(repoRoot, "node_modules", ".bin", "turbo"), version: pkg.version };
  }
  throw new Error(`the replay does not know where to find ${name}@${version} on this machine`);
}

async function run(ins: Instruction, s: StageState, ctx: RunContext) {
  for (const flag of Object.keys(ins.flags))
    throw new Error(`line ${ins.line}: RUN --${flag} is not supported by the replay`);
  if (ins.exec) throw new Error(`line ${ins.line}: RUN's exec form is not supported by the replay`);
  const vars = { ...s.args, ...s.env };
  const global = /^npm\s+(?:install|i)\s+(?:--global|-g)\b(.*)$/s.exec(ins.args.trim());
  if (global) {
    // Provisioning the base image: this machine's tools stand in, at the versions the line pins.
    for (const token of expand(global[1]!, vars).trim().split(/\s+/)) {
      if (token.startsWith("-")) continue;
      const match = /^(@?[^@]+)@(\d+\.\d+\.\d+)$/.exec(token);
      if (!match) throw new Error(`line ${ins.line}: pin ${token} to an exact version`);
      const tool = provideTool(match[1]!, match[2]!, ctx.repoRoot);
      if (tool.version !== match[2])
        throw new Error(
          `line ${ins.line}: installs ${token}, but the repository uses ${match[1]}@${tool.version}`,
        );
      const shim = join(ctx.toolsDir, match[1]!);
      await writeFile(shim, `#!/bin/sh\nexec "${tool.path}" "$@"\n`);
      await chmod(shim, 0o755);
      ctx.log(`[${s.name}] provided ${token} from ${tool.path}`);
    }
    return;
  }
  // Container paths the Dockerfile names (/repo, /out, ...) point into this stage's directory.
  const roots = [...ctx.roots].map((r) => r.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|");
  let command = ins.args.replace(
    new RegExp(`(^|[\\s=:"'])(/(?:${roots})(?=[/\\s"';&|]|$)[^\\s"';&|]*)`, "g"),
    (_all, lead: string, path: string) => lead + join(s.root, path),
  );
  // The local pnpm store before the registry.
  command = command
    .replace(/\bpnpm install\b/g, "pnpm install --prefer-offline")
    .replace(/\b(pnpm\b[^&|;]*?\s)deploy\b/g, "$1deploy --prefer-offline");
  ctx.log(`[${s.name}] RUN ${command}`);
  const env: Record<string, string> = {
    PATH: `${ctx.toolsDir}:${process.env.PATH}`,
    HOME: process.env.HOME ?? "/root",
    ...vars,
  };
  for (const key of ["XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "TMPDIR", "LANG"])
    if (process.env[key]) env[key] = process.env[key];
  const child = spawn("/bin/sh", ["-c", command], {
    cwd: join(s.root, s.workdir),
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  if (code !== 0) throw new Error(`line ${ins.line}: RUN ${ins.args}\nexited with ${code}:\n${output}`);
}

/** The numeric ids of the node images' `node` user, which the final stages run as. */
const NODE_USER = { uid: 1000, gid: 1000, home: "/home/node" };

export interface ContainerOptions {
  /** Like `docker run -e`: added to (and overriding) the image's ENV. */
  env?: Record<string, string>;
  /** Like the command after `docker run IMAGE`: replaces CMD. */
  cmd?: string[];
}

/**
 * Starts the image's CMD (or another command) in its WORKDIR with only its ENV (and PATH), as
 * `docker run` would; as the image's USER when this process may switch users.
 */
export async function runContainer(
  image: ReplayedImage,
  options: ContainerOptions = {},
): Promise<ChildProcess> {
  const [command, ...args] = options.cmd ?? image.cmd;
  const home = image.user === "node" || image.user === "1000" ? NODE_USER.home : "/root";
  const hostHome = join(image.root, home);
  await mkdir(hostHome, { recursive: true });
  const switchUser = process.getuid?.() === 0 && home === NODE_USER.home;
  if (switchUser) {
    await chown(hostHome, NODE_USER.uid, NODE_USER.gid);
    // The temporary directories above the image must let the user through, as `/` does.
    for (let dir = image.root; dir !== tmpdir() && dir !== dirname(dir); dir = dirname(dir)) {
      const mode = (await stat(dir)).mode;
      if ((mode & 0o005) !== 0o005 && (mode & 0o1000) === 0) await chmod(dir, (mode | 0o005) & 0o7777);
    }
  }
  return spawn(command!, args, {
    cwd: image.hostPath(image.workdir),
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: hostHome, ...image.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
    ...(switchUser ? { uid: NODE_USER.uid, gid: NODE_USER.gid } : {}),
  });
}

/** Runs a one-off command of the image to its end: its exit code and output. */
export async function runToEnd(
  image: ReplayedImage,
  options: ContainerOptions & { timeoutMs?: number },
): Promise<{ code: number | null; output: string }> {
  const child = await runContainer(image, options);
  let output = "";
  child.stdout?.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (output += c.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  clearTimeout(timer);
  return { code, output };
}

/** `--timeout=3s`-style durations in milliseconds. */
export function durationMs(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(value);
  if (!match) throw new Error(`cannot read the duration ${value}`);
  return Number(match[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2] as "ms" | "s" | "m" | "h"];
}

export async function readJson<T>(path: string): Promise<T> {
  return JSON.parse(await readFile(path, "utf8")) as T;
}
