import {
  type RotatedSigningKey,
  TENANT_ID_PATTERN,
  validateCreateClientRequest,
  validateCreateTenantRequest,
  validateCreateUserRequest,
  validateRotateSigningKeyRequest,
  validateUpdateTenantRequest,
  validateUpdateUserRequest,
} from "@arena/contracts";
import { AppError, optionalJsonBody, requireJsonBody, validateOrThrow } from "@arena/service-kit";
import { rotatedSigningKey, type SigningKeys } from "@arena/signing-keys";
import { type Request, type RequestHandler, Router } from "express";
import type { TenantAdmin } from "./tenant-admin.js";

export interface AdminRoutesDeps {
  /** The admin token check and its per-address throttle (`admin-token-guard.ts`). */
  tokenGuard: RequestHandler;
  admin: TenantAdmin;
  signingKeys: SigningKeys;
}

const tenantIdPattern = new RegExp(TENANT_ID_PATTERN);

/** `/admin/*`: tenants, app clients, users and signing-key rotation, all behind ADMIN_TOKEN (throttled). */
export function adminRoutes({ tokenGuard, admin, signingKeys }: AdminRoutesDeps): Router {
  const router = Router();
  router.use(tokenGuard);

  router.post("/tenants", async (req, res) => {
    const body = validateOrThrow(validateCreateTenantRequest, requireJsonBody(req));
    const tenant = await admin.createTenant(body);
    req.log.info({ tenantId: tenant.tenantId }, "tenant created");
    res.status(201).location(`/admin/tenants/${tenant.tenantId}`).json(tenant);
  });

  router.get("/tenants", async (_req, res) => {
    res.json({ tenants: await admin.listTenants() });
  });

  router.get("/tenants/:tenantId", async (req, res) => {
    res.json(await admin.getTenant(tenantParam(req)));
  });

  router.patch("/tenants/:tenantId", async (req, res) => {
    const tenantId = tenantParam(req);
    const body = validateOrThrow(validateUpdateTenantRequest, requireJsonBody(req));
    const tenant = await admin.updateTenant(tenantId, body);
    req.log.info({ tenantId, limits: body.limits }, "tenant limits set");
    res.json(tenant);
  });

  router.post("/tenants/:tenantId/clients", async (req, res) => {
    const body = validateOrThrow(validateCreateClientRequest, requireJsonBody(req));
    const client = await admin.createClient(tenantParam(req), body);
    req.log.info({ tenantId: client.tenantId, clientId: client.clientId }, "app client created");
    res.status(201).json(client);
  });

  router.get("/tenants/:tenantId/clients", async (req, res) => {
    res.json({ clients: await admin.listClients(tenantParam(req)) });
  });

  router.post("/tenants/:tenantId/users", async (req, res) => {
    const body = validateOrThrow(validateCreateUserRequest, requireJsonBody(req));
    const user = await admin.createUser(tenantParam(req), body);
    req.log.info({ tenantId: user.tenantId, username: user.username, role: user.role }, "user created");
    res.status(201).set("Cache-Control", "no-store").json(user);
  });

  router.get("/tenants/:tenantId/users", async (req, res) => {
    res.json({ users: await admin.listUsers(tenantParam(req)) });
  });

  router.patch("/tenants/:tenantId/users/:username", async (req, res) => {
    const body = validateOrThrow(validateUpdateUserRequest, requireJsonBody(req));
    const user = await admin.setDisabled(tenantParam(req), req.params.username as string, body.disabled);
    req.log.info(
      { tenantId: user.tenantId, username: user.username, disabled: user.disabled },
      "user updated",
    );
    res.json(user);
  });

  router.delete("/tenants/:tenantId/users/:username/refresh-tokens", async (req, res) => {
    const revoked = await admin.revokeRefreshTokens(tenantParam(req), req.params.username as string);
    req.log.info({ tenantId: req.params.tenantId, revoked }, "refresh tokens revoked");
    res.json({ revoked });
  });

  router.delete("/tenants/:tenantId/users/:username/login-lock", async (req, res) => {
    const username = await admin.clearLoginLock(tenantParam(req), req.params.username as string);
    req.log.info({ tenantId: req.params.tenantId, username }, "login lock cleared");
    res.status(204).end();
  });

  router.post("/signing-keys/rotate", async (req, res) => {
    const body = validateOrThrow(validateRotateSigningKeyRequest, optionalJsonBody(req, {}));
    const key = await signingKeys.rotate(body);
    req.log.info({ kid: key.kid, revokedKids: key.revokedKids }, "token signing key rotated by admin");
    const rotated: RotatedSigningKey = rotatedSigningKey(key);
    res.status(201).json(rotated);
  });

  return router;
}

function tenantParam(req: Request): string {
  const tenantId = req.params.tenantId as string;
  if (!tenantIdPattern.test(tenantId)) {
    throw AppError.validation([
      { pointer: "/tenantId", detail: `must match pattern "${TENANT_ID_PATTERN}"` },
    ]);
  }
  return tenantId;
}
