import { describe, expect, it } from "@jest/globals";
import { fieldErrorsOf } from "../test/field-errors.js";
import { assertType, type Equal } from "../test/type-equality.js";
import {
  LICENSE_ID_PATTERN,
  LICENSE_LIST_MAX_LIMIT,
  type LicenseListQuery,
  type RegistrationAccepted,
  type RotatedSigningKey,
  type RotateSigningKeyRequest,
  validateCreateLicenseRequest,
  validateLicenseListQuery,
  validateRegistrationAccepted,
  validateRegistrationRequest,
  validateRotatedSigningKey,
  validateRotateSigningKeyRequest,
} from "./license.js";

assertType<Equal<RegistrationAccepted, { status: "accepted"; detail: string }>>();
assertType<Equal<LicenseListQuery["limit"], number | undefined>>();
assertType<Equal<LicenseListQuery["cursor"], string | undefined>>();
assertType<Equal<RotatedSigningKey, { kid: string; createdAt: string; revokedKids?: string[] }>>();
assertType<Equal<RotateSigningKeyRequest, { revokePrevious?: boolean }>>();

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

describe("rotate signing key request", () => {
  it("accepts nothing or revokePrevious, and names a wrong type or an unknown field", () => {
    expect(validateRotateSigningKeyRequest({})).toBe(true);
    expect(validateRotateSigningKeyRequest({ revokePrevious: true })).toBe(true);
    expect(fieldErrorsOf(validateRotateSigningKeyRequest, { revokePrevious: "yes", revoke: true })).toEqual([
      { pointer: "/revoke", detail: "is not an allowed property" },
      { pointer: "/revokePrevious", detail: "must be boolean" },
    ]);
  });
});

describe("names and e-mail addresses", () => {
  const hostile = [
    "\u0000",
    "\r\nBcc: victim@example.com",
    "\n",
    "\t",
    "\u001b[31m",
    "\u007f",
    "\u0085",
    "\u2028",
    "\u202e",
  ];

  it("accept any printable text, accents, scripts and emoji included", () => {
    for (const name of ["Zoë O'Brien-Łukasiewicz", "株式会社アリーナ", "عربي", "Studio 🎮 #1", "a  b"]) {
      expect(validateRegistrationRequest({ name, email: "a@example.com" })).toBe(true);
    }
  });

  it("refuse control characters, line separators and bidi overrides in a name, naming /name", () => {
    for (const bad of hostile) {
      const errors = fieldErrorsOf(validateRegistrationRequest, {
        name: `Jane${bad}Doe`,
        email: "a@example.com",
      });
      expect(errors.map((e) => e.pointer)).toEqual(["/name"]);
      const created = fieldErrorsOf(validateCreateLicenseRequest, {
        name: `Jane${bad}`,
        email: "a@example.com",
        edition: "community",
      });
      expect(created.map((e) => e.pointer)).toEqual(["/name"]);
    }
  });

  it("refuse them in an e-mail address, naming /email", () => {
    for (const bad of hostile) {
      const errors = fieldErrorsOf(validateRegistrationRequest, {
        name: "Jane",
        email: `jane${bad}@example.com`,
      });
      expect(new Set(errors.map((e) => e.pointer))).toEqual(new Set(["/email"]));
      const trailing = fieldErrorsOf(validateRegistrationRequest, {
        name: "Jane",
        email: `jane@example.com${bad}`,
      });
      expect(new Set(trailing.map((e) => e.pointer))).toEqual(new Set(["/email"]));
    }
  });
});

describe("license ids", () => {
  it("are lic_ and base62, which a path id with NUL or slashes never matches", () => {
    const id = new RegExp(LICENSE_ID_PATTERN, "u");
    expect(id.test("lic_7Qm2xAbCdEfGhIjKlMnOp")).toBe(true);
    for (const bad of ["lic_", "lic_a\u0000", "lic_a/b", "key_abc", `lic_${"a".repeat(65)}`, "lic_a\n"]) {
      expect(id.test(bad)).toBe(false);
    }
  });
});
