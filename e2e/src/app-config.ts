import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export interface AppConfig {
  /** The JSON Schema the app validates its environment with. */
  schema: { required: string[]; properties: Record<string, { default?: unknown }> };
  /** The app's own loader: throws its ConfigError when it would refuse to start. */
  load(env: Record<string, string>): Record<string, unknown>;
}

/**
 * An app's config schema and loader, from its build (`apps/<app>/dist/config.js`): the schema
 * export is the object with `properties` and `required`, the loader the `load…Config` function.
 */
export async function appConfig(app: string): Promise<AppConfig> {
  const path = join(root, "apps", app, "dist", "config.js");
  const mod = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  const schema = Object.values(mod).find(
    (v): v is AppConfig["schema"] =>
      typeof v === "object" && v !== null && "properties" in v && "required" in v,
  );
  const load = Object.entries(mod).find(
    ([k, v]) => /^load\w*Config$/.test(k) && typeof v === "function",
  )?.[1] as AppConfig["load"] | undefined;
  if (!schema || !load) throw new Error(`${path} exports no config schema and loader`);
  return { schema, load };
}
