import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { parseAllDocuments, parse as parseYaml } from "yaml";

/**
 * A renderer for the subset of kustomize that `infra/k8s` uses, so the manifests can be rendered
 * and checked where no kustomize binary can be installed (Debian 12 ships kubectl 1.20, whose
 * kustomize v2 predates `patches` and `labels`). Anything outside the subset is refused by name
 * rather than ignored; where `kubectl` is present the test compares this output with
 * `kubectl kustomize`.
 *
 * Supported: resources (files and kustomization directories), namespace, labels (metadata only),
 * images, replicas, secretGenerator (envs, literals, behavior) with disableNameSuffixHash, and
 * patches as JSON 6902 operations with a kind/name target.
 */

export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; [key: string]: unknown };
  [key: string]: unknown;
};

const SUPPORTED_FIELDS = new Set([
  "apiVersion",
  "kind",
  "namespace",
  "resources",
  "labels",
  "images",
  "replicas",
  "generatorOptions",
  "secretGenerator",
  "patches",
]);

// Kinds without a namespace that the manifests could contain; everything else gets `namespace`.
const CLUSTER_SCOPED = new Set([
  "Namespace",
  "ClusterRole",
  "ClusterRoleBinding",
  "CustomResourceDefinition",
  "IngressClass",
  "PersistentVolume",
  "PriorityClass",
  "StorageClass",
]);

const REPLICATED_KINDS = new Set(["Deployment", "ReplicaSet", "StatefulSet", "ReplicationController"]);

interface Kustomization {
  namespace?: string;
  resources?: string[];
  labels?: { pairs: Record<string, string>; includeSelectors?: boolean; includeTemplates?: boolean }[];
  images?: { name: string; newName?: string; newTag?: string; digest?: string }[];
  replicas?: { name: string; count: number }[];
  generatorOptions?: { disableNameSuffixHash?: boolean; [key: string]: unknown };
  secretGenerator?: {
    name: string;
    envs?: string[];
    literals?: string[];
    behavior?: "create" | "replace" | "merge";
    type?: string;
    namespace?: string;
  }[];
  patches?: { path?: string; patch?: string; target?: PatchTarget; options?: unknown }[];
}

interface PatchTarget {
  kind?: string;
  name?: string;
  namespace?: string;
  [key: string]: unknown;
}

type JsonPatchOp =
  | { op: "add" | "replace" | "test"; path: string; value: unknown }
  | { op: "remove"; path: string };

export class KustomizeError extends Error {
  override name = "KustomizeError";
}

/** Renders the kustomization in `dir` to its objects, in kustomize's resource order. */
export function renderKustomization(dir: string): K8sObject[] {
  const file = ["kustomization.yaml", "kustomization.yml", "Kustomization"]
    .map((name) => path.join(dir, name))
    .find((candidate) => existsSync(candidate));
  if (!file) throw new KustomizeError(`no kustomization file in ${dir}`);
  const k = parseYaml(readFileSync(file, "utf8")) as Kustomization;
  for (const field of Object.keys(k)) {
    if (!SUPPORTED_FIELDS.has(field)) throw new KustomizeError(`${file}: field "${field}" is not supported`);
  }

  let objects: K8sObject[] = [];
  for (const resource of k.resources ?? []) {
    const target = path.resolve(dir, resource);
    if (statSync(target).isDirectory()) objects.push(...renderKustomization(target));
    else objects.push(...readManifests(target));
  }
  objects = generateSecrets(objects, k, dir, file);
  for (const patch of k.patches ?? []) applyPatch(objects, patch, dir, file);
  if (k.namespace) setNamespace(objects, k.namespace);
  for (const label of k.labels ?? []) {
    if (label.includeSelectors || label.includeTemplates) {
      throw new KustomizeError(`${file}: labels with includeSelectors or includeTemplates are not supported`);
    }
    for (const o of objects) o.metadata.labels = { ...o.metadata.labels, ...label.pairs };
  }
  for (const replica of k.replicas ?? []) setReplicas(objects, replica, file);
  for (const image of k.images ?? []) for (const o of objects) setImages(o, image);
  return objects;
}

/** Every object of a multi-document YAML file (anchors resolved, empty documents skipped). */
export function readManifests(file: string): K8sObject[] {
  const documents = parseAllDocuments(readFileSync(file, "utf8"));
  const objects: K8sObject[] = [];
  for (const doc of documents) {
    if (doc.errors.length > 0) throw new KustomizeError(`${file}: ${doc.errors[0]?.message}`);
    const value = doc.toJS({ maxAliasCount: -1 }) as K8sObject | null;
    if (value === null) continue;
    if (!value.kind || !value.metadata?.name)
      throw new KustomizeError(`${file}: an object without kind or name`);
    objects.push(value);
  }
  return objects;
}

function generateSecrets(objects: K8sObject[], k: Kustomization, dir: string, file: string): K8sObject[] {
  const generators = k.secretGenerator ?? [];
  if (generators.length > 0 && k.generatorOptions?.disableNameSuffixHash !== true) {
    // A hashed name would need every reference rewritten; the manifests use fixed names instead.
    throw new KustomizeError(`${file}: secretGenerator needs generatorOptions.disableNameSuffixHash: true`);
  }
  const result = [...objects];
  for (const g of generators) {
    const data: Record<string, string> = {};
    for (const env of g.envs ?? []) {
      for (const [key, value] of parseEnvFile(path.resolve(dir, env))) data[key] = value;
    }
    for (const literal of g.literals ?? []) {
      const [key, value] = splitPair(literal, `${file}: literal`);
      data[key] = value;
    }
    const encoded = Object.fromEntries(
      Object.entries(data).map(([key, value]) => [key, Buffer.from(value).toString("base64")]),
    );
    const namespace = g.namespace ?? k.namespace;
    const index = result.findIndex(
      (o) =>
        o.kind === "Secret" &&
        o.metadata.name === g.name &&
        (namespace === undefined || o.metadata.namespace === undefined || o.metadata.namespace === namespace),
    );
    const behavior = g.behavior ?? "create";
    if (behavior === "create") {
      if (index >= 0) throw new KustomizeError(`${file}: Secret ${g.name} already exists; use behavior`);
      const secret: K8sObject = {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: g.name, ...(g.namespace ? { namespace: g.namespace } : {}) },
        type: g.type ?? "Opaque",
        data: encoded,
      };
      result.push(secret);
      continue;
    }
    const existing = result[index];
    if (!existing) throw new KustomizeError(`${file}: Secret ${g.name} to ${behavior} does not exist`);
    existing.data = behavior === "replace" ? encoded : { ...(existing.data as object), ...encoded };
  }
  return result;
}

/** kustomize's env file: `KEY=VALUE` lines; blank lines and `#` comments skipped; values as written. */
export function parseEnvFile(file: string): [string, string][] {
  const pairs: [string, string][] = [];
  readFileSync(file, "utf8")
    .split("\n")
    .forEach((raw, i) => {
      const line = raw.replace(/\r$/, "").trimStart();
      if (line === "" || line.startsWith("#")) return;
      pairs.push(splitPair(line, `${file}:${i + 1}`));
    });
  return pairs;
}

function splitPair(text: string, where: string): [string, string] {
  const at = text.indexOf("=");
  if (at <= 0) throw new KustomizeError(`${where}: expected KEY=VALUE`);
  return [text.slice(0, at), text.slice(at + 1)];
}

function applyPatch(
  objects: K8sObject[],
  patch: NonNullable<Kustomization["patches"]>[number],
  dir: string,
  file: string,
) {
  if (patch.options !== undefined) throw new KustomizeError(`${file}: patch options are not supported`);
  const text = patch.path ? readFileSync(path.resolve(dir, patch.path), "utf8") : patch.patch;
  if (text === undefined) throw new KustomizeError(`${file}: a patch without path or patch`);
  const ops = parseYaml(text) as unknown;
  if (!Array.isArray(ops)) {
    throw new KustomizeError(`${file}: only JSON 6902 patches (a list of operations) are supported`);
  }
  const target = patch.target ?? {};
  const unsupported = Object.keys(target).filter((key) => !["kind", "name", "namespace"].includes(key));
  if (unsupported.length > 0) throw new KustomizeError(`${file}: patch target ${unsupported.join(", ")}`);
  const matches = objects.filter(
    (o) =>
      (target.kind === undefined || o.kind === target.kind) &&
      (target.name === undefined || o.metadata.name === target.name) &&
      (target.namespace === undefined || o.metadata.namespace === target.namespace),
  );
  if (matches.length === 0)
    throw new KustomizeError(`${file}: patch target ${JSON.stringify(target)} matches nothing`);
  for (const o of matches) {
    for (const op of ops as JsonPatchOp[]) applyJsonPatchOp(o, op, file);
  }
}

/** One RFC 6902 operation (add, replace, remove, test) on a JSON object, in place. */
export function applyJsonPatchOp(document: object, op: JsonPatchOp, where = "patch"): void {
  const tokens = op.path
    .split("/")
    .slice(1)
    .map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"));
  const last = tokens.pop();
  if (last === undefined) throw new KustomizeError(`${where}: cannot ${op.op} the whole document`);
  let parent: unknown = document;
  for (const token of tokens) {
    parent = (parent as Record<string, unknown> | undefined)?.[token];
    if (parent === undefined || parent === null || typeof parent !== "object") {
      throw new KustomizeError(`${where}: ${op.op} ${op.path}: no such path`);
    }
  }
  if (Array.isArray(parent)) {
    const index = last === "-" ? parent.length : Number(last);
    if (!Number.isInteger(index) || index < 0 || index > parent.length) {
      throw new KustomizeError(`${where}: ${op.op} ${op.path}: bad array index`);
    }
    const exists = index < parent.length;
    if (op.op === "add") parent.splice(index, 0, structuredClone(op.value));
    else if (!exists) throw new KustomizeError(`${where}: ${op.op} ${op.path}: no such path`);
    else if (op.op === "replace") parent[index] = structuredClone(op.value);
    else if (op.op === "remove") parent.splice(index, 1);
    else testValue(parent[index], op, where);
    return;
  }
  const object = parent as Record<string, unknown>;
  const exists = Object.hasOwn(object, last);
  if (op.op === "add") object[last] = structuredClone(op.value);
  else if (!exists) throw new KustomizeError(`${where}: ${op.op} ${op.path}: no such path`);
  else if (op.op === "replace") object[last] = structuredClone(op.value);
  else if (op.op === "remove") delete object[last];
  else testValue(object[last], op, where);
}

function testValue(actual: unknown, op: JsonPatchOp, where: string) {
  if (op.op !== "test")
    throw new KustomizeError(`${where}: operation ${(op as { op: string }).op} is not supported`);
  if (JSON.stringify(actual) !== JSON.stringify(op.value))
    throw new KustomizeError(`${where}: test ${op.path} failed`);
}

function setNamespace(objects: K8sObject[], namespace: string) {
  for (const o of objects) if (!CLUSTER_SCOPED.has(o.kind)) o.metadata.namespace = namespace;
}

function setReplicas(objects: K8sObject[], replica: { name: string; count: number }, file: string) {
  const targets = objects.filter((o) => REPLICATED_KINDS.has(o.kind) && o.metadata.name === replica.name);
  if (targets.length === 0)
    throw new KustomizeError(`${file}: replicas for ${replica.name}: no such workload`);
  for (const o of targets) (o.spec as Record<string, unknown>).replicas = replica.count;
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

function setImages(node: unknown, image: NonNullable<Kustomization["images"]>[number]): void {
  if (Array.isArray(node)) {
    for (const item of node) setImages(item, image);
    return;
  }
  if (node === null || typeof node !== "object") return;
  for (const [key, value] of Object.entries(node)) {
    if ((key === "containers" || key === "initContainers") && Array.isArray(value)) {
      for (const container of value as { image?: string }[]) {
        if (typeof container.image !== "string") continue;
        const current = parseImage(container.image);
        if (current.name !== image.name) continue;
        const name = image.newName ?? current.name;
        if (image.digest) container.image = `${name}@${image.digest}`;
        else if (image.newTag) container.image = `${name}:${image.newTag}`;
        else
          container.image = `${name}${current.tag ? `:${current.tag}` : ""}${current.digest ? `@${current.digest}` : ""}`;
      }
    } else {
      setImages(value, image);
    }
  }
}
