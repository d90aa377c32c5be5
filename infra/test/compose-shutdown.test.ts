import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "@jest/globals";
import { parse } from "yaml";
import { shutdownGraceProblems } from "../src/manifest-checks.js";

// docker-compose.yml's shutdown settings, held to the rule the Kubernetes manifests keep
// (e2e/system/compose.test.ts checks the rest of the file through Compose itself).
const COMPOSE_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../docker-compose.yml");
const APPS = ["license", "matchmaker", "stats", "gateway"];

interface ComposeService {
  stop_grace_period?: string;
  environment?: Record<string, string>;
}

/** A Compose duration ("30s", "1m30s", "1500ms") in seconds; Compose's own default is 10 s. */
function durationSeconds(text = "10s"): number {
  const units: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 0.001 };
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.map((p) => p[0]).join("") !== text) throw new Error(`not a duration: ${text}`);
  return parts.reduce((sum, [, value, unit]) => sum + Number(value) * units[unit!]!, 0);
}

describe("docker-compose.yml", () => {
  const { services } = parse(readFileSync(COMPOSE_FILE, "utf8"), { merge: true }) as {
    services: Record<string, ComposeService>;
  };

  it("lets every app drain before Docker kills it: stop_grace_period ≥ delay + timeout + margin", () => {
    for (const app of APPS) {
      const service = services[app]!;
      const problems = shutdownGraceProblems(
        durationSeconds(service.stop_grace_period),
        service.environment ?? {},
      );
      expect([app, problems]).toEqual([app, []]);
    }
  });

  it("reads Compose's durations", () => {
    expect(durationSeconds("30s")).toBe(30);
    expect(durationSeconds("1m30s")).toBe(90);
    expect(durationSeconds("1500ms")).toBe(1.5);
    expect(durationSeconds()).toBe(10);
    expect(() => durationSeconds("30")).toThrow();
  });
});
