import {
  COMMON_HOSTED_ERRORS,
  HOSTED_OPERATIONS,
  type HostedOperation,
  hostedErrorCodes,
  ownErrorStatuses,
} from "./actions.js";
import { type ErrorCode, errorCodeInfo, problemType } from "./error-codes.js";
import { PATTERNS_IN_WORDS } from "./fields.js";
import {
  BackfillingMatchSuggestionMessageSchema,
  KeepAliveMessageSchema,
  MatchSuggestionMessageSchema,
  MESSAGE_ACTIONS,
  MESSAGE_PAYLOAD_SCHEMAS,
  MESSAGE_RESPONSE_PAYLOAD_SCHEMAS,
  type MessageAction,
  PlayersRemovedMessageSchema,
  PUSH_ACTIONS,
  responseAction,
} from "./messages.js";
import { type SchemaName, schemaRegistry } from "./schema-registry.js";

/**
 * The hosted API's reference in Markdown, generated from the action table, the schemas and the
 * error table, so the document cannot say something the code does not. `docs/api.md` holds it
 * between the two markers below, around hand-written sections (login, envelope, conventions); a
 * test fails when the file differs from what this renders, and `pnpm docs:api` rewrites it.
 */

export const API_REFERENCE_START =
  "<!-- api-reference:start (generated from packages/contracts by `pnpm docs:api`; do not edit by hand) -->";
export const API_REFERENCE_END = "<!-- api-reference:end -->";

const TAG_TITLES: Readonly<Record<HostedOperation["tag"], string>> = {
  games: "Games",
  queue: "Queue",
  matches: "Matches",
  backfill: "Backfill",
  statistics: "Statistics and leaderboards",
  seasons: "Seasons",
};

const PREFER = "`Prefer: return=representation`";

type Schema = { readonly [keyword: string]: unknown };

const isSchema = (value: unknown): value is Schema =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const propertiesOf = (schema: unknown): [string, unknown][] =>
  isSchema(schema) && isSchema(schema.properties) ? Object.entries(schema.properties) : [];

const requiredOf = (schema: unknown): string[] =>
  isSchema(schema) && Array.isArray(schema.required) ? schema.required.map(String) : [];

/** A value in code style: strings as they are, everything else as JSON. */
const code = (value: unknown) => `\`${typeof value === "string" ? value : JSON.stringify(value)}\``;

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as dashes. */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replaceAll(" ", "-");
}

const link = (text: string, heading: string) => `[${text}](#${headingAnchor(heading)})`;
const schemaLink = (name: string) => link(`\`${name}\``, name);
const operationHeading = (op: HostedOperation) => op.operationId;

/** A Markdown table with padded columns, as the repository's formatter (biome) lays tables out. */
function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");
  const body = rows.map((row) => row.map(cell));
  const widths = header.map((title, i) =>
    Math.max(3, [...title].length, ...body.map((row) => [...(row[i] ?? "")].length)),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells.map((text, i) => text + " ".repeat(widths[i]! - [...text].length)).join(" | ")} |`;
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...body.map(line)];
}

// ---- what a schema allows, in words ----

function typeOf(schema: Schema): string {
  if (Array.isArray(schema.anyOf)) return schema.anyOf.filter(isSchema).map(typeOf).join(" or ");
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  const named = types.map((type) =>
    type === "array" && isSchema(schema.items) ? `array of ${typeOf(schema.items)}` : String(type),
  );
  return named.length > 0 ? named.join(" or ") : "any";
}

function bounds(min: unknown, max: unknown, one: string, many: string): string[] {
  const has = (n: unknown): n is number => typeof n === "number";
  if (has(min) && has(max))
    return [min === max ? `exactly ${min} ${min === 1 ? one : many}` : `${min}–${max} ${many}`];
  if (has(min)) return [`at least ${min} ${min === 1 ? one : many}`];
  if (has(max)) return [`at most ${max} ${max === 1 ? one : many}`];
  return [];
}

function rules(schema: Schema): string[] {
  const out: string[] = [];
  if (Array.isArray(schema.enum)) out.push(`one of ${schema.enum.map(code).join(", ")}`);
  if ("const" in schema) out.push(`always ${code(schema.const)}`);
  if (typeof schema.format === "string") out.push(`format \`${schema.format}\``);
  if (typeof schema.pattern === "string") {
    out.push(PATTERNS_IN_WORDS.get(schema.pattern) ?? `pattern \`${schema.pattern}\``);
  }
  out.push(...bounds(schema.minLength, schema.maxLength, "character", "characters"));
  if (typeof schema.minimum === "number" && typeof schema.maximum === "number") {
    out.push(`${schema.minimum} to ${schema.maximum}`);
  } else {
    if (typeof schema.minimum === "number") out.push(`≥ ${schema.minimum}`);
    if (typeof schema.exclusiveMinimum === "number") out.push(`> ${schema.exclusiveMinimum}`);
    if (typeof schema.maximum === "number") out.push(`≤ ${schema.maximum}`);
  }
  if (typeof schema.exclusiveMaximum === "number") out.push(`< ${schema.exclusiveMaximum}`);
  out.push(...bounds(schema.minItems, schema.maxItems, "item", "items"));
  out.push(...bounds(schema.minProperties, schema.maxProperties, "entry", "entries"));
  if (schema.uniqueItems === true) out.push("no duplicates");
  if (isSchema(schema.items) && !isSchema(schema.items.properties)) {
    out.push(...rules(schema.items).map((rule) => `each ${rule}`));
  }
  if ("default" in schema) out.push(`default ${code(schema.default)}`);
  return out;
}

function descriptionOf(schema: Schema): string {
  if (typeof schema.description === "string") return schema.description;
  if (Array.isArray(schema.anyOf)) {
    const described = schema.anyOf.find(
      (branch) => isSchema(branch) && typeof branch.description === "string",
    );
    if (isSchema(described)) return String(described.description);
  }
  return "";
}

/** What the fields of an `if`/`dependentSchemas` branch must be, in words. */
function constraints(branch: unknown, field: (name: string) => string): string {
  const parts: string[] = [];
  for (const [name, sub] of propertiesOf(branch)) {
    if (sub === false) parts.push(`${field(name)} is not allowed`);
    else if (isSchema(sub) && rules(sub).length > 0) parts.push(`${field(name)} ${rules(sub).join(", ")}`);
  }
  for (const name of requiredOf(branch)) parts.push(`${field(name)} is required`);
  return parts.join("; ");
}

function condition(test: unknown, field: (name: string) => string): string {
  return propertiesOf(test)
    .map(([name, sub]) =>
      isSchema(sub) && "const" in sub ? `${field(name)} is ${code(sub.const)}` : `${field(name)} is given`,
    )
    .join(" and ");
}

interface FieldRow {
  name: string;
  type: string;
  required: boolean;
  rules: string;
  description: string;
}

/** Every field of an object schema, nested ones as `a.b` and `list[].b`, with the rules that span fields. */
function collectFields(schema: Schema, prefix: string, rows: FieldRow[], notes: string[]): void {
  const required = new Set(requiredOf(schema));
  for (const [name, value] of propertiesOf(schema)) {
    if (!isSchema(value)) continue;
    const path = `${prefix}${name}`;
    rows.push({
      name: path,
      type: typeOf(value),
      required: required.has(name),
      rules: rules(value).join("; "),
      description: descriptionOf(value),
    });
    if (isSchema(value.properties)) collectFields(value, `${path}.`, rows, notes);
    if (isSchema(value.items) && isSchema(value.items.properties)) {
      collectFields(value.items, `${path}[].`, rows, notes);
    }
    for (const branch of Array.isArray(value.anyOf) ? value.anyOf : []) {
      if (isSchema(branch) && isSchema(branch.properties)) collectFields(branch, `${path}.`, rows, notes);
    }
  }
  const field = (name: string) => `\`${prefix}${name}\``;
  const product = schema["x-maxProduct"];
  if (isSchema(product) && Array.isArray(product.of)) {
    notes.push(`${product.of.map(String).map(field).join(" × ")} ≤ ${product.maximum}.`);
  }
  if (isSchema(schema.dependentSchemas)) {
    for (const [trigger, branch] of Object.entries(schema.dependentSchemas)) {
      notes.push(`When ${field(trigger)} is given: ${constraints(branch, field)}.`);
    }
  }
  if (isSchema(schema.if)) {
    const when = condition(schema.if, field);
    if (isSchema(schema.then)) notes.push(`When ${when}: ${constraints(schema.then, field)}.`);
    const unless = isSchema(schema.then) ? "Otherwise" : `Unless ${when}`;
    if (isSchema(schema.else)) notes.push(`${unless}: ${constraints(schema.else, field)}.`);
  }
}

/** A schema's fields as a table, followed by the rules that span fields. */
function fieldTable(schema: Schema): string[] {
  const rows: FieldRow[] = [];
  const notes: string[] = [];
  const isList = schema.type === "array" && isSchema(schema.items);
  if (isList) collectFields(schema.items as Schema, "[].", rows, notes);
  else collectFields(schema, "", rows, notes);
  const lines: string[] = [];
  if (isList)
    lines.push(`An array${rules(schema).length > 0 ? ` (${rules(schema).join("; ")})` : ""} of:`, "");
  if (rows.length === 0) {
    lines.push("No fields: `{}`.");
  } else {
    lines.push(
      ...table(
        ["field", "type", "required", "rules", "description"],
        rows.map((row) => [
          `\`${row.name}\``,
          row.type,
          row.required ? "yes" : "",
          row.rules,
          row.description,
        ]),
      ),
    );
  }
  if (notes.length > 0) lines.push("", ...notes.map((note) => `- ${note}`));
  return lines;
}

function schemaNamed(name: SchemaName): Schema {
  return schemaRegistry[name] as unknown as Schema;
}

/** `a`, `b`, optional `c`: a payload's fields at a glance. */
function fieldNames(schema: Schema): string {
  const required = new Set(requiredOf(schema));
  const names = propertiesOf(schema).map(([name]) => name);
  const must = names.filter((name) => required.has(name)).map(code);
  const may = names.filter((name) => !required.has(name)).map(code);
  return [...must, ...(may.length > 0 ? [`optional ${may.join(", ")}`] : [])].join(", ") || "none";
}

// ---- sections ----

const statusWithCodes = (status: number) =>
  `\`${status}\` (${hostedErrorCodes(status)
    .map((c) => `\`${c}\``)
    .join(", ")})`;

function parameterTable(params: Readonly<Record<string, object>>): string[] {
  return table(
    ["parameter", "type", "rules", "description"],
    Object.entries(params).map(([name, value]) => {
      const schema = value as Schema;
      return [`\`${name}\``, typeOf(schema), rules(schema).join("; "), descriptionOf(schema)];
    }),
  );
}

function answerTable(op: HostedOperation): string[] {
  const body = (name: SchemaName | null | undefined) => (name ? schemaLink(name) : "none");
  if (op.prefer) {
    const { plain, representation } = op.prefer;
    return table(
      ["status", "when", "body"],
      [
        [`\`${plain}\``, `without ${PREFER}`, body(op.answers[plain])],
        [`\`${representation}\``, `with ${PREFER}`, body(op.answers[representation])],
      ],
    );
  }
  return table(
    ["status", "body"],
    Object.entries(op.answers).map(([status, name]) => [`\`${status}\``, body(name)]),
  );
}

function webSocketLine(action: MessageAction | null): string {
  if (action === null) return "WebSocket: none (REST only).";
  const payload = MESSAGE_PAYLOAD_SCHEMAS[action] as unknown as Schema;
  const answer = MESSAGE_RESPONSE_PAYLOAD_SCHEMAS[action] as unknown as Schema;
  return (
    `WebSocket: action \`${action}\`, payload \`${String(payload.$id)}\` (${fieldNames(payload)}); ` +
    `answered by \`${responseAction(action)}\` with \`${String(answer.$id)}\` (${fieldNames(answer)}).`
  );
}

function operationSection(op: HostedOperation): string[] {
  const lines = [`#### ${operationHeading(op)}`, "", `\`${op.method} ${op.path}\`: ${op.summary}.`, ""];
  lines.push(`Roles: ${op.roles.map(code).join(", ")}.`, "", webSocketLine(op.action), "");
  if (Object.keys(op.params).length > 0) lines.push("Path parameters:", "", ...parameterTable(op.params), "");
  if (op.query && Object.keys(op.query).length > 0) {
    lines.push("Query parameters (all optional):", "", ...parameterTable(op.query), "");
  }
  if (op.body) {
    const schema = schemaNamed(op.body);
    const presence = op.optionalBody ? "may be left out (an empty body means `{}`)" : "required";
    const openness =
      schema.additionalProperties === false
        ? "closed: an unknown field is a 400"
        : "open: unknown fields are ignored";
    lines.push(`Body \`${op.body}\`, ${presence}; ${openness}.`, "", ...fieldTable(schema), "");
  } else {
    lines.push("Body: none.", "");
  }
  lines.push("Answers:", "", ...answerTable(op), "");
  const own = ownErrorStatuses(op).map(statusWithCodes);
  lines.push(
    `Errors: ${[...own, link("those of every operation", "Errors every operation may answer")].join(", ")}.`,
    "",
  );
  return lines;
}

function operationsSection(ops: readonly HostedOperation[]): string[] {
  const lines = [
    "## Operations",
    "",
    ...table(
      ["operation", "method and path", "roles", "WebSocket action"],
      ops.map((op) => [
        link(op.operationId, operationHeading(op)),
        `\`${op.method} ${op.path}\``,
        op.roles.join(", "),
        op.action ? `\`${op.action}\`` : "",
      ]),
    ),
    "",
  ];
  const tags = [...new Set(ops.map((op) => op.tag))];
  for (const tag of tags) {
    lines.push(`### ${TAG_TITLES[tag]}`, "");
    for (const op of ops.filter((o) => o.tag === tag)) lines.push(...operationSection(op));
  }
  return lines;
}

function webSocketOnlySection(ops: readonly HostedOperation[]): string[] {
  const mapped = new Set(ops.map((op) => op.action));
  const lines = ["## WebSocket actions without a REST operation", ""];
  for (const action of MESSAGE_ACTIONS.filter((a) => !mapped.has(a))) {
    const payload = MESSAGE_PAYLOAD_SCHEMAS[action] as unknown as Schema;
    const answer = MESSAGE_RESPONSE_PAYLOAD_SCHEMAS[action] as unknown as Schema;
    lines.push(
      `#### ${action}`,
      "",
      `Payload \`${String(payload.$id)}\`:`,
      "",
      ...fieldTable(payload),
      "",
      `Answered by \`${responseAction(action)}\` with \`${String(answer.$id)}\`:`,
      "",
      ...fieldTable(answer),
      "",
    );
  }
  return lines;
}

const PUSH_MESSAGE_SCHEMAS = [
  MatchSuggestionMessageSchema,
  BackfillingMatchSuggestionMessageSchema,
  PlayersRemovedMessageSchema,
  KeepAliveMessageSchema,
] as const;

function pushesSection(): string[] {
  const lines = [
    "## Pushes",
    "",
    "Sent by the server: `keepAlive` with a new `messageId` each round, the others with `messageId: null`.",
    "",
  ];
  for (const action of PUSH_ACTIONS) {
    const message = PUSH_MESSAGE_SCHEMAS.find((schema) => schema.properties.action.const === action);
    if (message === undefined) throw new Error(`No message schema for the push ${action}`);
    lines.push(
      `#### ${action}`,
      "",
      `Message \`${message.$id}\`; its payload:`,
      "",
      ...fieldTable(message.properties.payload as unknown as Schema),
      "",
    );
  }
  return lines;
}

function schemasSection(ops: readonly HostedOperation[]): string[] {
  const names = new Set<SchemaName>();
  for (const op of ops) {
    for (const name of Object.values(op.answers)) if (name !== null) names.add(name);
  }
  names.add("Problem");
  const lines = ["## Answer schemas", ""];
  for (const name of names) lines.push(`#### ${name}`, "", ...fieldTable(schemaNamed(name)), "");
  return lines;
}

function errorsSection(): string[] {
  const codes = Object.keys(errorCodeInfo) as ErrorCode[];
  return [
    "## Error codes",
    "",
    "### Errors every operation may answer",
    "",
    `Besides its own: ${COMMON_HOSTED_ERRORS.map(statusWithCodes).join(", ")}.`,
    "",
    "### Every code",
    "",
    "The `code` of a problem answer; the platform's other services (the matchmaker, the license service) use the same table.",
    "",
    ...table(
      ["code", "status", "title", "meaning", "type"],
      codes.map((c) => [
        `\`${c}\``,
        String(errorCodeInfo[c].status),
        errorCodeInfo[c].title,
        errorCodeInfo[c].meaning,
        `\`${problemType(c)}\``,
      ]),
    ),
  ];
}

/** The generated part of `docs/api.md`, markers included. */
export function renderApiReference(): string {
  const ops = HOSTED_OPERATIONS as readonly HostedOperation[];
  return [
    API_REFERENCE_START,
    "",
    ...operationsSection(ops),
    ...webSocketOnlySection(ops),
    ...pushesSection(),
    ...schemasSection(ops),
    ...errorsSection(),
    "",
    API_REFERENCE_END,
  ].join("\n");
}

/** `document` with its generated part replaced by a fresh one; throws when the markers are missing. */
export function withApiReference(document: string): string {
  const start = document.indexOf(API_REFERENCE_START);
  const end = document.indexOf(API_REFERENCE_END);
  if (start < 0 || end < start) {
    throw new Error(
      `The document has no generated part: expected ${API_REFERENCE_START} … ${API_REFERENCE_END}`,
    );
  }
  return document.slice(0, start) + renderApiReference() + document.slice(end + API_REFERENCE_END.length);
}
