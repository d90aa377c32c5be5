import { createHash, timingSafeEqual } from "node:crypto";
import type { NextFunction, Request, Response } from "express";
import { AppError } from "./app-error.js";

const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();

/**
 * Requires `Authorization: Bearer <token>` with one configured token (an admin or service token).
 * Both sides are hashed first so the comparison is constant-time whatever the length of what was sent.
 */
export function requireBearerToken(token: string, realm: string) {
  const expected = digest(token);
  return (req: Request, _res: Response, next: NextFunction): void => {
    const match = /^Bearer +(\S+)\s*$/i.exec(req.get("authorization") ?? "");
    if (!match || !timingSafeEqual(digest(match[1]!), expected)) {
      throw new AppError(
        "UNAUTHENTICATED",
        `A valid token is required: Authorization: Bearer <token> (${realm})`,
        {
          headers: { "WWW-Authenticate": `Bearer realm="${realm}"` },
        },
      );
    }
    next();
  };
}
