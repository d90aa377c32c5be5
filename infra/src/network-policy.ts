import type { K8sObject } from "./render.js";

/**
 * Evaluates Kubernetes NetworkPolicies (networking.k8s.io/v1) the way the API defines them, for
 * one connection: a pod is isolated in a direction once any policy of its namespace selects it for
 * that direction, and then only what some selecting policy's rules allow passes; a connection
 * needs both the source's egress and the destination's ingress to allow it.
 */

export type Labels = Readonly<Record<string, string>>;

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: {
    key: string;
    operator: "In" | "NotIn" | "Exists" | "DoesNotExist";
    values?: string[];
  }[];
}

export interface ContainerPort {
  name?: string;
  containerPort: number;
  protocol?: string;
}

/** A pod in the cluster, or an address outside it (the internet, a database host). */
export interface PodEndpoint {
  kind: "pod";
  namespace: string;
  namespaceLabels: Labels;
  labels: Labels;
  ip: string;
  ports?: readonly ContainerPort[];
}

export type Endpoint = PodEndpoint | { kind: "external"; ip: string };

interface PolicyPeer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: { cidr: string; except?: string[] };
}

interface PolicyPort {
  protocol?: string;
  port?: number | string;
  endPort?: number;
}

interface PolicyRule {
  from?: PolicyPeer[];
  to?: PolicyPeer[];
  ports?: PolicyPort[];
}

interface NetworkPolicySpec {
  podSelector: LabelSelector;
  policyTypes?: ("Ingress" | "Egress")[];
  ingress?: PolicyRule[];
  egress?: PolicyRule[];
}

export interface Connection {
  from: Endpoint;
  to: Endpoint;
  port: number;
  protocol?: "TCP" | "UDP" | "SCTP";
}

export function selectorMatches(selector: LabelSelector | undefined, labels: Labels): boolean {
  if (selector === undefined) return false;
  for (const [key, value] of Object.entries(selector.matchLabels ?? {}))
    if (labels[key] !== value) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, e.key);
    const value = labels[e.key];
    const values = e.values ?? [];
    if (e.operator === "In" && !(has && values.includes(value as string))) return false;
    if (e.operator === "NotIn" && has && values.includes(value as string)) return false;
    if (e.operator === "Exists" && !has) return false;
    if (e.operator === "DoesNotExist" && has) return false;
  }
  return true;
}

function ipv4(address: string): number {
  const parts = address.split(".").map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) {
    throw new Error(`not an IPv4 address: ${address}`);
  }
  return parts.reduce((n, p) => n * 256 + p, 0);
}

export function cidrContains(cidr: string, address: string): boolean {
  const [base = "", bits = "32"] = cidr.split("/");
  const size = 2 ** (32 - Number(bits));
  const start = Math.floor(ipv4(base) / size) * size;
  const ip = ipv4(address);
  return ip >= start && ip < start + size;
}

function policyTypes(spec: NetworkPolicySpec): ("Ingress" | "Egress")[] {
  if (spec.policyTypes) return spec.policyTypes;
  return spec.egress ? ["Ingress", "Egress"] : ["Ingress"];
}

function peerMatches(peer: PolicyPeer, policyNamespace: string, endpoint: Endpoint): boolean {
  if (peer.ipBlock) {
    // Pod addresses count as well: most network plugins apply ipBlock to them too.
    return (
      cidrContains(peer.ipBlock.cidr, endpoint.ip) &&
      !(peer.ipBlock.except ?? []).some((except) => cidrContains(except, endpoint.ip))
    );
  }
  if (endpoint.kind !== "pod") return false;
  const namespaceOk = peer.namespaceSelector
    ? selectorMatches(peer.namespaceSelector, endpoint.namespaceLabels)
    : endpoint.namespace === policyNamespace;
  const podOk = peer.podSelector ? selectorMatches(peer.podSelector, endpoint.labels) : true;
  return namespaceOk && podOk;
}

/** Named ports are looked up on the destination pod (an external address has none). */
function portMatches(rulePort: PolicyPort, connection: Connection): boolean {
  const protocol = connection.protocol ?? "TCP";
  if ((rulePort.protocol ?? "TCP") !== protocol) return false;
  if (rulePort.port === undefined) return true;
  if (typeof rulePort.port === "number") {
    const end = rulePort.endPort ?? rulePort.port;
    return connection.port >= rulePort.port && connection.port <= end;
  }
  if (connection.to.kind !== "pod") return false;
  return (connection.to.ports ?? []).some(
    (p) =>
      p.name === rulePort.port && p.containerPort === connection.port && (p.protocol ?? "TCP") === protocol,
  );
}

function ruleAllows(
  rule: PolicyRule,
  peers: PolicyPeer[] | undefined,
  namespace: string,
  peer: Endpoint,
  c: Connection,
) {
  const peerOk =
    peers === undefined || peers.length === 0 || peers.some((p) => peerMatches(p, namespace, peer));
  const portOk =
    rule.ports === undefined || rule.ports.length === 0 || rule.ports.some((p) => portMatches(p, c));
  return peerOk && portOk;
}

function directionAllows(
  policies: readonly K8sObject[],
  pod: Endpoint,
  direction: "Ingress" | "Egress",
  connection: Connection,
): boolean {
  if (pod.kind !== "pod") return true; // outside the cluster: no policy of ours applies
  const selecting = policies.filter((p) => {
    const spec = p.spec as NetworkPolicySpec;
    return (
      p.metadata.namespace === pod.namespace &&
      policyTypes(spec).includes(direction) &&
      selectorMatches(spec.podSelector, pod.labels)
    );
  });
  if (selecting.length === 0) return true; // not isolated in this direction
  const peer = direction === "Ingress" ? connection.from : connection.to;
  return selecting.some((p) => {
    const spec = p.spec as NetworkPolicySpec;
    const namespace = p.metadata.namespace ?? "";
    const rules = (direction === "Ingress" ? spec.ingress : spec.egress) ?? [];
    return rules.some((rule) =>
      ruleAllows(rule, direction === "Ingress" ? rule.from : rule.to, namespace, peer, connection),
    );
  });
}

/** Whether the rendered policies let this connection through. */
export function isAllowed(objects: readonly K8sObject[], connection: Connection): boolean {
  const policies = objects.filter((o) => o.kind === "NetworkPolicy");
  return (
    directionAllows(policies, connection.from, "Egress", connection) &&
    directionAllows(policies, connection.to, "Ingress", connection)
  );
}
