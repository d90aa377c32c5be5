import { toFieldErrors, type Validator } from "@arena/contracts";
import { AppError, MAX_FIELD_ERRORS } from "./app-error.js";

/**
 * ajv errors turned into field errors at most: a few are dropped as noise or duplicates, so a
 * margin over MAX_FIELD_ERRORS still fills the list, while a million errors cost no more than this.
 */
const MAX_CONVERTED_ERRORS = 4 * MAX_FIELD_ERRORS;

/** Validates wire data against a compiled contract, or throws a 400 problem naming each bad field. */
export function validateOrThrow<T>(validator: Validator<T>, data: unknown, root = ""): T {
  if (validator(data)) return data;
  const all = validator.errors ?? [];
  if (all.length <= MAX_CONVERTED_ERRORS) throw AppError.validation(toFieldErrors(all, root));
  // Past the margin the count is ajv's, less the lines toFieldErrors always drops.
  const total = all.reduce((n, e) => (e.keyword === "if" || e.keyword === "propertyNames" ? n : n + 1), 0);
  throw AppError.validation(toFieldErrors(all.slice(0, MAX_CONVERTED_ERRORS), root), undefined, total);
}
