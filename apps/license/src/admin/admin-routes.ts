import {
  type CreatedLicense,
  LICENSE_ID_PATTERN,
  LICENSE_LIST_DEFAULT_LIMIT,
  type LicenseList,
  type RotatedSigningKey,
  toFieldErrors,
  validateCreateLicenseRequest,
  validateLicenseListQuery,
  validateRotateSigningKeyRequest,
  validateUpdateLicenseRequest,
} from "@arena/contracts";
import { AppError, optionalJsonBody, requireJsonBody, validateOrThrow } from "@arena/service-kit";
import { rotatedSigningKey, type SigningKeys } from "@arena/signing-keys";
import { type Request, Router } from "express";
import type { LicenseStore } from "../licenses/license-store.js";
import { decodeCursor, type ListCursor } from "../licenses/list-cursor.js";
import { requireAdminToken } from "./admin-auth.js";

export interface AdminRoutesDeps {
  adminToken: string;
  licenses: LicenseStore;
  signingKeys: SigningKeys;
}

/** `/admin/*`: license management and signing-key rotation, all behind the admin token. */
export function adminRoutes({ adminToken, licenses, signingKeys }: AdminRoutesDeps): Router {
  const router = Router();
  router.use(requireAdminToken(adminToken));

  router.post("/licenses", async (req, res) => {
    const body = validateOrThrow(validateCreateLicenseRequest, requireJsonBody(req));
    const { license, licenseKey } = await licenses.create(body);
    req.log.info({ licenseId: license.id, edition: license.edition }, "license created by admin");
    const created: CreatedLicense = {
      id: license.id,
      licenseKey,
      edition: license.edition,
      keyPrefix: license.keyPrefix,
    };
    res.status(201).location(`/admin/licenses/${license.id}`).set("Cache-Control", "no-store").json(created);
  });

  router.get("/licenses", async (req, res) => {
    const { limit, cursor } = parseListQuery(req);
    const page: LicenseList = await licenses.list(limit, cursor);
    res.json(page);
  });

  router.get("/licenses/:id", async (req, res) => {
    const id = licenseIdOf(req);
    const license = await licenses.get(id);
    if (!license) throw notFound(id);
    res.json(license);
  });

  router.patch("/licenses/:id", async (req, res) => {
    const id = licenseIdOf(req);
    const body = validateOrThrow(validateUpdateLicenseRequest, requireJsonBody(req));
    const updated = await licenses.updateEdition(id, body.edition);
    if (updated === undefined) throw notFound(id);
    if (updated === "revoked")
      throw new AppError("CONFLICT", `License ${id} is revoked; its edition cannot change`);
    req.log.info({ licenseId: id, edition: body.edition }, "license edition changed");
    res.json(updated);
  });

  router.delete("/licenses/:id", async (req, res) => {
    const id = licenseIdOf(req);
    if (!(await licenses.revoke(id))) throw notFound(id);
    req.log.info({ licenseId: id }, "license revoked");
    res.status(204).end();
  });

  router.post("/signing-keys/rotate", async (req, res) => {
    const body = validateOrThrow(validateRotateSigningKeyRequest, optionalJsonBody(req, {}));
    const key = await signingKeys.rotate(body);
    req.log.info({ kid: key.kid, revokedKids: key.revokedKids }, "lease signing key rotated by admin");
    const rotated: RotatedSigningKey = rotatedSigningKey(key);
    res.status(201).json(rotated);
  });

  return router;
}

const LICENSE_ID = new RegExp(LICENSE_ID_PATTERN, "u");

/**
 * The `:id` of the path. One that cannot be a license id (a NUL, which PostgreSQL refuses, control
 * characters, kilobytes of text) is not looked up: no license has it, so it is a 404 like any other.
 */
function licenseIdOf(req: Request): string {
  const id = req.params.id as string;
  if (!LICENSE_ID.test(id)) throw notFound(id);
  return id;
}

function notFound(id: string): AppError {
  // JSON quoting shows control characters escaped, and a long id only in part.
  const shown = JSON.stringify(id.length > 80 ? `${id.slice(0, 80)}…` : id);
  return new AppError("NOT_FOUND", `No license with id ${shown}`);
}

/** The list query, checked against `LicenseListQuery`; every bad parameter is named in one answer. */
function parseListQuery(req: Request): { limit: number; cursor: ListCursor | undefined } {
  const query: Record<string, unknown> = { ...req.query };
  // Query values arrive as text: a decimal limit is read as its number, anything else stays text for
  // the schema to reject at `/limit`.
  if (typeof query.limit === "string" && /^\d+$/.test(query.limit)) query.limit = Number(query.limit);
  const valid = validateLicenseListQuery(query);
  const errors = valid ? [] : toFieldErrors(validateLicenseListQuery.errors);
  // To the schema a cursor is opaque text; it must also be one we issued.
  let cursor: ListCursor | undefined;
  if (typeof query.cursor === "string" && !errors.some((e) => e.pointer === "/cursor")) {
    cursor = decodeCursor(query.cursor);
    if (!cursor) errors.push({ pointer: "/cursor", detail: "is not a cursor from a previous page" });
  }
  if (!valid || errors.length > 0) throw AppError.validation(errors);
  return { limit: query.limit ?? LICENSE_LIST_DEFAULT_LIMIT, cursor };
}
