#!/usr/bin/env node
// Creates an overlay's secret files from the base's examples, so `kubectl kustomize <overlay>`
// renders on a fresh checkout:
//   node infra/k8s/create-secret-files.mjs [overlay directory, default infra/k8s/overlays/production]
// For each base/secrets/<name>.env.example it writes <overlay>/secrets/<name>.env (git-ignored), with
// a new random value for each token and sealing secret, and the addresses and the license key left
// empty for the operator to fill in (it prints which). An existing file is left as it is.
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const k8s = dirname(fileURLToPath(import.meta.url));
const examples = join(k8s, "base", "secrets");
const overlay = resolve(process.argv[2] ?? join(k8s, "overlays", "production"));
const target = join(overlay, "secrets");

/** Keys that are secrets of our own making: random, 48 bytes in hex (every app wants ≥ 32 chars). */
const GENERATED = new Set(["ADMIN_TOKEN", "SIGNING_KEY_SECRET", "SERVICE_TOKEN"]);

if (!existsSync(join(overlay, "kustomization.yaml")) || !existsSync(target)) {
  console.error(`${overlay} is not an overlay with a secrets/ directory`);
  process.exit(2);
}

const toFill = [];
for (const example of readdirSync(examples)
  .filter((f) => f.endsWith(".env.example"))
  .sort()) {
  const file = join(target, example.replace(/\.example$/, ""));
  const shown = relative(process.cwd(), file);
  if (existsSync(file)) {
    console.log(`${shown}: exists, left as it is`);
    continue;
  }
  const lines = readFileSync(join(examples, example), "utf8")
    .split("\n")
    .filter((line) => /^[A-Z_][A-Z0-9_]*=/.test(line))
    .map((line) => {
      const key = line.slice(0, line.indexOf("="));
      if (GENERATED.has(key)) return `${key}=${randomBytes(48).toString("hex")}`;
      toFill.push(`${shown}: ${key}`);
      return `${key}=`;
    });
  writeFileSync(file, `${lines.join("\n")}\n`, { mode: 0o600 });
  console.log(`${shown}: written`);
}
if (toFill.length > 0)
  console.log(`Fill in before deploying (docs/operations.md, Secrets):\n  ${toFill.join("\n  ")}`);
