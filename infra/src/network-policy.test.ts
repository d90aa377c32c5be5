import { describe, expect, it } from "@jest/globals";
import { cidrContains, type Endpoint, isAllowed, type PodEndpoint } from "./network-policy.js";
import type { K8sObject } from "./render.js";

const policy = (name: string, namespace: string, spec: object): K8sObject => ({
  apiVersion: "networking.k8s.io/v1",
  kind: "NetworkPolicy",
  metadata: { name, namespace },
  spec,
});
const pod = (
  namespace: string,
  labels: Record<string, string>,
  ip = "10.0.0.1",
  nsLabels = {},
): PodEndpoint => ({
  kind: "pod",
  namespace,
  namespaceLabels: { ...nsLabels, "kubernetes.io/metadata.name": namespace },
  labels,
  ip,
  ports: [{ name: "http", containerPort: 8080 }],
});
const web = pod("shop", { app: "web" }, "10.0.0.2");
const allowed = (objects: K8sObject[], from: Endpoint, to: Endpoint, port = 8080) =>
  isAllowed(objects, { from, to, port });

describe("NetworkPolicy evaluation", () => {
  it("allows everything while no policy selects either side", () => {
    expect(allowed([], pod("other", { app: "x" }), web)).toBe(true);
  });

  it("reads a podSelector peer as the policy's own namespace only", () => {
    const objects = [
      policy("web", "shop", {
        podSelector: { matchLabels: { app: "web" } },
        ingress: [{ from: [{ podSelector: { matchLabels: { app: "api" } } }] }],
      }),
    ];
    expect(allowed(objects, pod("shop", { app: "api" }), web)).toBe(true);
    expect(allowed(objects, pod("elsewhere", { app: "api" }), web)).toBe(false);
  });

  it("ANDs namespaceSelector and podSelector in one peer, and ORs separate peers", () => {
    const and = [
      policy("web", "shop", {
        podSelector: {},
        ingress: [
          {
            from: [
              {
                namespaceSelector: { matchLabels: { team: "ops" } },
                podSelector: { matchLabels: { app: "probe" } },
              },
            ],
          },
        ],
      }),
    ];
    const or = [
      policy("web", "shop", {
        podSelector: {},
        ingress: [
          {
            from: [
              { namespaceSelector: { matchLabels: { team: "ops" } } },
              { podSelector: { matchLabels: { app: "probe" } } },
            ],
          },
        ],
      }),
    ];
    const opsOther = pod("ops", { app: "other" }, "10.0.0.3", { team: "ops" });
    const opsProbe = pod("ops", { app: "probe" }, "10.0.0.4", { team: "ops" });
    expect(allowed(and, opsProbe, web)).toBe(true);
    expect(allowed(and, opsOther, web)).toBe(false);
    expect(allowed(or, opsOther, web)).toBe(true);
  });

  it("resolves a named port on the destination pod and checks the protocol", () => {
    const objects = [policy("web", "shop", { podSelector: {}, ingress: [{ ports: [{ port: "http" }] }] })];
    expect(allowed(objects, pod("x", {}), web, 8080)).toBe(true);
    expect(allowed(objects, pod("x", {}), web, 8081)).toBe(false);
    expect(isAllowed(objects, { from: pod("x", {}), to: web, port: 8080, protocol: "UDP" })).toBe(false);
  });

  it("isolates egress only for policies that name Egress (or have egress rules)", () => {
    const ingressOnly = [policy("p", "shop", { podSelector: {}, ingress: [] })];
    expect(allowed(ingressOnly, web, { kind: "external", ip: "1.2.3.4" }, 443)).toBe(true);
    const egressRules = [
      policy("p", "shop", { podSelector: {}, egress: [{ ports: [{ port: 53, protocol: "UDP" }] }] }),
    ];
    expect(allowed(egressRules, web, { kind: "external", ip: "1.2.3.4" }, 443)).toBe(false);
  });

  it("needs the source's egress and the destination's ingress both", () => {
    const objects = [
      policy("deny-egress", "a", { podSelector: {}, policyTypes: ["Egress"] }),
      policy("allow-in", "b", { podSelector: {}, ingress: [{}] }),
    ];
    expect(allowed(objects, pod("a", {}), pod("b", {}))).toBe(false);
    expect(allowed(objects, pod("c", {}), pod("b", {}))).toBe(true);
  });

  it("matches ipBlocks with their exceptions", () => {
    expect(cidrContains("10.0.0.0/8", "10.255.1.1")).toBe(true);
    expect(cidrContains("10.0.0.0/8", "11.0.0.1")).toBe(false);
    expect(cidrContains("0.0.0.0/0", "203.0.113.9")).toBe(true);
    const objects = [
      policy("p", "shop", {
        podSelector: {},
        policyTypes: ["Egress"],
        egress: [{ to: [{ ipBlock: { cidr: "0.0.0.0/0", except: ["169.254.169.254/32"] } }] }],
      }),
    ];
    expect(allowed(objects, web, { kind: "external", ip: "203.0.113.9" }, 443)).toBe(true);
    expect(allowed(objects, web, { kind: "external", ip: "169.254.169.254" }, 80)).toBe(false);
  });

  it("matches In, NotIn, Exists and DoesNotExist expressions", () => {
    const objects = [
      policy("p", "shop", {
        podSelector: {},
        ingress: [
          {
            from: [
              {
                podSelector: {
                  matchExpressions: [
                    { key: "app", operator: "In", values: ["a", "b"] },
                    { key: "tier", operator: "NotIn", values: ["test"] },
                    { key: "team", operator: "Exists" },
                    { key: "debug", operator: "DoesNotExist" },
                  ],
                },
              },
            ],
          },
        ],
      }),
    ];
    expect(allowed(objects, pod("shop", { app: "a", team: "x" }), web)).toBe(true);
    expect(allowed(objects, pod("shop", { app: "c", team: "x" }), web)).toBe(false);
    expect(allowed(objects, pod("shop", { app: "a", team: "x", tier: "test" }), web)).toBe(false);
    expect(allowed(objects, pod("shop", { app: "a" }), web)).toBe(false);
    expect(allowed(objects, pod("shop", { app: "a", team: "x", debug: "1" }), web)).toBe(false);
  });
});
