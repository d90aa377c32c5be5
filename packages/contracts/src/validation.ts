import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { FieldError } from "./problem.js";

// ajv-formats is CommonJS: under NodeNext the default import is its `module.exports` object.
type AddFormats = typeof addFormatsModule.default;
const addFormats: AddFormats =
  (addFormatsModule as unknown as { default?: AddFormats }).default ??
  (addFormatsModule as unknown as AddFormats);

/** One ajv instance for every contract: strict, all errors reported, no coercion of wire data. */
export const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
addFormats(ajv);
// An annotation on credential fields (see `secretFieldNames`); it validates nothing.
ajv.addKeyword({ keyword: "x-secret", schemaType: "boolean" });

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
addFormats(firstErrorAjv);

export function compileFirstError<T>(schema: object): Validator<T> {
  return firstErrorAjv.compile<T>(schema);
}

/** ajv errors as problem+json field errors: a JSON pointer to the bad field and a sentence. */
export function toFieldErrors(errors: readonly ErrorObject[] | null | undefined, root = ""): FieldError[] {
  const out: FieldError[] = [];
  const seen = new Set<string>();
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
