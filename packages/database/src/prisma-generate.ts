import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

export interface PrismaGenerateOptions {
  /** The app folder: `prisma` is resolved from its node_modules and run there. */
  cwd: string;
  /** Extra arguments for `prisma generate`, e.g. `["--schema", "prisma/schema.prisma"]`. */
  args?: string[];
  env?: NodeJS.ProcessEnv;
  /** `inherit` (the default) shows Prisma's output; `pipe` collects it into the result. */
  stdio?: "inherit" | "pipe";
}

async function prismaCliPath(cwd: string): Promise<string> {
  const searched = [path.join(path.resolve(cwd), "package.json"), fileURLToPath(import.meta.url)];
  for (const from of searched) {
    try {
      const manifestPath = createRequire(from).resolve("prisma/package.json");
      const manifest = JSON.parse(await readFile(manifestPath, "utf8")) as { bin?: Record<string, string> };
      const bin = manifest.bin?.prisma;
      if (bin) return path.join(path.dirname(manifestPath), bin);
    } catch {
      // Not installed there; try the next place.
    }
  }
  throw new Error(`The Prisma CLI is not installed for ${cwd}; add "prisma" to the app's devDependencies`);
}

/**
 * The environment that lets `prisma generate` run offline. Generation runs in WebAssembly, but the
 * CLI first downloads the native schema engine unless PRISMA_SCHEMA_ENGINE_BINARY names an existing
 * file; it never starts that file during `generate`, so any file does (this module is used, and
 * being a non-executable script it would fail loudly if that ever changed).
 */
export function offlinePrismaEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return {
    ...env,
    PRISMA_SCHEMA_ENGINE_BINARY: env.PRISMA_SCHEMA_ENGINE_BINARY || fileURLToPath(import.meta.url),
    PRISMA_ENGINES_CHECKSUM_IGNORE_MISSING: "1",
    PRISMA_HIDE_UPDATE_MESSAGE: "1",
    CHECKPOINT_DISABLE: "1",
  };
}

/** Runs `prisma generate` in `cwd` without network access; rejects when it fails. */
export async function runPrismaGenerate(opts: PrismaGenerateOptions): Promise<{ output: string }> {
  const cli = await prismaCliPath(opts.cwd);
  const stdio = opts.stdio ?? "inherit";
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, "generate", ...(opts.args ?? [])], {
      cwd: opts.cwd,
      env: offlinePrismaEnv(opts.env),
      stdio: ["ignore", stdio, stdio],
    });
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code, signal) => {
      if (code === 0) resolve({ output });
      else
        reject(
          new Error(
            `prisma generate failed (${signal ?? `exit code ${code}`})${output ? `:\n${output}` : ""}`,
          ),
        );
    });
  });
}
