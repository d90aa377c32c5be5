import { Router } from "express";
import type { SigningKeys } from "./signing-keys.js";

/** `GET /.well-known/jwks.json`: the public keys of everything signed that may still be valid. */
export function jwksRoutes(signingKeys: SigningKeys): Router {
  const router = Router();
  router.get("/.well-known/jwks.json", async (_req, res) => {
    // Short caching: verifiers refetch on an unknown `kid` anyway, and rotation must show up quickly.
    res.set("Cache-Control", "public, max-age=300").json(await signingKeys.publicJwks());
  });
  return router;
}
