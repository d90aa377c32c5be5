import { toFieldErrors, type Validator } from "@arena/contracts";
import { AppError } from "./app-error.js";

/** Validates wire data against a compiled contract, or throws a 400 problem naming each bad field. */
export function validateOrThrow<T>(validator: Validator<T>, data: unknown, root = ""): T {
  if (validator(data)) return data;
  throw AppError.validation(toFieldErrors(validator.errors, root));
}
