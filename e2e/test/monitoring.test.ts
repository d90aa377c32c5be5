import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { eventually, freePort, promtoolCheckMetrics } from "@arena/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { initiateAuth, newTenant, PLATFORM_POLL, provisionTenant } from "../src/clients.js";
import { type Platform, startPlatform } from "../src/platform.js";
import { type PrometheusServer, startPrometheus } from "../src/prometheus-server.js";
import { referenceFlow } from "../src/reference-flow.js";

/**
 * The monitoring a platform team switches on (infra/prometheus, infra/grafana), run for real: the
 * four apps as processes, a game server's traffic through them, and Debian's Prometheus scraping
 * them every second with the shipped rules. Every panel's and every rule's expression must
 * evaluate, every metric they name must be one an app exports, and every app's /metrics must
 * pass Prometheus' own linter.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const APPS = ["license", "matchmaker", "stats", "gateway"] as const;

interface Dashboard {
  panels: Array<{ type: string; title: string; targets?: Array<{ expr: string }> }>;
}
const dashboard = JSON.parse(
  readFileSync(join(root, "infra", "grafana", "dashboards", "arena.json"), "utf8"),
) as Dashboard;
/** Grafana's `$__rate_interval` is at least four scrape intervals; one minute covers it here. */
const panelQueries = dashboard.panels.flatMap((panel) =>
  (panel.targets ?? []).map((t) => ({
    panel: panel.title,
    expr: t.expr.replaceAll("$__rate_interval", "1m"),
  })),
);

interface RuleGroups {
  groups: Array<{ rules: Array<{ name: string; query: string; health: string; lastError?: string }> }>;
}

let platform: Platform;
let prometheus: PrometheusServer;
/** Where each app serves /metrics: the gateway on its own metrics port, as deployed. */
const metricsUrls: Record<string, string> = {};

/** The platform, its traffic and Prometheus, started once; afterAll waits for it even after a timeout. */
async function setUp(): Promise<void> {
  const gatewayMetricsPort = await freePort();
  platform = await startPlatform({
    env: { gateway: { METRICS_PORT: String(gatewayMetricsPort), METRICS_HOST: "127.0.0.1" } },
  });
  for (const app of APPS) metricsUrls[app] = `${platform[app].url}/metrics`;
  metricsUrls.gateway = `http://127.0.0.1:${gatewayMetricsPort}/metrics`;
  await gameServerTraffic();
  prometheus = await startPrometheus({
    jobs: Object.fromEntries(APPS.map((app) => [app, new URL(metricsUrls[app]!).host])),
    ruleFiles: [join(root, "infra", "prometheus", "rules.yml")],
  });
}

let setup: Promise<void>;
// Four app processes start one after the other: on a busy CI machine that alone can take a minute.
beforeAll(() => {
  setup = setUp();
  return setup;
}, 180_000);
afterAll(async () => {
  await setup?.catch(() => {});
  await prometheus?.close();
  await platform?.close();
});

/**
 * Traffic that makes the labelled series exist: the reference flow (logins, WebSocket pushes,
 * matches formed, confirmed and completed, leaderboards), a failed login, and one player left
 * waiting in a 2v2 game (the queue gauges).
 */
async function gameServerTraffic(): Promise<void> {
  const user = await provisionTenant(platform);
  await referenceFlow(platform.gateway.url, user);
  expect((await initiateAuth(platform.gateway.url, { ...user, password: "wrong-password" })).status).toBe(
    400,
  );
  const { rest } = await newTenant(platform);
  const game = { numTeams: 2, numPlayersPerTeam: 2, servers: ["eu-1"], targetWaitingTime: 1 };
  expect((await rest.call("PUT", "/games/lonely", game)).status).toBe(200);
  expect(
    (await rest.call("POST", "/games/lonely/players", { players: [{ playerId: "alone" }] })).status,
  ).toBe(204);
}

async function scrape(app: string): Promise<string> {
  const res = await fetch(metricsUrls[app]!);
  expect(res.status).toBe(200);
  return res.text();
}

describe("every app's /metrics", () => {
  it.each(APPS)("%s: passes promtool check metrics", async (app) => {
    expect(promtoolCheckMetrics(await scrape(app))).toEqual({ status: 0, output: "" });
  });

  it("is served by the gateway on its metrics port only", async () => {
    expect((await fetch(`${platform.gateway.url}/metrics`)).status).toBe(404);
  });
});

describe("a real Prometheus scraping the platform", () => {
  it("finds every target up, one job per app", async () => {
    const up = await eventually(async () => {
      const answer = await prometheus.query("up");
      const series = answer.data?.result ?? [];
      return series.length === APPS.length && series.every((s) => s.value[1] === "1") ? series : undefined;
    }, PLATFORM_POLL);
    expect(up.map((s) => s.metric.job).sort()).toEqual([...APPS].sort());
    const targets = await prometheus.api<{ activeTargets: Array<{ health: string; lastError: string }> }>(
      "/api/v1/targets",
    );
    expect(targets.activeTargets.map((t) => [t.health, t.lastError])).toEqual(APPS.map(() => ["up", ""]));
  });

  it("evaluates every dashboard panel's expression without error, and the key ones have series", async () => {
    // Two scrapes at least, so that rate() has samples to work on.
    await eventually(async () => {
      const answer = await prometheus.query("count_over_time(up[1m])");
      return answer.data?.result.every((s) => Number(s.value[1]) >= 3);
    }, PLATFORM_POLL);
    expect(panelQueries.length).toBeGreaterThanOrEqual(15);
    const withSeries = new Set<string>();
    for (const { panel, expr } of panelQueries) {
      const answer = await prometheus.query(expr);
      expect([panel, expr, answer.status, answer.error, answer.warnings]).toEqual([
        panel,
        expr,
        "success",
        undefined,
        undefined,
      ]);
      if (answer.data!.result.length > 0) withSeries.add(panel);
    }
    for (const panel of [
      "Waiting players per game",
      "Oldest wait per game",
      "Matches formed per second",
      "Submit to suggestion (p50, p95)",
      "Match completions per second",
      "Requests per second by service",
      "WebSocket connections",
      "Logins by outcome",
      "Matchmaker license status",
      "Up",
    ])
      expect(`${panel}: ${withSeries.has(panel) ? "series" : "no series"}`).toBe(`${panel}: series`);
    const waiting = await prometheus.query("max by (game) (stats_queue_waiting_players)");
    expect(waiting.data!.result.map((s) => [s.metric.game, s.value[1]])).toEqual([["lonely", "1"]]);
  });

  it("loads every rule and evaluates it without error", async () => {
    const rules = await eventually(async () => {
      const data = await prometheus.api<RuleGroups>("/api/v1/rules");
      const all = data.groups.flatMap((g) => g.rules);
      return all.length > 0 && all.every((r) => r.health !== "unknown") ? all : undefined;
    }, PLATFORM_POLL);
    expect(rules.length).toBeGreaterThanOrEqual(10);
    for (const rule of rules) {
      expect([rule.name, rule.health, rule.lastError ?? ""]).toEqual([rule.name, "ok", ""]);
      const answer = await prometheus.query(rule.query);
      expect([rule.name, answer.status, answer.error]).toEqual([rule.name, "success", undefined]);
    }
  });

  it("names, in every panel and rule, only metrics an app exports", async () => {
    const exported = new Set<string>(["up"]);
    for (const app of APPS)
      for (const [, name] of (await scrape(app)).matchAll(/^# TYPE (\S+) /gm)) exported.add(name!);
    const rules = (await prometheus.api<RuleGroups>("/api/v1/rules")).groups.flatMap((g) => g.rules);
    const expressions = [...panelQueries.map((q) => q.expr), ...rules.map((r) => r.query)];
    const named = new Set(
      expressions.flatMap((expr) =>
        // Names outside quotes: `reason="license_invalid"` is a label value.
        [
          ...expr.matchAll(
            /(?<!["\w])((?:stats|gateway|matchmaker|license|http|nodejs|process)_[a-z0-9_]+)/g,
          ),
        ].map(([, name]) => name!.replace(/_(bucket|count|sum)$/, "")),
      ),
    );
    expect(named.size).toBeGreaterThanOrEqual(15);
    expect([...named].filter((name) => !exported.has(name))).toEqual([]);
  });
});
