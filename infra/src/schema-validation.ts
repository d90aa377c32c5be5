import * as appsV1 from "kubernetes-models/apps/v1";
import * as autoscalingV2 from "kubernetes-models/autoscaling/v2";
import * as batchV1 from "kubernetes-models/batch/v1";
import * as networkingV1 from "kubernetes-models/networking.k8s.io/v1";
import * as policyV1 from "kubernetes-models/policy/v1";
import * as coreV1 from "kubernetes-models/v1";
import type { K8sObject } from "./render.js";

// The API groups the manifests use; an object of any other group is reported, not skipped.
const GROUPS: Record<string, Record<string, unknown>> = {
  v1: coreV1,
  "apps/v1": appsV1,
  "autoscaling/v2": autoscalingV2,
  "batch/v1": batchV1,
  "networking.k8s.io/v1": networkingV1,
  "policy/v1": policyV1,
};

type ModelClass = new (data: object) => { validate(): void };

/**
 * Validates each object against the Kubernetes OpenAPI schema of its apiVersion and kind
 * (kubernetes-models): types, required fields, enums and formats. The schemas allow unknown
 * fields, so a misspelt field passes here; the invariant checks catch the ones that matter.
 */
export function validateAgainstSchemas(objects: readonly K8sObject[]): string[] {
  const problems: string[] = [];
  for (const o of objects) {
    const where = `${o.kind}/${o.metadata?.name}`;
    const Model = GROUPS[o.apiVersion]?.[o.kind] as ModelClass | undefined;
    if (!Model) {
      problems.push(`${where}: no schema for ${o.apiVersion} ${o.kind}`);
      continue;
    }
    try {
      new Model(o).validate();
    } catch (err) {
      problems.push(`${where}: ${(err as Error).message}`);
    }
  }
  return problems;
}
