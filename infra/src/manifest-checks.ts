import {
  type ContainerPort,
  type LabelSelector,
  type PodEndpoint,
  selectorMatches,
} from "./network-policy.js";
import type { K8sObject } from "./render.js";

/**
 * The invariants every rendered manifest set must keep. Each check returns the problems it found,
 * one sentence each naming the object, so a test can assert both "none" and "this one".
 */

interface Probe {
  httpGet?: { path?: string; port?: number | string };
}

export interface Container {
  name: string;
  image?: string;
  command?: string[];
  ports?: ContainerPort[];
  env?: {
    name: string;
    value?: string;
    valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } };
  }[];
  envFrom?: { secretRef?: { name: string; optional?: boolean } }[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: {
    runAsNonRoot?: boolean;
    runAsUser?: number;
    allowPrivilegeEscalation?: boolean;
    readOnlyRootFilesystem?: boolean;
    privileged?: boolean;
    capabilities?: { drop?: string[]; add?: string[] };
  };
}

export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number; seccompProfile?: { type?: string } };
  automountServiceAccountToken?: boolean;
  terminationGracePeriodSeconds?: number;
}

interface PodTemplate {
  metadata?: { labels?: Record<string, string> };
  spec: PodSpec;
}

/** The apps' uid in their images (`USER node` in node:20-slim). */
export const APP_UID = 1000;

export function ref(o: K8sObject): string {
  return `${o.kind}/${o.metadata.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata.name}`;
}

export function podTemplate(o: K8sObject): PodTemplate | undefined {
  if (o.kind === "Deployment" || o.kind === "Job" || o.kind === "StatefulSet" || o.kind === "DaemonSet") {
    return (o.spec as { template: PodTemplate }).template;
  }
  return undefined;
}

const workloads = (objects: readonly K8sObject[]) => objects.filter((o) => podTemplate(o) !== undefined);
const ofKind = (objects: readonly K8sObject[], kind: string) => objects.filter((o) => o.kind === kind);

function find(objects: readonly K8sObject[], kind: string, name: string, namespace?: string) {
  return objects.find(
    (o) => o.kind === kind && o.metadata.name === name && o.metadata.namespace === namespace,
  );
}

function allContainers(spec: PodSpec): Container[] {
  return [...(spec.initContainers ?? []), ...spec.containers];
}

function portResolves(container: Container, port: number | string | undefined): boolean {
  if (port === undefined) return false;
  return (container.ports ?? []).some((p) =>
    typeof port === "number" ? p.containerPort === port : p.name === port,
  );
}

/** Probes on /readyz and /livez at a declared port; Deployments only (Jobs run to completion). */
export function checkProbes(objects: readonly K8sObject[]): string[] {
  const problems: string[] = [];
  for (const o of ofKind(objects, "Deployment")) {
    for (const c of podTemplate(o)?.spec.containers ?? []) {
      for (const [field, path] of [
        ["readinessProbe", "/readyz"],
        ["livenessProbe", "/livez"],
      ] as const) {
        const probe = c[field]?.httpGet;
        if (!probe) problems.push(`${ref(o)} container ${c.name} has no ${field}`);
        else if (probe.path !== path)
          problems.push(`${ref(o)} container ${c.name} ${field} is not on ${path}`);
        else if (!portResolves(c, probe.port)) {
          problems.push(`${ref(o)} container ${c.name} ${field} port ${probe.port} is not a container port`);
        }
      }
    }
  }
  return problems;
}

/** CPU and memory requests and limits on every container of every workload. */
export function checkResources(objects: readonly K8sObject[]): string[] {
  const problems: string[] = [];
  for (const o of workloads(objects)) {
    for (const c of allContainers(podTemplate(o)?.spec as PodSpec)) {
      for (const kind of ["requests", "limits"] as const) {
        for (const resource of ["cpu", "memory"]) {
          if (!c.resources?.[kind]?.[resource]) {
            problems.push(`${ref(o)} container ${c.name} has no ${resource} ${kind}`);
          }
        }
      }
    }
  }
  return problems;
}

/** Non-root (uid 1000), no privilege escalation, no capabilities, read-only root, seccomp. */
export function checkSecurityContexts(objects: readonly K8sObject[]): string[] {
  const problems: string[] = [];
  for (const o of workloads(objects)) {
    const spec = podTemplate(o)?.spec as PodSpec;
    const pod = spec.securityContext;
    if (pod?.runAsNonRoot !== true) problems.push(`${ref(o)} pod does not set runAsNonRoot`);
    if (pod?.runAsUser !== APP_UID) problems.push(`${ref(o)} pod does not run as uid ${APP_UID}`);
    if (pod?.seccompProfile?.type !== "RuntimeDefault")
      problems.push(`${ref(o)} pod has no RuntimeDefault seccomp`);
    if (spec.automountServiceAccountToken !== false) {
      problems.push(`${ref(o)} pod mounts a service account token it does not need`);
    }
    for (const c of allContainers(spec)) {
      const s = c.securityContext;
      const where = `${ref(o)} container ${c.name}`;
      if (s?.runAsNonRoot === false) problems.push(`${where} allows running as root`);
      if (s?.runAsUser !== undefined && s.runAsUser !== APP_UID)
        problems.push(`${where} runs as uid ${s.runAsUser}`);
      if (s?.allowPrivilegeEscalation !== false) problems.push(`${where} allows privilege escalation`);
      if (s?.privileged) problems.push(`${where} is privileged`);
      if (s?.readOnlyRootFilesystem !== true) problems.push(`${where} has a writable root filesystem`);
      if (!s?.capabilities?.drop?.includes("ALL")) problems.push(`${where} does not drop ALL capabilities`);
      if ((s?.capabilities?.add ?? []).length > 0) problems.push(`${where} adds capabilities`);
    }
  }
  return problems;
}

/** Production images: a registry name with an explicit tag that is not `latest` (or a digest). */
export function checkImageTags(objects: readonly K8sObject[]): string[] {
  const problems: string[] = [];
  for (const o of workloads(objects)) {
    for (const c of allContainers(podTemplate(o)?.spec as PodSpec)) {
      const image = parseImage(c.image ?? "");
      if (image.digest) continue;
      if (!image.tag) problems.push(`${ref(o)} container ${c.name} image ${c.image} has no tag (latest)`);
      else if (image.tag === "latest")
        problems.push(`${ref(o)} container ${c.name} image ${c.image} is latest`);
    }
  }
  return problems;
}

/** One value per variable: a patch by position that hit the wrong entry shows up as a duplicate. */
export function checkEnvNames(objects: readonly K8sObject[]): string[] {
  const problems: string[] = [];
  for (const o of workloads(objects)) {
    for (const c of allContainers(podTemplate(o)?.spec as PodSpec)) {
      const seen = new Set<string>();
      for (const e of c.env ?? []) {
        if (seen.has(e.name)) problems.push(`${ref(o)} container ${c.name} sets ${e.name} twice`);
        seen.add(e.name);
      }
    }
  }
  return problems;
}

/** What a stopping app needs beyond its drain delay and its in-flight timeout: closing its clients. */
export const SHUTDOWN_MARGIN_MS = 5000;

/**
 * The shortest drain delay worth having: a Service's endpoints and an ingress controller drop a
 * stopping pod within a second or two, more on a busy cluster.
 */
export const MIN_SHUTDOWN_DELAY_MS = 3000;

/**
 * Why an app given `graceSeconds` between SIGTERM and the kill, with the environment `env`, would
 * lose requests: no drain delay, or no time to finish the delay, the in-flight requests
 * (SHUTDOWN_TIMEOUT_MS) and the margin. Both settings must be set: the apps' default delay is 0.
 */
export function shutdownGraceProblems(
  graceSeconds: number,
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  const setting = (name: string) => {
    const value = env[name];
    return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
  };
  const delay = setting("SHUTDOWN_DELAY_MS");
  const timeout = setting("SHUTDOWN_TIMEOUT_MS");
  const problems: string[] = [];
  if (delay === undefined) problems.push("sets no SHUTDOWN_DELAY_MS");
  else if (delay < MIN_SHUTDOWN_DELAY_MS)
    problems.push(`sets SHUTDOWN_DELAY_MS ${delay}, below ${MIN_SHUTDOWN_DELAY_MS}`);
  if (timeout === undefined) problems.push("sets no SHUTDOWN_TIMEOUT_MS");
  if (
    delay !== undefined &&
    timeout !== undefined &&
    graceSeconds * 1000 < delay + timeout + SHUTDOWN_MARGIN_MS
  ) {
    problems.push(
      `has ${graceSeconds} s to stop, less than SHUTDOWN_DELAY_MS ${delay} + SHUTDOWN_TIMEOUT_MS ${timeout} + ${SHUTDOWN_MARGIN_MS} ms`,
    );
  }
  return problems;
}

/** Every Deployment's containers drain before they stop, within the pod's grace period (default 30 s). */
export function checkShutdownGrace(objects: readonly K8sObject[]): string[] {
  const problems: string[] = [];
  for (const o of ofKind(objects, "Deployment")) {
    const spec = podTemplate(o)?.spec as PodSpec;
    for (const c of spec.containers) {
      const env = Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value]));
      for (const problem of shutdownGraceProblems(spec.terminationGracePeriodSeconds ?? 30, env)) {
        problems.push(`${ref(o)} container ${c.name} ${problem}`);
      }
    }
  }
  return problems;
}

/** Autoscalers for the named Deployments, each aimed at a Deployment that exists and leaves it the count. */
export function checkAutoscalers(objects: readonly K8sObject[], required: readonly string[]): string[] {
  const problems: string[] = [];
  const hpas = ofKind(objects, "HorizontalPodAutoscaler");
  for (const hpa of hpas) {
    const spec = hpa.spec as {
      scaleTargetRef: { apiVersion?: string; kind: string; name: string };
      minReplicas?: number;
      maxReplicas: number;
    };
    const target = find(objects, spec.scaleTargetRef.kind, spec.scaleTargetRef.name, hpa.metadata.namespace);
    if (
      !target ||
      spec.scaleTargetRef.kind !== "Deployment" ||
      spec.scaleTargetRef.apiVersion !== "apps/v1"
    ) {
      problems.push(
        `${ref(hpa)} targets ${spec.scaleTargetRef.kind}/${spec.scaleTargetRef.name}, which does not exist`,
      );
      continue;
    }
    if ((spec.minReplicas ?? 1) < 2) problems.push(`${ref(hpa)} allows fewer than 2 replicas`);
    if ((spec.minReplicas ?? 1) > spec.maxReplicas)
      problems.push(`${ref(hpa)} has minReplicas above maxReplicas`);
    if ((target.spec as { replicas?: number }).replicas !== undefined) {
      problems.push(
        `${ref(target)} sets replicas although ${ref(hpa)} owns them (every apply would reset them)`,
      );
    }
  }
  for (const name of required) {
    const found = hpas.some(
      (h) => (h.spec as { scaleTargetRef: { name: string } }).scaleTargetRef.name === name,
    );
    if (!found) problems.push(`Deployment ${name} has no HorizontalPodAutoscaler`);
  }
  return problems;
}

/** Every PDB selects the pods of some Deployment, and every Deployment is covered by one. */
export function checkDisruptionBudgets(objects: readonly K8sObject[]): string[] {
  const problems: string[] = [];
  const deployments = ofKind(objects, "Deployment");
  const pdbs = ofKind(objects, "PodDisruptionBudget");
  const selects = (pdb: K8sObject, d: K8sObject) =>
    pdb.metadata.namespace === d.metadata.namespace &&
    selectorMatches(
      (pdb.spec as { selector: LabelSelector }).selector,
      podTemplate(d)?.metadata?.labels ?? {},
    );
  for (const pdb of pdbs) {
    if (!deployments.some((d) => selects(pdb, d))) problems.push(`${ref(pdb)} selects no Deployment's pods`);
  }
  for (const d of deployments) {
    if (!pdbs.some((pdb) => selects(pdb, d))) problems.push(`${ref(d)} has no PodDisruptionBudget`);
  }
  return problems;
}

/** Services select some workload's pods and their target ports exist on those pods. */
export function checkServices(objects: readonly K8sObject[]): string[] {
  const problems: string[] = [];
  for (const svc of ofKind(objects, "Service")) {
    const spec = svc.spec as {
      type?: string;
      selector?: Record<string, string>;
      ports: { name?: string; port: number; targetPort?: number | string }[];
    };
    if (spec.type === "ExternalName") continue;
    const backends = ofKind(objects, "Deployment").filter(
      (d) =>
        d.metadata.namespace === svc.metadata.namespace &&
        selectorMatches({ matchLabels: spec.selector ?? {} }, podTemplate(d)?.metadata?.labels ?? {}),
    );
    if (backends.length === 0) {
      problems.push(`${ref(svc)} selects no Deployment's pods`);
      continue;
    }
    for (const port of spec.ports) {
      for (const d of backends) {
        const containers = podTemplate(d)?.spec.containers ?? [];
        if (!containers.some((c) => portResolves(c, port.targetPort ?? port.port))) {
          problems.push(
            `${ref(svc)} port ${port.port} targets ${port.targetPort}, which ${ref(d)} does not expose`,
          );
        }
      }
    }
  }
  return problems;
}

/** For each app, a migration Job running `node dist/migrate.js` in exactly its Deployment's image. */
export function checkMigrationJobs(objects: readonly K8sObject[], apps: readonly string[]): string[] {
  const problems: string[] = [];
  for (const app of apps) {
    const deployment = ofKind(objects, "Deployment").find((d) => d.metadata.name === app);
    const image = podTemplate(deployment ?? ({} as K8sObject))?.spec.containers[0]?.image;
    const jobs = ofKind(objects, "Job").filter(
      (j) =>
        j.metadata.labels?.["app.kubernetes.io/name"] === app &&
        j.metadata.labels?.["app.kubernetes.io/component"] === "migration",
    );
    if (!deployment || !image) {
      problems.push(`Deployment ${app} is missing`);
      continue;
    }
    if (jobs.length === 0) problems.push(`${app} has no migration Job`);
    for (const job of jobs) {
      const containers = podTemplate(job)?.spec.containers ?? [];
      for (const c of containers) {
        if (c.image !== image) problems.push(`${ref(job)} runs ${c.image}, not ${app}'s image ${image}`);
        if (JSON.stringify(c.command) !== JSON.stringify(["node", "dist/migrate.js"])) {
          problems.push(`${ref(job)} does not run node dist/migrate.js`);
        }
      }
      if ((podTemplate(job)?.spec as { restartPolicy?: string } | undefined)?.restartPolicy !== "Never") {
        problems.push(`${ref(job)} restarts its pod in place instead of failing the attempt`);
      }
    }
  }
  return problems;
}

/** Every Secret a pod reads exists in its namespace with the key it reads. */
export function checkSecretReferences(objects: readonly K8sObject[]): string[] {
  const problems: string[] = [];
  const keysOf = (name: string, namespace: string | undefined) => {
    const secret = find(objects, "Secret", name, namespace);
    if (!secret) return undefined;
    return new Set([
      ...Object.keys((secret.data as object | undefined) ?? {}),
      ...Object.keys((secret.stringData as object | undefined) ?? {}),
    ]);
  };
  for (const o of workloads(objects)) {
    for (const c of allContainers(podTemplate(o)?.spec as PodSpec)) {
      for (const e of c.env ?? []) {
        const secretRef = e.valueFrom?.secretKeyRef;
        if (!secretRef || secretRef.optional) continue;
        const keys = keysOf(secretRef.name, o.metadata.namespace);
        if (!keys) problems.push(`${ref(o)} ${e.name} reads Secret ${secretRef.name}, which does not exist`);
        else if (!keys.has(secretRef.key)) {
          problems.push(
            `${ref(o)} ${e.name} reads key ${secretRef.key}, which Secret ${secretRef.name} lacks`,
          );
        }
      }
      for (const from of c.envFrom ?? []) {
        if (
          from.secretRef &&
          !from.secretRef.optional &&
          !keysOf(from.secretRef.name, o.metadata.namespace)
        ) {
          problems.push(`${ref(o)} envFrom Secret ${from.secretRef.name}, which does not exist`);
        }
      }
    }
  }
  return problems;
}

/** The same invariants as one list; `production` adds the image tag rule. */
export function checkManifests(
  objects: readonly K8sObject[],
  options: { production: boolean; autoscaled: readonly string[]; migrated: readonly string[] },
): string[] {
  return [
    ...checkProbes(objects),
    ...checkResources(objects),
    ...checkSecurityContexts(objects),
    ...(options.production ? checkImageTags(objects) : []),
    ...checkEnvNames(objects),
    ...checkAutoscalers(objects, options.autoscaled),
    ...checkDisruptionBudgets(objects),
    ...checkServices(objects),
    ...checkMigrationJobs(objects, options.migrated),
    ...checkSecretReferences(objects),
    ...checkShutdownGrace(objects),
  ];
}

/** A Deployment's pod as a network endpoint (its labels, namespace and ports), at a made-up address. */
export function podEndpoint(objects: readonly K8sObject[], deployment: string, ip: string): PodEndpoint {
  const d = ofKind(objects, "Deployment").find((o) => o.metadata.name === deployment);
  const template = d && podTemplate(d);
  if (!d || !template) throw new Error(`no Deployment ${deployment}`);
  const namespace = d.metadata.namespace ?? "default";
  return {
    kind: "pod",
    namespace,
    namespaceLabels: namespaceLabels(objects, namespace),
    labels: template.metadata?.labels ?? {},
    ip,
    ports: template.spec.containers.flatMap((c) => c.ports ?? []),
  };
}

/** A namespace's labels: the automatic `kubernetes.io/metadata.name` plus the rendered object's. */
export function namespaceLabels(objects: readonly K8sObject[], namespace: string): Record<string, string> {
  const object = objects.find((o) => o.kind === "Namespace" && o.metadata.name === namespace);
  return { ...object?.metadata.labels, "kubernetes.io/metadata.name": namespace };
}

/** `http://<service>:<port>` → the Service's backend pods' port, or why it does not resolve. */
export function resolveServiceUrl(
  objects: readonly K8sObject[],
  url: string,
  namespace: string,
): { deployment: string; port: number } | { problem: string } {
  const parsed = new URL(url);
  const service = find(objects, "Service", parsed.hostname, namespace);
  if (!service) return { problem: `${url}: no Service ${parsed.hostname} in ${namespace}` };
  const spec = service.spec as {
    selector?: Record<string, string>;
    ports: { port: number; targetPort?: number | string }[];
  };
  const port = spec.ports.find((p) => String(p.port) === (parsed.port || "80"));
  if (!port) return { problem: `${url}: Service ${parsed.hostname} has no port ${parsed.port}` };
  const backend = ofKind(objects, "Deployment").find(
    (d) =>
      d.metadata.namespace === namespace &&
      selectorMatches({ matchLabels: spec.selector ?? {} }, podTemplate(d)?.metadata?.labels ?? {}),
  );
  if (!backend) return { problem: `${url}: Service ${parsed.hostname} has no backend` };
  const target = port.targetPort ?? port.port;
  const containerPort = (podTemplate(backend)?.spec.containers ?? [])
    .flatMap((c) => c.ports ?? [])
    .find((p) => (typeof target === "number" ? p.containerPort === target : p.name === target));
  if (!containerPort) return { problem: `${url}: target port ${target} is not on ${ref(backend)}` };
  return { deployment: backend.metadata.name, port: containerPort.containerPort };
}

/** `name[:tag][@digest]`; a registry port's colon is not a tag. */
export function parseImage(image: string): { name: string; tag?: string; digest?: string } {
  const [withoutDigest = "", digest] = image.split("@");
  const slash = withoutDigest.lastIndexOf("/");
  const colon = withoutDigest.lastIndexOf(":");
  if (colon > slash)
    return { name: withoutDigest.slice(0, colon), tag: withoutDigest.slice(colon + 1), digest };
  return { name: withoutDigest, digest };
}
