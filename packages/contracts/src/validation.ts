import {
  _,
  Ajv2020,
  type Code,
  type CodeKeywordDefinition,
  type ErrorObject,
  type KeywordCxt,
  type ValidateFunction,
} from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { PATTERNS_IN_WORDS } from "./fields.js";
import type { FieldError } from "./problem.js";

// ajv-formats is CommonJS: under NodeNext the default import is its `module.exports` object.
type AddFormats = typeof addFormatsModule.default;
const addFormats: AddFormats =
  (addFormatsModule as unknown as { default?: AddFormats }).default ??
  (addFormatsModule as unknown as AddFormats);

/** `x-maxProduct`'s value: the two integer fields whose product is bounded, and the bound. */
export interface MaxProduct {
  of: readonly [string, string];
  maximum: number;
}

/**
 * `x-maxProduct: {of: [a, b], maximum}` on an object: `a × b` must not exceed `maximum` when both
 * are numbers. JSON Schema has no keyword that multiplies; this one keeps the rule in the schema,
 * so every validator of it checks it. The error points at `b`, the field a client lowers to fit,
 * e.g. `/numPlayersPerTeam` "must keep numTeams × numPlayersPerTeam <= 1000".
 */
const maxProductKeyword: CodeKeywordDefinition = {
  keyword: "x-maxProduct",
  type: "object",
  schemaType: "object",
  metaSchema: {
    type: "object",
    required: ["of", "maximum"],
    properties: {
      of: { type: "array", items: { type: "string" }, minItems: 2, maxItems: 2 },
      maximum: { type: "number" },
    },
    additionalProperties: false,
  },
  error: {
    message: ({ schema }) => {
      const { of, maximum } = schema as MaxProduct;
      return _`${`must keep ${of[0]} × ${of[1]} <= ${maximum}`}`;
    },
  },
  code(cxt: KeywordCxt) {
    const { gen, data } = cxt;
    const { of, maximum } = cxt.schema as MaxProduct;
    const [a, b] = [_`${data}[${of[0]}]`, _`${data}[${of[1]}]`];
    // A factor above the bound already fails its own `maximum`; one error for it is enough.
    gen.if(
      _`typeof ${a} == "number" && typeof ${b} == "number" && ${a} <= ${maximum} && ${b} <= ${maximum} && ${a} * ${b} > ${maximum}`,
    );
    // A property name, as ajv's own keywords pass it (`ErrorPaths` types it as generated code).
    const field: Code = cxt.schema.of[1];
    cxt.error(false, undefined, { instancePath: field });
    if (cxt.allErrors) gen.endIf();
    else gen.else();
  },
};

/** The keywords of our own that the contracts use, on every ajv instance that compiles them. */
function addContractKeywords(instance: Ajv2020): void {
  addFormats(instance);
  // An annotation on credential fields (see `secretFieldNames`); it validates nothing.
  instance.addKeyword({ keyword: "x-secret", schemaType: "boolean" });
  instance.addKeyword(maxProductKeyword);
}

/** One ajv instance for every contract: strict, all errors reported, no coercion of wire data. */
export const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
addContractKeywords(ajv);

export type Validator<T> = ValidateFunction<T>;

export function compile<T>(schema: object): Validator<T> {
  return ajv.compile<T>(schema);
}

/**
 * The same contracts, stopping at the first error. For bodies that may be huge (a 100k-ticket
 * queue): with `allErrors` a hostile body makes ajv build one error object per bad value (800k for
 * 16 MB), so callers validate with this first and list errors only for a bounded part of the body.
 */
const firstErrorAjv = new Ajv2020({ allErrors: false, strict: true, allowUnionTypes: true });
addContractKeywords(firstErrorAjv);

export function compileFirstError<T>(schema: object): Validator<T> {
  return firstErrorAjv.compile<T>(schema);
}

/** ajv errors as problem+json field errors: a JSON pointer to the bad field and a sentence. */
export function toFieldErrors(errors: readonly ErrorObject[] | null | undefined, root = ""): FieldError[] {
  const out: FieldError[] = [];
  const seen = new Set<string>();
  const tooLong = new Set((errors ?? []).filter((e) => e.keyword === "maxLength").map((e) => e.instancePath));
  for (const e of errors ?? []) {
    // An `if` error only says "must match the then schema"; the failing `then` keyword is reported
    // beside it with the field's own pointer, so the `if` line adds noise and no information.
    if (e.keyword === "if") continue;
    // Likewise `propertyNames` is reported once more by the keyword that rejected the name.
    if (e.keyword === "propertyNames") continue;
    let pointer = root + e.instancePath;
    let detail = e.message ?? "is invalid";
    if (e.keyword === "required") {
      const missing = (e.params as { missingProperty: string }).missingProperty;
      pointer = `${pointer}/${escapePointer(missing)}`;
      detail = "is required";
    } else if (e.keyword === "additionalProperties") {
      const extra = (e.params as { additionalProperty: string }).additionalProperty;
      pointer = `${pointer}/${escapePointer(extra)}`;
      detail = "is not an allowed property";
    } else if (e.keyword === "enum") {
      const allowed = (e.params as { allowedValues: unknown[] }).allowedValues;
      detail = `must be one of ${allowed.map((v) => JSON.stringify(v)).join(", ")}`;
    } else if (e.keyword === "false schema") {
      detail = "is not allowed";
    } else if (e.keyword === "pattern") {
      // A string too long is told so once: its pattern (which bounds the length too) adds nothing.
      if (tooLong.has(e.instancePath)) continue;
      const words = PATTERNS_IN_WORDS.get(e.params.pattern);
      if (words !== undefined) detail = `must be ${words}`;
    }
    // A rule that applies only when another field is present (`dependentSchemas`) says so, e.g.
    // `/count` "must be <= 100 when fromRank is given".
    const trigger = dependentSchemaTrigger(e.schemaPath);
    if (trigger !== undefined) detail = `${detail} when ${trigger} is given`;
    if (e.propertyName !== undefined) detail = `has a key ${JSON.stringify(e.propertyName)} that ${detail}`;
    const key = `${pointer}\u0000${detail}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ pointer, detail });
  }
  return out;
}

export function escapePointer(token: string): string {
  return token.replaceAll("~", "~0").replaceAll("/", "~1");
}

function dependentSchemaTrigger(schemaPath: string): string | undefined {
  const match = /\/dependentSchemas\/([^/]+)\//.exec(schemaPath);
  const token = match?.[1];
  return token === undefined ? undefined : token.replaceAll("~1", "/").replaceAll("~0", "~");
}
