import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";
import type * as SchemaEngineWasm from "@prisma/schema-engine-wasm/schema_engine_bg";
import { SchemaEngineAdapterFactory } from "./engine-adapter.js";

export type SchemaEngine = SchemaEngineWasm.SchemaEngine;
export type { MigrationList, SchemaFilter } from "@prisma/schema-engine-wasm/schema_engine_bg";

/** No tables or enums are managed outside the Prisma schema. */
export const NO_FILTERS: SchemaEngineWasm.SchemaFilter = { externalTables: [], externalEnums: [] };

type Bindings = typeof SchemaEngineWasm;
type WasmExports = Record<string, unknown> & { __wbindgen_start(): void };
/** The part of the WebAssembly global used here (the project's `lib` has no DOM/WebAssembly types). */
interface WebAssemblyApi {
  compile(bytes: Uint8Array): Promise<object>;
  instantiate(
    module: object,
    imports: Record<string, Record<string, unknown>>,
  ): Promise<{ exports: WasmExports }>;
}
const wasmApi = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;

let bindings: Promise<Bindings> | undefined;

/**
 * The engine's timers (e.g. the 10 s timeout racing its advisory lock) are set and never cleared,
 * which kept every `migrate` process alive for ten seconds after it was done. They are unref'd so
 * they never hold the process open, and cleared once no engine is running any more.
 */
const engineTimers = new Set<NodeJS.Timeout>();
let runningEngines = 0;

function engineSetTimeout(callback: () => void, delayMs: number): NodeJS.Timeout {
  const timer = setTimeout(() => {
    engineTimers.delete(timer);
    callback();
  }, delayMs >>> 0);
  timer.unref();
  engineTimers.add(timer);
  return timer;
}

function withEngineTimers(wasm: Bindings): Record<string, unknown> {
  const imports: Record<string, unknown> = { ...wasm };
  for (const name of Object.keys(imports)) {
    if (name.startsWith("__wbg_setTimeout_")) imports[name] = engineSetTimeout;
  }
  return imports;
}

/**
 * The package's main entry imports its `.wasm` file as an ES module, which Node 20 only allows
 * behind --experimental-wasm-modules; instantiating the bindings' `_bg` module by hand does the
 * same thing without flags (and also works inside Jest's VM modules).
 */
async function loadBindings(): Promise<Bindings> {
  const require = createRequire(import.meta.url);
  const bindingsPath = require.resolve("@prisma/schema-engine-wasm/schema_engine_bg");
  const wasmBytes = await readFile(path.join(path.dirname(bindingsPath), "schema_engine_bg.wasm"));
  const wasm: Bindings = await import("@prisma/schema-engine-wasm/schema_engine_bg");
  const module = await wasmApi.compile(wasmBytes);
  const instance = await wasmApi.instantiate(module, { "./schema_engine_bg.js": withEngineTimers(wasm) });
  wasm.__wbg_set_wasm(instance.exports);
  instance.exports.__wbindgen_start();
  return wasm;
}

function schemaEngineBindings(): Promise<Bindings> {
  bindings ??= loadBindings().catch((error: unknown) => {
    bindings = undefined;
    throw error;
  });
  return bindings;
}

/** The git hash of the WebAssembly schema engine in use. */
export async function schemaEngineVersion(): Promise<string> {
  return (await schemaEngineBindings()).version();
}

interface EngineLogLine {
  level?: string;
  fields?: { message?: string };
}

export interface OpenSchemaEngineOptions {
  databaseUrl: string;
  schemaPath: string;
  schemaText: string;
  /** Receives the engine's warnings and errors, and its info messages when `verbose`. */
  log?: (msg: string) => void;
}

/**
 * Runs `work` with a schema engine connected to `databaseUrl`, then frees the engine and closes
 * every connection and shadow database it opened, whatever happens.
 */
export async function withSchemaEngine<T>(
  options: OpenSchemaEngineOptions,
  work: (engine: SchemaEngine) => Promise<T>,
): Promise<T> {
  const { SchemaEngine } = await schemaEngineBindings();
  const factory = new SchemaEngineAdapterFactory(options.databaseUrl);
  const onLog = (line: string) => {
    if (!options.log) return;
    try {
      const parsed = JSON.parse(line) as EngineLogLine;
      if (parsed.level === "WARN" || parsed.level === "ERROR") {
        options.log(`schema engine ${parsed.level.toLowerCase()}: ${parsed.fields?.message ?? line}`);
      }
    } catch {
      options.log(line);
    }
  };
  let engine: SchemaEngine | undefined;
  runningEngines += 1;
  try {
    engine = await SchemaEngine.new(
      { datamodels: [[options.schemaPath, options.schemaText]] },
      onLog,
      bindMigrationAwareSqlAdapterFactory(factory),
    );
    return await work(engine);
  } finally {
    engine?.free();
    runningEngines -= 1;
    if (runningEngines === 0) {
      for (const timer of engineTimers) clearTimeout(timer);
      engineTimers.clear();
    }
    await factory.close();
  }
}
