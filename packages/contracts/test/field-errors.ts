import { expect } from "@jest/globals";
import type { FieldError } from "../src/problem.js";
import { toFieldErrors, type Validator } from "../src/validation.js";

/** Asserts that `data` is rejected and returns the problem+json field errors a client would get. */
export function fieldErrorsOf(validate: Validator<unknown>, data: unknown): FieldError[] {
  expect(validate(data)).toBe(false);
  return toFieldErrors(validate.errors);
}
