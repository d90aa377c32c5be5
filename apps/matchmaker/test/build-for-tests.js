// Jest global setup: the license tests run the real license service from its build, and the worker
// span scanner runs this app's compiled worker, so build both (and what they depend on) first.
// Turbo's cache makes this a no-op when nothing changed.
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

export default function buildForTests() {
  execFileSync(
    "pnpm",
    [
      "exec",
      "turbo",
      "run",
      "build",
      "--filter=@arena/license",
      "--filter=@arena/matchmaker",
      "--output-logs=errors-only",
    ],
    {
      cwd: root,
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
}
