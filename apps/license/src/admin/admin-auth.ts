import { requireBearerToken } from "@arena/service-kit";

/** Requires `Authorization: Bearer <ADMIN_TOKEN>` (constant-time comparison of SHA-256 digests). */
export const requireAdminToken = (adminToken: string) =>
  requireBearerToken(adminToken, "arena-license-admin");
