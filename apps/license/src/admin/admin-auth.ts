import { createHash, timingSafeEqual } from "node:crypto";
import { AppError } from "@arena/service-kit";
import type { NextFunction, Request, Response } from "express";

const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();

/**
 * Requires `Authorization: Bearer <ADMIN_TOKEN>`. Both sides are hashed first so the comparison is
 * constant-time whatever the length of what was sent.
 */
export function requireAdminToken(adminToken: string) {
  const expected = digest(adminToken);
  return (req: Request, _res: Response, next: NextFunction): void => {
    const match = /^Bearer +(\S+)\s*$/i.exec(req.get("authorization") ?? "");
    if (!match || !timingSafeEqual(digest(match[1]!), expected)) {
      throw new AppError(
        "UNAUTHENTICATED",
        "A valid admin token is required: Authorization: Bearer <ADMIN_TOKEN>",
        {
          headers: { "WWW-Authenticate": 'Bearer realm="arena-license-admin"' },
        },
      );
    }
    next();
  };
}
