import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";

/**
 * The manifests as an operator renders them: `kubectl kustomize <dir>` (kubectl ≥ 1.27, kustomize
 * v5), the very command the README gives, so what the tests check is what `kubectl apply` gets.
 */

export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; [key: string]: unknown };
  [key: string]: unknown;
};

export class RenderError extends Error {
  override name = "RenderError";
}

/** `kubectl kustomize dir` as objects; its own message (e.g. a missing secrets/*.env) when it fails. */
export function renderKustomization(dir: string): K8sObject[] {
  let output: string;
  try {
    output = execFileSync("kubectl", ["kustomize", dir], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (err) {
    const { stderr, message } = err as { stderr?: string; message: string };
    throw new RenderError(`kubectl kustomize ${dir} failed: ${(stderr || message).trim()}`);
  }
  return parseAllDocuments(output).map((doc) => {
    if (doc.errors.length > 0) throw new RenderError(`kubectl kustomize ${dir}: ${doc.errors[0]?.message}`);
    return withSecretDataUnwrapped(doc.toJS() as K8sObject);
  });
}

/**
 * kustomize writes a long base64 value as a block over several lines; the API server's decoder
 * skips the line breaks, so the value stored is the unwrapped one, and that is what is checked.
 */
function withSecretDataUnwrapped(o: K8sObject): K8sObject {
  if (o.kind !== "Secret" || typeof o.data !== "object" || o.data === null) return o;
  const data = Object.entries(o.data as Record<string, string>).map(([k, v]) => [k, v.replace(/\s+/g, "")]);
  return { ...o, data: Object.fromEntries(data) };
}

/** kustomize's env file: `KEY=VALUE` lines; blank lines and `#` comments skipped; values as written. */
export function parseEnvFile(file: string): [string, string][] {
  const pairs: [string, string][] = [];
  readFileSync(file, "utf8")
    .split("\n")
    .forEach((raw, i) => {
      const line = raw.replace(/\r$/, "").trimStart();
      if (line === "" || line.startsWith("#")) return;
      const at = line.indexOf("=");
      if (at <= 0) throw new RenderError(`${file}:${i + 1}: expected KEY=VALUE`);
      pairs.push([line.slice(0, at), line.slice(at + 1)]);
    });
  return pairs;
}
