import { describe, expect, it } from "@jest/globals";
import { fieldErrorsOf } from "../test/field-errors.js";
import { TENANT_LIMIT_MAXIMA, validateTenantDetails, validateUpdateTenantRequest } from "./identity.js";

describe("a tenant's limits (the admin API's PATCH /admin/tenants/{tenantId})", () => {
  it("accepts any of the three limits, null for the default, and none at all", () => {
    expect(
      validateUpdateTenantRequest({ limits: { requests: 100, windowSeconds: 10, webSocketConnections: 5 } }),
    ).toBe(true);
    expect(validateUpdateTenantRequest({ limits: { requests: null } })).toBe(true);
    expect(validateUpdateTenantRequest({ limits: {} })).toBe(true);
  });

  it("names each value out of its bounds, of the wrong type, or unknown", () => {
    const errors = fieldErrorsOf(validateUpdateTenantRequest, {
      limits: {
        requests: 0,
        windowSeconds: TENANT_LIMIT_MAXIMA.windowSeconds + 1,
        webSocketConnections: "many",
        bursts: 3,
      },
    });
    expect(errors.map((e) => e.pointer).sort()).toEqual([
      "/limits/bursts",
      "/limits/requests",
      "/limits/webSocketConnections",
      "/limits/windowSeconds",
    ]);
    expect(errors).toContainEqual({ pointer: "/limits/requests", detail: "must be >= 1" });
    expect(fieldErrorsOf(validateUpdateTenantRequest, { requests: 5 })).toEqual([
      { pointer: "/limits", detail: "is required" },
      { pointer: "/requests", detail: "is not an allowed property" },
    ]);
  });

  it("answers the tenant with the limits in force and its own, null where the default applies", () => {
    const tenant = {
      tenantId: "acme",
      name: "Acme",
      userPoolId: "eu-west-1_Acme",
      createdAt: "2026-11-02T10:00:00.000Z",
    };
    expect(
      validateTenantDetails({
        ...tenant,
        limits: { requests: 100, windowSeconds: 60, webSocketConnections: 1000 },
        overrides: { requests: 100, windowSeconds: null, webSocketConnections: null },
      }),
    ).toBe(true);
    expect(
      validateTenantDetails({ ...tenant, limits: { requests: 100 }, overrides: { requests: null } }),
    ).toBe(false);
  });
});
