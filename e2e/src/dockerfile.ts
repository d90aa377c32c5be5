import { cp, lstat, mkdir, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * A Dockerfile read the way the builder reads it (the subset the project's Dockerfile uses), so
 * tests follow the file itself: line continuations, comments, `--flag=value` options, exec (JSON)
 * and shell forms, and variable expansion from ARG and ENV.
 */
export interface Instruction {
  keyword: string;
  flags: Record<string, string>;
  /** Everything after the keyword and its flags, continuations joined. */
  args: string;
  /** The exec form (`["node", "dist/main.js"]`), when the arguments are one. */
  exec?: string[];
  line: number;
}

export interface Stage {
  index: number;
  name?: string;
  /** The FROM argument as written (before expansion). */
  from: string;
  instructions: Instruction[];
}

export interface Dockerfile {
  /** ARGs before the first FROM: usable in every FROM line. */
  globalArgs: Instruction[];
  stages: Stage[];
}

export function parseDockerfile(text: string): Dockerfile {
  const lines = text.split(/\r?\n/);
  const instructions: Instruction[] = [];
  let pending = "";
  let start = 0;
  for (const [i, raw] of lines.entries()) {
    // Comment lines are dropped, also inside a continued instruction; parser directives are comments too.
    if (/^\s*#/.test(raw)) continue;
    if (pending === "" && raw.trim() === "") continue;
    if (pending === "") start = i + 1;
    if (/\\\s*$/.test(raw)) {
      pending += `${raw.replace(/\\\s*$/, "")} `;
      continue;
    }
    pending += raw;
    instructions.push(parseInstruction(pending.trim(), start));
    pending = "";
  }
  if (pending.trim() !== "") instructions.push(parseInstruction(pending.trim(), start));

  const file: Dockerfile = { globalArgs: [], stages: [] };
  for (const ins of instructions) {
    if (ins.keyword === "FROM") {
      const match = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(ins.args);
      if (!match) throw new Error(`line ${ins.line}: cannot read FROM ${ins.args}`);
      file.stages.push({ index: file.stages.length, name: match[2], from: match[1]!, instructions: [] });
    } else if (file.stages.length === 0) {
      if (ins.keyword !== "ARG") throw new Error(`line ${ins.line}: ${ins.keyword} before the first FROM`);
      file.globalArgs.push(ins);
    } else {
      file.stages.at(-1)!.instructions.push(ins);
    }
  }
  if (file.stages.length === 0) throw new Error("no FROM in the Dockerfile");
  return file;
}

function parseInstruction(text: string, line: number): Instruction {
  const match = /^(\S+)\s*(.*)$/s.exec(text)!;
  const keyword = match[1]!.toUpperCase();
  let rest = match[2]!;
  const flags: Record<string, string> = {};
  for (
    let flag = /^--([a-z-]+)(?:=(\S*))?\s*/.exec(rest);
    flag;
    flag = /^--([a-z-]+)(?:=(\S*))?\s*/.exec(rest)
  ) {
    flags[flag[1]!] = flag[2] ?? "true";
    rest = rest.slice(flag[0].length);
  }
  const args = rest.trim();
  return { keyword, flags, args, exec: execForm(args), line };
}

function execForm(args: string): string[] | undefined {
  if (!args.startsWith("[")) return undefined;
  try {
    const value = JSON.parse(args);
    return Array.isArray(value) && value.every((v) => typeof v === "string") ? value : undefined;
  } catch {
    return undefined;
  }
}

/** `${NAME}`, `${NAME:-default}`, `${NAME:+alternative}` and `$NAME`, as the builder expands them. */
export function expand(text: string, vars: Record<string, string>): string {
  return text.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::([-+])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (_all, braced?: string, op?: string, word?: string, bare?: string) => {
      const value = vars[(braced ?? bare)!];
      if (op === "-") return value ? value : (word ?? "");
      if (op === "+") return value ? (word ?? "") : "";
      return value ?? "";
    },
  );
}

/** `ENV a=1 b="two words"` (or the legacy `ENV a 1`) as pairs, each value expanded. */
export function parseAssignments(args: string, vars: Record<string, string>): Array<[string, string]> {
  if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(args)) {
    const legacy = /^(\S+)\s+(.*)$/s.exec(args);
    if (!legacy) throw new Error(`cannot read ${args}`);
    return [[legacy[1]!, expand(legacy[2]!, vars)]];
  }
  const pairs: Array<[string, string]> = [];
  const pattern = /([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|'[^']*'|\S*)\s*/gy;
  const scope = { ...vars };
  for (let m = pattern.exec(args); m && m[0] !== ""; m = pattern.exec(args)) {
    let value = m[2]!;
    if (value.startsWith('"')) value = value.slice(1, -1).replace(/\\(.)/g, "$1");
    else if (value.startsWith("'")) value = value.slice(1, -1);
    value = m[2]!.startsWith("'") ? value : expand(value, scope);
    pairs.push([m[1]!, value]);
  }
  return pairs;
}

/** The final stage: what `docker build` tags unless told a `--target`. */
export function finalStage(file: Dockerfile): Stage {
  return file.stages.at(-1)!;
}

/** `ARG NAME` or `ARG NAME=default` (the default expanded): the name, and the default if any. */
export function argDeclaration(ins: Instruction, vars: Record<string, string>): [string, string | undefined] {
  const match = /^([A-Za-z_][A-Za-z0-9_]*)(?:=(.*))?$/s.exec(ins.args);
  if (!match) throw new Error(`line ${ins.line}: cannot read ARG ${ins.args}`);
  return [match[1]!, match[2] === undefined ? undefined : expand(match[2].replace(/^"(.*)"$/, "$1"), vars)];
}

/** The ARGs before the first FROM, as the FROM lines see them: a build arg replaces a default. */
export function globalArgValues(
  file: Dockerfile,
  buildArgs: Record<string, string> = {},
): Record<string, string> {
  const values: Record<string, string> = {};
  for (const ins of file.globalArgs) {
    const [name, value] = argDeclaration(ins, values);
    values[name] = buildArgs[name] ?? value ?? "";
  }
  return values;
}

/**
 * The stages the tagged image is made of, its first base first: the final stage and, through each
 * FROM that names a stage (`FROM ${APP}` with APP a build arg too), the stages it builds on.
 */
export function imageStages(file: Dockerfile, buildArgs: Record<string, string> = {}): Stage[] {
  const globals = globalArgValues(file, buildArgs);
  const byName = new Map(file.stages.map((s) => [s.name ?? String(s.index), s]));
  const chain: Stage[] = [];
  for (
    let stage: Stage | undefined = finalStage(file);
    stage;
    stage = byName.get(expand(stage.from, globals))
  ) {
    if (chain.includes(stage)) throw new Error(`stage ${stage.name ?? stage.index} builds on itself`);
    chain.unshift(stage);
  }
  return chain;
}

/** `.dockerignore` rules (Go `filepath.Match` patterns with `**`), relative to the context root. */
export class DockerIgnore {
  private readonly rules: Array<{ pattern: RegExp; negated: boolean }> = [];

  constructor(text: string) {
    for (const raw of text.split(/\r?\n/)) {
      const line = raw.trim();
      if (line === "" || line.startsWith("#")) continue;
      const negated = line.startsWith("!");
      const path = line
        .slice(negated ? 1 : 0)
        .trim()
        .replace(/^\/+|\/+$/g, "");
      if (negated)
        throw new Error(`"${line}": re-inclusion is not supported by this replay; list what to ignore`);
      this.rules.push({ pattern: globToRegExp(path), negated });
    }
  }

  /** Whether a path (relative, `/`-separated) is left out of the build context. */
  ignores(path: string): boolean {
    let ignored = false;
    for (const rule of this.rules) if (rule.pattern.test(path)) ignored = !rule.negated;
    return ignored;
  }
}

function globToRegExp(glob: string): RegExp {
  let source = "";
  const parts = glob.split("/");
  for (const [i, part] of parts.entries()) {
    const last = i === parts.length - 1;
    if (part === "**") {
      source += last ? ".*" : "(?:[^/]+/)*";
      continue;
    }
    source += part.replace(/[.+^${}()|[\]\\]|\*|\?/g, (c) =>
      c === "*" ? "[^/]*" : c === "?" ? "[^/]" : `\\${c}`,
    );
    if (!last) source += "/";
  }
  return new RegExp(`^${source}$`);
}

/**
 * Copies a build context as the client sends it: the directory less what `.dockerignore` leaves
 * out (an ignored directory is left out whole). Returns how many files were copied.
 */
export async function copyBuildContext(contextDir: string, dest: string): Promise<number> {
  let ignore: DockerIgnore;
  try {
    ignore = new DockerIgnore(await readFile(join(contextDir, ".dockerignore"), "utf8"));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    ignore = new DockerIgnore("");
  }
  let files = 0;
  const walk = async (rel: string): Promise<void> => {
    await mkdir(join(dest, rel), { recursive: true });
    for (const entry of await readdir(join(contextDir, rel), { withFileTypes: true })) {
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (ignore.ignores(path)) continue;
      if (entry.isDirectory()) await walk(path);
      else {
        await cp(join(contextDir, path), join(dest, path), { verbatimSymlinks: true });
        if ((await lstat(join(dest, path))).isFile()) files++;
      }
    }
  };
  await walk("");
  return files;
}
