import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import {
  type Container,
  checkAutoscalers,
  checkDisruptionBudgets,
  checkImageTags,
  checkManifests,
  checkMigrationJobs,
  checkProbes,
  checkResources,
  checkSecretReferences,
  checkSecurityContexts,
  checkServices,
  checkShutdownGrace,
  MIN_SHUTDOWN_DELAY_MS,
  namespaceLabels,
  podEndpoint,
  podTemplate,
  resolveServiceUrl,
  SHUTDOWN_MARGIN_MS,
} from "../src/manifest-checks.js";
import { type Endpoint, isAllowed } from "../src/network-policy.js";
import { type K8sObject, parseEnvFile, RenderError, renderKustomization } from "../src/render.js";
import { validateAgainstSchemas } from "../src/schema-validation.js";
import { APP_CONFIGS } from "./app-configs.js";

const K8S_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../k8s");
const APPS = ["license", "matchmaker", "stats", "gateway"] as const;
const AUTOSCALED = ["matchmaker", "stats", "gateway"];
const MIGRATED = ["license", "stats", "gateway"];
const NAMESPACE = "arena";

/** A value of the right shape for each secret key, as an operator would fill secrets/*.env. */
function secretValue(file: string, key: string): string {
  const app = path.basename(file, ".env");
  const random = randomBytes(24).toString("hex");
  if (key === "DATABASE_URL") return `postgresql://arena_${app}:${random}@postgres:5432/arena_${app}`;
  if (key === "REDIS_URL") return `redis://:${random}@redis:6379`;
  if (key === "SMTP_URL") return `smtps://mailer:${random}@smtp.example.com:465`;
  if (key === "LICENSE_KEY") return `lk_${random}`;
  return random;
}

let workdir: string;
let base: K8sObject[];
let production: K8sObject[];

/** A deep copy, so a case can break it without touching the others. */
const copy = (objects: readonly K8sObject[]) => structuredClone(objects) as K8sObject[];
const get = (objects: readonly K8sObject[], kind: string, name: string) => {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind}/${name}`);
  return found;
};
const container = (objects: readonly K8sObject[], kind: string, name: string): Container => {
  const c = podTemplate(get(objects, kind, name))?.spec.containers[0];
  if (!c) throw new Error(`${kind}/${name} has no container`);
  return c;
};
const options = { production: true, autoscaled: AUTOSCALED, migrated: MIGRATED };

/** The operator's step of the README: node infra/k8s/create-secret-files.mjs [overlay]. */
function createSecretFiles(k8sDir: string): string {
  return execFileSync(process.execPath, [path.join(k8sDir, "create-secret-files.mjs")], {
    cwd: k8sDir,
    encoding: "utf8",
  });
}

beforeAll(() => {
  // The operator's steps on a copy: create the production secret files, then fill what is left.
  workdir = mkdtempSync(path.join(tmpdir(), "arena-k8s-"));
  cpSync(K8S_DIR, workdir, { recursive: true });
  createSecretFiles(workdir);
  const secrets = path.join(workdir, "overlays/production/secrets");
  for (const file of readdirSync(secrets).filter((f) => f.endsWith(".env"))) {
    const lines = parseEnvFile(path.join(secrets, file)).map(
      ([key, value]) => `${key}=${value || secretValue(file, key)}`,
    );
    writeFileSync(path.join(secrets, file), `${lines.join("\n")}\n`);
  }
  base = renderKustomization(path.join(workdir, "base"));
  production = renderKustomization(path.join(workdir, "overlays/production"));
});

afterAll(() => {
  rmSync(workdir, { recursive: true, force: true });
});

describe("rendering", () => {
  it("renders the base and the production overlay to the same set of objects", () => {
    const names = (objects: K8sObject[]) => objects.map((o) => `${o.kind}/${o.metadata.name}`).sort();
    expect(names(production)).toEqual([...names(base), "Ingress/gateway", "Ingress/license"].sort());
    expect(production.every((o) => o.kind === "Namespace" || o.metadata.namespace === NAMESPACE)).toBe(true);
  });

  it("fails on a fresh checkout's overlay naming the secret file to create, and renders once the script made them", () => {
    const fresh = mkdtempSync(path.join(tmpdir(), "arena-k8s-fresh-"));
    try {
      cpSync(K8S_DIR, fresh, { recursive: true });
      const overlay = path.join(fresh, "overlays/production");
      expect(() => renderKustomization(overlay)).toThrow(RenderError);
      expect(() => renderKustomization(overlay)).toThrow(/secrets\/license\.env/);
      const said = createSecretFiles(fresh);
      for (const name of ["license", "matchmaker", "stats", "gateway", "service-token"])
        expect(said).toContain(`overlays/production/secrets/${name}.env: written`);
      // What is left to the operator: the addresses and the license key, each named.
      expect(said).toMatch(/license\.env: DATABASE_URL/);
      expect(said).toMatch(/matchmaker\.env: LICENSE_KEY/);
      expect(said).not.toMatch(/: (ADMIN_TOKEN|SIGNING_KEY_SECRET|SERVICE_TOKEN)$/m);
      const names = renderKustomization(overlay).map((o) => `${o.kind}/${o.metadata.name}`);
      expect(names).toEqual(expect.arrayContaining(["Secret/service-token", "Ingress/gateway"]));
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });

  it("creates random secrets of its own per file, and never overwrites a secret file", () => {
    const secrets = path.join(workdir, "overlays/production/secrets");
    const value = (file: string, key: string) =>
      parseEnvFile(path.join(secrets, file)).find(([k]) => k === key)?.[1] ?? "";
    const before = readFileSync(path.join(secrets, "gateway.env"), "utf8");
    expect(value("gateway.env", "ADMIN_TOKEN")).toMatch(/^[0-9a-f]{96}$/);
    expect(value("gateway.env", "ADMIN_TOKEN")).not.toBe(value("license.env", "ADMIN_TOKEN"));
    expect(createSecretFiles(workdir)).toContain(
      "overlays/production/secrets/gateway.env: exists, left as it is",
    );
    expect(readFileSync(path.join(secrets, "gateway.env"), "utf8")).toBe(before);
  });

  it("labels only the Deployments as servers, so the migration step applies everything else first", () => {
    const component = (o: K8sObject) => o.metadata.labels?.["app.kubernetes.io/component"];
    const servers = production
      .filter((o) => component(o) === "server")
      .map((o) => `${o.kind}/${o.metadata.name}`);
    expect(servers.sort()).toEqual(APPS.map((app) => `Deployment/${app}`).sort());
    const migrations = production.filter((o) => component(o) === "migration").map((o) => o.metadata.name);
    expect(migrations.sort()).toEqual(MIGRATED.map((app) => `${app}-migrate`).sort());
  });

  it("lets each migration Job connect around a transaction pooler: DATABASE_MIGRATION_URL from its Secret, optional", () => {
    for (const app of MIGRATED) {
      const env = container(production, "Job", `${app}-migrate`).env ?? [];
      const direct = env.find((e) => e.name === "DATABASE_MIGRATION_URL")?.valueFrom?.secretKeyRef;
      expect(direct).toEqual({ name: `${app}-secrets`, key: "DATABASE_MIGRATION_URL", optional: true });
    }
  });

  it("commits no secret values: every example leaves every key empty, and real env files are ignored", () => {
    const examples = path.join(K8S_DIR, "base/secrets");
    const files = readdirSync(examples).filter((f) => f.endsWith(".env.example"));
    expect(files.length).toBe(5);
    for (const file of files) {
      for (const [key, value] of parseEnvFile(path.join(examples, file)))
        expect([file, key, value]).toEqual([file, key, ""]);
    }
    const ignore = readFileSync(path.join(K8S_DIR, "overlays/production/secrets/.gitignore"), "utf8");
    expect(ignore.split("\n")).toContain("*.env");
  });
});

describe("Kubernetes schemas", () => {
  it("validates every rendered object of the base and of production", () => {
    expect(validateAgainstSchemas(base)).toEqual([]);
    expect(validateAgainstSchemas(production)).toEqual([]);
  });

  it("reports an object that breaks its schema", () => {
    const broken = copy(production);
    const ports = container(broken, "Deployment", "stats").ports ?? [];
    (ports[0] as { containerPort: unknown }).containerPort = "eighty";
    (get(broken, "HorizontalPodAutoscaler", "gateway").spec as Record<string, unknown>).maxReplicas =
      undefined;
    const problems = validateAgainstSchemas(broken);
    expect(problems).toEqual([
      expect.stringMatching(/^Deployment\/stats: .*containerPort must be integer/),
      expect.stringMatching(/^HorizontalPodAutoscaler\/gateway: .*maxReplicas/),
    ]);
  });
});

describe("invariants", () => {
  it("holds for every object of production, and for the base except its untagged images", () => {
    expect(checkManifests(production, options)).toEqual([]);
    expect(checkManifests(base, { ...options, production: false })).toEqual([]);
    expect(checkImageTags(base)).toContain(
      "Deployment/arena/gateway container gateway image arena/gateway has no tag (latest)",
    );
  });

  it("pins production images to a tag, the same one in each app's Deployment and migration Job", () => {
    for (const app of APPS) {
      expect(container(production, "Deployment", app).image).toBe(`registry.example.com/arena/${app}:1.0.0`);
    }
  });

  // Each case breaks one rendered object the way a careless edit would, and names the report.
  const cases: [string, (o: K8sObject[]) => void, (o: K8sObject[]) => string[], string][] = [
    [
      "a Deployment without a readiness probe",
      (o) => delete container(o, "Deployment", "stats").readinessProbe,
      checkProbes,
      "Deployment/arena/stats container stats has no readinessProbe",
    ],
    [
      "a liveness probe on the readiness path",
      (o) => {
        const probe = container(o, "Deployment", "gateway").livenessProbe?.httpGet;
        if (probe) probe.path = "/readyz";
      },
      checkProbes,
      "Deployment/arena/gateway container gateway livenessProbe is not on /livez",
    ],
    [
      "a probe on a port the container does not expose",
      (o) => {
        const probe = container(o, "Deployment", "license").readinessProbe?.httpGet;
        if (probe) probe.port = "admin";
      },
      checkProbes,
      "Deployment/arena/license container license readinessProbe port admin is not a container port",
    ],
    [
      "a container without a memory limit",
      (o) => delete container(o, "Deployment", "matchmaker").resources?.limits?.memory,
      checkResources,
      "Deployment/arena/matchmaker container matchmaker has no memory limits",
    ],
    [
      "a migration Job without resources",
      (o) => delete container(o, "Job", "stats-migrate").resources,
      checkResources,
      "Job/arena/stats-migrate container migrate has no cpu requests",
    ],
    [
      "a pod that may run as root",
      (o) => {
        const spec = podTemplate(get(o, "Deployment", "license"))?.spec;
        if (spec?.securityContext) spec.securityContext.runAsNonRoot = false;
      },
      checkSecurityContexts,
      "Deployment/arena/license pod does not set runAsNonRoot",
    ],
    [
      "a container that allows privilege escalation",
      (o) => {
        const s = container(o, "Deployment", "gateway").securityContext;
        if (s) s.allowPrivilegeEscalation = true;
      },
      checkSecurityContexts,
      "Deployment/arena/gateway container gateway allows privilege escalation",
    ],
    [
      "a container that keeps its capabilities",
      (o) => {
        const s = container(o, "Job", "gateway-migrate").securityContext;
        if (s) s.capabilities = { drop: ["NET_RAW"] };
      },
      checkSecurityContexts,
      "Job/arena/gateway-migrate container migrate does not drop ALL capabilities",
    ],
    [
      "a writable root filesystem",
      (o) => {
        const s = container(o, "Deployment", "matchmaker").securityContext;
        if (s) s.readOnlyRootFilesystem = false;
      },
      checkSecurityContexts,
      "Deployment/arena/matchmaker container matchmaker has a writable root filesystem",
    ],
    [
      "a latest image in production",
      (o) => {
        container(o, "Deployment", "stats").image = "registry.example.com/arena/stats:latest";
      },
      checkImageTags,
      "Deployment/arena/stats container stats image registry.example.com/arena/stats:latest is latest",
    ],
    [
      "an autoscaler aimed at a Deployment that does not exist",
      (o) => {
        (
          get(o, "HorizontalPodAutoscaler", "stats").spec as { scaleTargetRef: { name: string } }
        ).scaleTargetRef.name = "statistics";
      },
      (o) => checkAutoscalers(o, AUTOSCALED),
      "HorizontalPodAutoscaler/arena/stats targets Deployment/statistics, which does not exist",
    ],
    [
      "a missing autoscaler",
      (o) => o.splice(o.indexOf(get(o, "HorizontalPodAutoscaler", "matchmaker")), 1),
      (o) => checkAutoscalers(o, AUTOSCALED),
      "Deployment matchmaker has no HorizontalPodAutoscaler",
    ],
    [
      "replicas on an autoscaled Deployment",
      (o) => {
        (get(o, "Deployment", "gateway").spec as { replicas?: number }).replicas = 3;
      },
      (o) => checkAutoscalers(o, AUTOSCALED),
      "Deployment/arena/gateway sets replicas although HorizontalPodAutoscaler/arena/gateway owns them (every apply would reset them)",
    ],
    [
      "a disruption budget whose selector matches no pods",
      (o) => {
        const spec = get(o, "PodDisruptionBudget", "license").spec as { selector: { matchLabels: object } };
        spec.selector.matchLabels = { "app.kubernetes.io/name": "licence" };
      },
      checkDisruptionBudgets,
      "PodDisruptionBudget/arena/license selects no Deployment's pods",
    ],
    [
      "a Service whose target port the pods do not expose",
      (o) => {
        const spec = get(o, "Service", "stats").spec as { ports: { targetPort: unknown }[] };
        if (spec.ports[0]) spec.ports[0].targetPort = 9999;
      },
      checkServices,
      "Service/arena/stats port 8081 targets 9999, which Deployment/arena/stats does not expose",
    ],
    [
      "a migration Job on an older image than its Deployment",
      (o) => {
        container(o, "Job", "license-migrate").image = "registry.example.com/arena/license:0.9.0";
      },
      (o) => checkMigrationJobs(o, MIGRATED),
      "Job/arena/license-migrate runs registry.example.com/arena/license:0.9.0, not license's image registry.example.com/arena/license:1.0.0",
    ],
    [
      "a missing migration Job",
      (o) => o.splice(o.indexOf(get(o, "Job", "gateway-migrate")), 1),
      (o) => checkMigrationJobs(o, MIGRATED),
      "gateway has no migration Job",
    ],
    [
      "a secret reference to a key the Secret lacks",
      (o) => {
        const data = get(o, "Secret", "service-token").data as Record<string, string>;
        delete data.SERVICE_TOKEN;
      },
      checkSecretReferences,
      "Deployment/arena/stats SERVICE_TOKEN reads key SERVICE_TOKEN, which Secret service-token lacks",
    ],
    [
      "a secret reference to a Secret that does not exist",
      (o) => o.splice(o.indexOf(get(o, "Secret", "matchmaker-secrets")), 1),
      checkSecretReferences,
      "Deployment/arena/matchmaker LICENSE_KEY reads Secret matchmaker-secrets, which does not exist",
    ],
    [
      "a grace period shorter than the drain",
      (o) => {
        const spec = podTemplate(get(o, "Deployment", "gateway"))?.spec;
        if (spec) spec.terminationGracePeriodSeconds = 20;
      },
      checkShutdownGrace,
      "Deployment/arena/gateway container gateway has 20 s to stop, less than SHUTDOWN_DELAY_MS 5000 + SHUTDOWN_TIMEOUT_MS 20000 + 5000 ms",
    ],
    [
      "a longer in-flight timeout without a longer grace period",
      (o) => {
        const e = container(o, "Deployment", "license").env?.find((v) => v.name === "SHUTDOWN_TIMEOUT_MS");
        if (e) e.value = "30000";
      },
      checkShutdownGrace,
      "Deployment/arena/license container license has 30 s to stop, less than SHUTDOWN_DELAY_MS 5000 + SHUTDOWN_TIMEOUT_MS 30000 + 5000 ms",
    ],
    [
      "a Deployment without a drain delay",
      (o) => {
        const c = container(o, "Deployment", "stats");
        c.env = c.env?.filter((v) => v.name !== "SHUTDOWN_DELAY_MS");
      },
      checkShutdownGrace,
      "Deployment/arena/stats container stats sets no SHUTDOWN_DELAY_MS",
    ],
  ];
  it.each(cases)("reports %s", (_name, breakIt, check, expected) => {
    const broken = copy(production);
    breakIt(broken);
    expect(check(broken)).toContain(expected);
    expect(checkManifests(broken, options)).toContain(expected);
  });
});

describe("the apps' configuration", () => {
  /** The environment a container starts with: literal values and the Secrets' decoded values. */
  function environment(objects: readonly K8sObject[], c: Container): Record<string, string> {
    const env: Record<string, string> = {};
    for (const e of c.env ?? []) {
      const secretRef = e.valueFrom?.secretKeyRef;
      if (secretRef) {
        const data = get(objects, "Secret", secretRef.name).data as Record<string, string>;
        env[e.name] = Buffer.from(data[secretRef.key] ?? "", "base64").toString();
      } else {
        env[e.name] = e.value ?? "";
      }
    }
    return env;
  }

  it("sets only variables each app reads, and production's environment passes the app's own config check", () => {
    for (const app of APPS) {
      const c = container(production, "Deployment", app);
      const env = environment(production, c);
      expect(Object.keys(env).filter((name) => !APP_CONFIGS[app]?.names.has(name))).toEqual([]);
      const config = APP_CONFIGS[app]?.load(env) as { PORT: number };
      expect(c.ports?.find((p) => p.name === "http")?.containerPort).toBe(config.PORT);
    }
  });

  it("makes every app refuse to start on the base's placeholder (empty) secrets", () => {
    for (const app of APPS) {
      const env = environment(base, container(base, "Deployment", app));
      expect(() => APP_CONFIGS[app]?.load(env)).toThrow(/is required but not set/);
    }
  });

  it("lets every app drain before it is killed: grace period ≥ SHUTDOWN_DELAY_MS + SHUTDOWN_TIMEOUT_MS + margin", () => {
    for (const app of APPS) {
      // As the app reads them (a misspelt name would leave its default, no delay).
      const config = APP_CONFIGS[app]?.load(
        environment(production, container(production, "Deployment", app)),
      ) as {
        SHUTDOWN_DELAY_MS: number;
        SHUTDOWN_TIMEOUT_MS: number;
      };
      const grace = podTemplate(get(production, "Deployment", app))?.spec.terminationGracePeriodSeconds;
      expect(config.SHUTDOWN_DELAY_MS).toBeGreaterThanOrEqual(MIN_SHUTDOWN_DELAY_MS);
      expect((grace ?? 30) * 1000).toBeGreaterThanOrEqual(
        config.SHUTDOWN_DELAY_MS + config.SHUTDOWN_TIMEOUT_MS + SHUTDOWN_MARGIN_MS,
      );
    }
  });

  it("gives stats and the gateway the same Redis key prefix and service token", () => {
    const stats = environment(production, container(production, "Deployment", "stats"));
    const gateway = environment(production, container(production, "Deployment", "gateway"));
    expect(stats.REDIS_KEY_PREFIX).toBe(gateway.REDIS_KEY_PREFIX);
    expect(stats.SERVICE_TOKEN).toBe(gateway.SERVICE_TOKEN);
    expect(stats.SERVICE_TOKEN?.length).toBeGreaterThanOrEqual(16);
  });
});

describe("network policies", () => {
  const internet: Endpoint = { kind: "external", ip: "198.51.100.7" };
  const databaseHost: Endpoint = { kind: "external", ip: "203.0.113.10" };
  const pod = (objects: K8sObject[], app: string, ip: string) => podEndpoint(objects, app, ip);
  const strangerPod = (
    objects: K8sObject[],
    namespace: string,
    labels: Record<string, string>,
  ): Endpoint => ({
    kind: "pod",
    namespace,
    namespaceLabels: namespaceLabels(objects, namespace),
    labels,
    ip: "10.244.9.9",
  });
  const allowed = (objects: K8sObject[], from: Endpoint, to: Endpoint, port: number) =>
    isAllowed(objects, { from, to, port });

  it("lets through exactly the platform's paths", () => {
    const o = production;
    const [gateway, stats, matchmaker, license] = [
      pod(o, "gateway", "10.244.0.10"),
      pod(o, "stats", "10.244.0.11"),
      pod(o, "matchmaker", "10.244.0.12"),
      pod(o, "license", "10.244.0.13"),
    ];
    expect(allowed(o, internet, gateway, 8080)).toBe(true);
    expect(allowed(o, gateway, stats, 8081)).toBe(true);
    expect(allowed(o, stats, matchmaker, 8000)).toBe(true);
    expect(allowed(o, matchmaker, license, 8082)).toBe(true);
    expect(allowed(o, internet, license, 8082)).toBe(true); // self-hosters' matchmakers

    expect(allowed(o, matchmaker, stats, 8081)).toBe(false);
    expect(allowed(o, license, stats, 8081)).toBe(false);
    expect(allowed(o, gateway, matchmaker, 8000)).toBe(false);
    expect(allowed(o, gateway, license, 8082)).toBe(false);
    expect(allowed(o, stats, license, 8082)).toBe(false);
    expect(allowed(o, internet, stats, 8081)).toBe(false);
    expect(allowed(o, internet, matchmaker, 8000)).toBe(false);
    expect(allowed(o, internet, gateway, 9090)).toBe(false); // the gateway's metrics port
    expect(allowed(o, gateway, stats, 9999)).toBe(false);
    expect(allowed(o, strangerPod(o, NAMESPACE, { app: "debug" }), stats, 8081)).toBe(false);
    expect(allowed(o, strangerPod(o, "default", { "app.kubernetes.io/name": "gateway" }), stats, 8081)).toBe(
      false,
    );
    // A copy of the gateway's labels on a migration pod is not the gateway.
    const gatewayMigration = {
      ...gateway,
      labels: { ...gateway.labels, "app.kubernetes.io/component": "migration" },
    };
    expect(allowed(o, gatewayMigration, stats, 8081)).toBe(false);
  });

  it("lets the apps reach PostgreSQL, Redis and SMTP outside the cluster, and nothing else", () => {
    const o = production;
    const migration = (app: string): Endpoint => {
      const job = podTemplate(get(o, "Job", `${app}-migrate`));
      return { ...pod(o, app, "10.244.1.1"), labels: job?.metadata?.labels ?? {} };
    };
    for (const app of ["license", "stats", "gateway"]) {
      expect(allowed(o, pod(o, app, "10.244.0.20"), databaseHost, 5432)).toBe(true);
      expect(allowed(o, migration(app), databaseHost, 5432)).toBe(true);
      expect(allowed(o, migration(app), databaseHost, 6379)).toBe(false);
    }
    expect(allowed(o, pod(o, "matchmaker", "10.244.0.21"), databaseHost, 5432)).toBe(false);
    expect(allowed(o, pod(o, "stats", "10.244.0.22"), databaseHost, 6379)).toBe(true);
    expect(allowed(o, pod(o, "gateway", "10.244.0.23"), databaseHost, 6379)).toBe(true);
    expect(allowed(o, pod(o, "license", "10.244.0.24"), databaseHost, 6379)).toBe(false);
    expect(allowed(o, pod(o, "license", "10.244.0.24"), internet, 587)).toBe(true);
    for (const app of APPS) expect(allowed(o, pod(o, app, "10.244.0.25"), internet, 443)).toBe(false);
  });

  it("lets Prometheus in the monitoring namespace scrape each app's metrics port, and no one else pose as it", () => {
    const o = production;
    const prometheus = strangerPod(o, "monitoring", { "app.kubernetes.io/name": "prometheus" });
    expect(allowed(o, prometheus, pod(o, "gateway", "10.244.0.30"), 9090)).toBe(true);
    expect(allowed(o, prometheus, pod(o, "stats", "10.244.0.31"), 8081)).toBe(true);
    expect(allowed(o, prometheus, pod(o, "matchmaker", "10.244.0.32"), 8000)).toBe(true);
    expect(allowed(o, prometheus, pod(o, "gateway", "10.244.0.30"), 8080)).toBe(true); // public anyway
    const impostor = strangerPod(o, NAMESPACE, { "app.kubernetes.io/name": "prometheus" });
    expect(allowed(o, impostor, pod(o, "stats", "10.244.0.31"), 8081)).toBe(false);
  });

  it("allows every service URL and database URL the apps are configured with", () => {
    const o = production;
    const problems: string[] = [];
    for (const app of APPS) {
      const c = container(o, "Deployment", app);
      const urls = (c.env ?? []).flatMap((e) => {
        if (e.name === "PUBLIC_URL" || !e.name.endsWith("_URL")) return [];
        if (e.value !== undefined) return [[e.name, e.value] as const];
        const secretRef = e.valueFrom?.secretKeyRef;
        if (!secretRef) return [];
        const data = get(o, "Secret", secretRef.name).data as Record<string, string>;
        return [[e.name, Buffer.from(data[secretRef.key] ?? "", "base64").toString()] as const];
      });
      for (const [name, url] of urls) {
        if (name === "SMTP_URL") continue; // outside the cluster by definition
        const host = new URL(url).hostname;
        const service = get(o, "Service", host);
        const from = pod(o, app, "10.244.2.1");
        if ((service.spec as { type?: string }).type === "ExternalName") {
          const port = Number(new URL(url).port);
          if (!allowed(o, from, databaseHost, port))
            problems.push(`${app} ${name} ${host}:${port} is blocked`);
          continue;
        }
        const target = resolveServiceUrl(o, url, NAMESPACE);
        if ("problem" in target) {
          problems.push(`${app} ${name}: ${target.problem}`);
          continue;
        }
        if (!allowed(o, from, pod(o, target.deployment, "10.244.2.2"), target.port)) {
          problems.push(`${app} ${name} ${url} is blocked`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it("notices when a policy is loosened or a needed one is lost", () => {
    const loosened = copy(production);
    loosened.push({
      apiVersion: "networking.k8s.io/v1",
      kind: "NetworkPolicy",
      metadata: { name: "allow-all-ingress", namespace: NAMESPACE },
      spec: { podSelector: {}, policyTypes: ["Ingress"], ingress: [{}] },
    });
    // From a namespace without policies, so only stats' ingress decides.
    const stranger = strangerPod(loosened, "default", { app: "debug" });
    expect(allowed(production, stranger, pod(production, "stats", "10.244.0.11"), 8081)).toBe(false);
    expect(allowed(loosened, stranger, pod(loosened, "stats", "10.244.0.11"), 8081)).toBe(true);

    const withoutStatsEgress = copy(production);
    const statsPolicy = get(withoutStatsEgress, "NetworkPolicy", "stats").spec as { egress?: unknown[] };
    statsPolicy.egress = [];
    const [stats, matchmaker] = [
      pod(withoutStatsEgress, "stats", "10.244.0.11"),
      pod(withoutStatsEgress, "matchmaker", "10.244.0.12"),
    ];
    expect(allowed(withoutStatsEgress, stats, matchmaker, 8000)).toBe(false);

    // Without stats' own policy the default deny still isolates it.
    const withoutStatsPolicy = copy(production).filter(
      (o) => !(o.kind === "NetworkPolicy" && o.metadata.name === "stats"),
    );
    const debug = strangerPod(withoutStatsPolicy, "default", { app: "debug" });
    expect(allowed(withoutStatsPolicy, debug, pod(withoutStatsPolicy, "stats", "10.244.0.11"), 8081)).toBe(
      false,
    );
    // allow-prometheus isolates every server's ingress too; only without all three is stats open.
    const open = withoutStatsPolicy.filter(
      (o) => !["default-deny", "allow-prometheus"].includes(o.metadata.name),
    );
    expect(allowed(open, debug, pod(open, "stats", "10.244.0.11"), 8081)).toBe(true);
  });
});
