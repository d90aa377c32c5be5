import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "@jest/globals";
import { parse, parseAllDocuments } from "yaml";
import { gatewayConfigSchema } from "../../apps/gateway/src/config.js";
import { licenseConfigSchema } from "../../apps/license/src/config.js";
import { configSchema as matchmakerConfigSchema } from "../../apps/matchmaker/src/config.js";
import { statsConfigSchema } from "../../apps/stats/src/config.js";

/**
 * The monitoring material of infra/: Prometheus' configuration and rules as Prometheus' own
 * promtool reads them, their unit tests, and the scrape targets held against the Compose file and
 * the Kubernetes manifests (e2e/test/monitoring.test.ts runs them on a real Prometheus).
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const file = (relative: string) => path.join(root, relative);
const readYaml = (relative: string) => parse(readFileSync(file(relative), "utf8"), { merge: true });

const APPS = ["license", "matchmaker", "stats", "gateway"] as const;
const DEFAULT_PORTS = Object.fromEntries(
  [licenseConfigSchema, matchmakerConfigSchema, statsConfigSchema, gatewayConfigSchema].map((schema, i) => [
    APPS[i],
    schema.properties.PORT.default,
  ]),
) as Record<(typeof APPS)[number], number>;

function promtool(...args: string[]) {
  const run = spawnSync("promtool", args, { cwd: root, encoding: "utf8", timeout: 60_000 });
  if (run.error)
    throw new Error(`promtool could not run (Debian's prometheus package): ${run.error.message}`);
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

interface RuleTest {
  alert_rule_test?: Array<{ alertname: string; exp_alerts?: unknown[] }>;
}

const rules = readYaml("infra/prometheus/rules.yml") as {
  groups: Array<{ rules: Array<{ alert: string; expr: string }> }>;
};
const alerts = rules.groups.flatMap((g) => g.rules.map((r) => r.alert));

describe("Prometheus' configuration and rules", () => {
  it("pass promtool check config (which loads the rule file too) and promtool check rules", () => {
    const config = promtool("check", "config", "infra/prometheus.yml");
    expect(config.output).toContain("SUCCESS: 1 rule files found");
    expect(config.status).toBe(0);
    const checked = promtool("check", "rules", "infra/prometheus/rules.yml");
    expect(checked.output).toContain(`SUCCESS: ${alerts.length} rules found`);
    expect(checked.status).toBe(0);
  });

  it("pass their unit tests (promtool test rules)", () => {
    const tested = promtool("test", "rules", "infra/prometheus/rules.test.yml");
    expect(tested.output).toContain("SUCCESS");
    expect(tested.status).toBe(0);
  });

  it("test every alert both firing and silent, and name each one in docs/operations.md", () => {
    const tests = (readYaml("infra/prometheus/rules.test.yml") as { tests: RuleTest[] }).tests.flatMap(
      (t) => t.alert_rule_test ?? [],
    );
    const operations = readFileSync(file("docs/operations.md"), "utf8");
    expect(alerts.length).toBeGreaterThanOrEqual(10);
    for (const alert of alerts) {
      const cases = tests.filter((t) => t.alertname === alert);
      const fires = cases.some((t) => (t.exp_alerts ?? []).length > 0);
      const silent = cases.some((t) => (t.exp_alerts ?? []).length === 0);
      expect(`${alert}: fires ${fires}, silent ${silent}`).toBe(`${alert}: fires true, silent true`);
      expect(`${alert} documented: ${operations.includes(`\`${alert}\``)}`).toBe(`${alert} documented: true`);
    }
  });
});

describe("the scrape targets", () => {
  const prometheus = readYaml("infra/prometheus.yml") as {
    scrape_configs: Array<{ job_name: string; static_configs: Array<{ targets: string[] }> }>;
  };
  const compose = readYaml("docker-compose.yml") as {
    services: Record<string, { environment?: Record<string, string> }>;
  };
  const k8s = (app: string) =>
    parseAllDocuments(readFileSync(file(`infra/k8s/base/${app}.yaml`), "utf8")).map((d) =>
      d.toJS(),
    ) as Array<{
      kind: string;
      metadata: { name: string };
      spec: {
        ports?: Array<{ port: number }>;
        template?: { spec: { containers: Array<{ env?: Array<{ name: string; value?: string }> }> } };
      };
    }>;

  it("scrape each app, one job per app, on the port that serves its /metrics in Compose and on Kubernetes", () => {
    expect(prometheus.scrape_configs.map((c) => c.job_name).sort()).toEqual([...APPS].sort());
    for (const app of APPS) {
      const job = prometheus.scrape_configs.find((c) => c.job_name === app)!;
      const targets = job.static_configs.flatMap((s) => s.targets);
      const env = compose.services[app]?.environment ?? {};
      // The gateway moves /metrics to METRICS_PORT, listening beyond loopback for Prometheus.
      const port = app === "gateway" ? Number(env.METRICS_PORT) : Number(env.PORT ?? DEFAULT_PORTS[app]);
      if (app === "gateway") expect(env.METRICS_HOST).toBe("0.0.0.0");
      expect(targets).toEqual([`${app}:${port}`]);
      const objects = k8s(app);
      const service = objects.find((o) => o.kind === "Service" && o.metadata.name === app)!;
      expect(`${app} Service ports ${service.spec.ports!.map((p) => p.port)}`).toContain(String(port));
      if (app === "gateway") {
        const deployment = objects.find((o) => o.kind === "Deployment")!;
        const envs = deployment.spec.template!.spec.containers.flatMap((c) => c.env ?? []);
        expect(envs.find((e) => e.name === "METRICS_PORT")?.value).toBe(String(port));
      }
    }
  });
});

describe("the Grafana provisioning", () => {
  const dashboard = JSON.parse(readFileSync(file("infra/grafana/dashboards/arena.json"), "utf8")) as {
    uid: string;
    panels: Array<{
      type: string;
      title: string;
      datasource?: { uid: string };
      targets?: Array<{ expr: string }>;
    }>;
  };
  const datasources = readYaml("infra/grafana/provisioning/datasources/prometheus.yml") as {
    datasources: Array<{ uid: string; url: string; type: string }>;
  };
  const providers = readYaml("infra/grafana/provisioning/dashboards/arena.yml") as {
    providers: Array<{ options: { path: string } }>;
  };
  const grafana = readYaml("docker-compose.yml").services.grafana as { volumes: string[] };

  it("points every panel at the provisioned Prometheus, which is the Compose file's", () => {
    const [source] = datasources.datasources;
    expect(datasources.datasources).toHaveLength(1);
    expect(source!.type).toBe("prometheus");
    expect(source!.url).toBe("http://prometheus:9090");
    const panels = dashboard.panels.filter((p) => p.type !== "row");
    expect(panels.length).toBeGreaterThanOrEqual(12);
    for (const panel of panels) {
      expect(`${panel.title}: ${panel.datasource?.uid}`).toBe(`${panel.title}: ${source!.uid}`);
      expect(panel.targets?.length).toBeGreaterThan(0);
      for (const target of panel.targets ?? []) expect(target.expr.trim()).not.toBe("");
    }
  });

  it("loads the dashboards from where Compose mounts infra/grafana/dashboards", () => {
    const mount = grafana.volumes.find((v) => v.startsWith("./infra/grafana/dashboards:"));
    expect(mount?.split(":")[1]).toBe(providers.providers[0]!.options.path);
    expect(grafana.volumes).toContain("./infra/grafana/provisioning:/etc/grafana/provisioning:ro");
  });
});
