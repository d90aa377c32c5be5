import { describe, expect, it } from "@jest/globals";
import { fieldErrorsOf } from "../test/field-errors.js";
import { HOSTED_OPERATIONS } from "./actions.js";
import { INT32_MAX, idField, SEASON_NAME_PATTERN, SeasonNameField, textField } from "./fields.js";
import { INTERNAL_OPERATIONS } from "./internal-operations.js";
import { ClientMessageSchema, MESSAGE_PAYLOAD_SCHEMAS } from "./messages.js";
import { type SchemaName, schemaRegistry } from "./schema-registry.js";
import { compile } from "./validation.js";

const TEXT_DETAIL = "must be text without NUL characters or unpaired UTF-16 surrogates";

describe("text a client sends", () => {
  const validateId = compile(idField(32));
  const validateText = compile(textField(32));

  it("refuses NUL and lone surrogates, which PostgreSQL cannot store as sent", () => {
    for (const bad of ["a\u0000", "\u0000", "\ud800", "a\udfff", "\udc00\ud800", "\ud83d"]) {
      expect(fieldErrorsOf(validateId, bad)).toEqual([{ pointer: "", detail: TEXT_DETAIL }]);
      expect(fieldErrorsOf(validateText, bad)).toEqual([{ pointer: "", detail: TEXT_DETAIL }]);
    }
  });

  it("accepts any other text, characters outside the BMP (surrogate pairs) included", () => {
    for (const good of ["p1", "Ünïcødé", "\u{1F600}", "a\u{10FFFF}", "tab\there", "76561198000000000"]) {
      expect(validateId(good)).toBe(true);
    }
    expect(validateText("")).toBe(true);
    expect(validateId("")).toBe(false);
  });

  it("counts length in characters: a surrogate pair is one", () => {
    const validateShort = compile(idField(8));
    expect(validateShort("\u{1F600}".repeat(8))).toBe(true);
    expect(fieldErrorsOf(validateShort, "x".repeat(9))).toEqual([
      { pointer: "", detail: "must NOT have more than 8 characters" },
    ]);
  });
});

describe("season names", () => {
  const pattern = new RegExp(SEASON_NAME_PATTERN, "u");
  const isSeason = (n: number) => pattern.test(`S${n}`);

  it("are S1 to S2147483647: exactly the season numbers PostgreSQL's integer holds", () => {
    for (const n of [1, 9, 10, 999_999_999, 1_000_000_000, 1_999_999_999, 2_000_000_000, INT32_MAX]) {
      expect(isSeason(n)).toBe(true);
    }
    for (const n of [
      0,
      INT32_MAX + 1,
      2_147_483_650,
      2_147_483_700,
      2_148_000_000,
      2_200_000_000,
      3e9,
      1e10,
    ]) {
      expect(isSeason(n)).toBe(false);
    }
    for (const bad of ["S01", "s1", "S", "S-1", "S1 ", "S1.5"]) expect(pattern.test(bad)).toBe(false);
  });

  it("agree with a numeric comparison on every digit boundary", () => {
    const digits = String(INT32_MAX);
    for (let i = 0; i < digits.length; i++) {
      for (let d = 0; d <= 9; d++) {
        const n = Number(`${digits.slice(0, i)}${d}${"9".repeat(digits.length - i - 1)}`);
        if (n >= 1_000_000_000) expect(isSeason(n)).toBe(n <= INT32_MAX);
        const low = Number(`${digits.slice(0, i)}${d}${"0".repeat(digits.length - i - 1)}`);
        if (low >= 1_000_000_000) expect(isSeason(low)).toBe(low <= INT32_MAX);
      }
    }
  });

  it("answer a name too long with one error, not one more for the pattern", () => {
    expect(fieldErrorsOf(compile(SeasonNameField), "S99999999999")).toEqual([
      { pointer: "", detail: "must NOT have more than 11 characters" },
    ]);
    expect(fieldErrorsOf(compile(SeasonNameField), "S2147483648")).toEqual([
      { pointer: "", detail: "must be a season name, S1 to S2147483647" },
    ]);
  });
});

type Schema = { readonly [keyword: string]: unknown };
const isSchema = (value: unknown): value is Schema =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Every sub-schema of `schema`, with its path, that may validate a value (not `true`/`false`). */
function subSchemas(schema: unknown, path: string): [string, Schema][] {
  if (!isSchema(schema)) return [];
  const out: [string, Schema][] = [[path, schema]];
  const children = (value: unknown, at: string) => {
    if (isSchema(value)) for (const [k, v] of Object.entries(value)) out.push(...subSchemas(v, `${at}/${k}`));
  };
  // Conditional branches (`if`, `dependentSchemas`) only tighten fields declared here: not walked.
  children(schema.properties, path);
  for (const key of ["items", "additionalProperties", "propertyNames"]) {
    out.push(...subSchemas(schema[key], `${path}/${key}`));
  }
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    const list = schema[key];
    if (!Array.isArray(list)) continue;
    for (const [i, s] of list.entries()) out.push(...subSchemas(s, `${path}/${key}/${i}`));
  }
  return out;
}

/** Every schema that validates what a client of the hosted API sends: paths, queries, bodies, messages. */
function clientSchemas(): [string, unknown][] {
  const schemas: [string, unknown][] = [["ClientMessage", ClientMessageSchema]];
  for (const op of [...HOSTED_OPERATIONS, ...INTERNAL_OPERATIONS]) {
    for (const [name, field] of Object.entries(op.params))
      schemas.push([`${op.operationId} {${name}}`, field]);
    for (const [name, field] of Object.entries(("query" in op ? op.query : undefined) ?? {})) {
      schemas.push([`${op.operationId} ?${name}`, field]);
    }
    if ("body" in op) schemas.push([`${op.operationId} body`, schemaRegistry[op.body as SchemaName]]);
  }
  for (const [action, schema] of Object.entries(MESSAGE_PAYLOAD_SCHEMAS)) schemas.push([action, schema]);
  return schemas;
}

const typesOf = (schema: Schema) => (Array.isArray(schema.type) ? schema.type : [schema.type]);
const isFixed = (schema: Schema) => "const" in schema || "enum" in schema;

describe("every field a client sends", () => {
  const fields = clientSchemas().flatMap(([name, schema]) => subSchemas(schema, name));

  it("is a string with a maxLength (or a fixed-length format)", () => {
    const unbounded = fields
      .filter(([, s]) => typesOf(s).includes("string") && !isFixed(s))
      .filter(([, s]) => typeof s.maxLength !== "number" && s.format !== "uuid")
      .map(([path]) => path);
    expect(unbounded).toEqual([]);
  });

  it("is an integer with a maximum", () => {
    const unbounded = fields
      .filter(([, s]) => typesOf(s).includes("integer") && !isFixed(s) && typeof s.maximum !== "number")
      .map(([path]) => path);
    expect(unbounded).toEqual([]);
  });

  it("is text PostgreSQL stores as sent when it is an id, a name or a reference", () => {
    const unchecked = fields
      .filter(([, s]) => typesOf(s).includes("string") && !isFixed(s))
      .filter(([, s]) => s.pattern === undefined && s.format === undefined)
      .map(([path]) => path);
    // Read by stats' own code and never stored: the envelope's echoed messageId, and the
    // comma-separated season list, whose names stats checks one by one.
    expect(unchecked).toEqual(["ClientMessage/messageId", "getPlayerStats ?seasons"]);
  });
});
