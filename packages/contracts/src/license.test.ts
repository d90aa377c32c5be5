import { describe, expect, it } from "@jest/globals";
import { fieldErrorsOf } from "../test/field-errors.js";
import { assertType, type Equal } from "../test/type-equality.js";
import {
  LICENSE_LIST_MAX_LIMIT,
  type LicenseListQuery,
  type RegistrationAccepted,
  type RotatedSigningKey,
  validateLicenseListQuery,
  validateRegistrationAccepted,
  validateRotatedSigningKey,
} from "./license.js";

assertType<Equal<RegistrationAccepted, { status: "accepted"; detail: string }>>();
assertType<Equal<LicenseListQuery["limit"], number | undefined>>();
assertType<Equal<LicenseListQuery["cursor"], string | undefined>>();
assertType<Equal<RotatedSigningKey, { kid: string; createdAt: string }>>();

describe("registration accepted", () => {
  it("accepts the status and a sentence", () => {
    expect(validateRegistrationAccepted({ status: "accepted", detail: "A key is on its way." })).toBe(true);
  });

  it("rejects another status, a missing detail and anything more, such as a key", () => {
    expect(fieldErrorsOf(validateRegistrationAccepted, { status: "created", detail: "x" })).toEqual([
      { pointer: "/status", detail: "must be equal to constant" },
    ]);
    expect(fieldErrorsOf(validateRegistrationAccepted, { status: "accepted" })).toEqual([
      { pointer: "/detail", detail: "is required" },
    ]);
    expect(
      fieldErrorsOf(validateRegistrationAccepted, { status: "accepted", detail: "x", licenseKey: "lk_x" }),
    ).toEqual([{ pointer: "/licenseKey", detail: "is not an allowed property" }]);
  });
});

describe("license list query", () => {
  it("accepts no parameters, a limit from 1 to the maximum and a cursor", () => {
    expect(validateLicenseListQuery({})).toBe(true);
    expect(validateLicenseListQuery({ limit: 1 })).toBe(true);
    expect(validateLicenseListQuery({ limit: LICENSE_LIST_MAX_LIMIT, cursor: "WyIyMDI2Il0" })).toBe(true);
  });

  it("ignores parameters it does not know, as query strings do", () => {
    expect(validateLicenseListQuery({ limit: 10, utm_source: "mail" })).toBe(true);
  });

  it("rejects a limit out of range or not an integer, and an empty cursor, each by its pointer", () => {
    expect(fieldErrorsOf(validateLicenseListQuery, { limit: 0 })).toEqual([
      { pointer: "/limit", detail: "must be >= 1" },
    ]);
    expect(fieldErrorsOf(validateLicenseListQuery, { limit: LICENSE_LIST_MAX_LIMIT + 1 })).toEqual([
      { pointer: "/limit", detail: `must be <= ${LICENSE_LIST_MAX_LIMIT}` },
    ]);
    expect(fieldErrorsOf(validateLicenseListQuery, { limit: "ten", cursor: "" })).toEqual([
      { pointer: "/limit", detail: "must be integer" },
      { pointer: "/cursor", detail: "must NOT have fewer than 1 characters" },
    ]);
    expect(fieldErrorsOf(validateLicenseListQuery, { limit: 2.5, cursor: ["a", "b"] })).toEqual([
      { pointer: "/limit", detail: "must be integer" },
      { pointer: "/cursor", detail: "must be string" },
    ]);
  });
});

describe("rotated signing key", () => {
  it("accepts the kid and the creation time", () => {
    expect(
      validateRotatedSigningKey({
        kid: "0b8f3a52-6a8e-4b4e-9f0e-2f1d7c9a4e11",
        createdAt: "2026-11-22T10:00:00.000Z",
      }),
    ).toBe(true);
  });

  it("rejects a missing kid, a time that is not ISO 8601 and any key material", () => {
    expect(
      fieldErrorsOf(validateRotatedSigningKey, { createdAt: "yesterday", privateJwk: { d: "secret" } }),
    ).toEqual([
      { pointer: "/kid", detail: "is required" },
      { pointer: "/privateJwk", detail: "is not an allowed property" },
      { pointer: "/createdAt", detail: 'must match format "date-time"' },
    ]);
  });
});
