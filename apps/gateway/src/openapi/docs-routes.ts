import { Router } from "express";

/** Placeholder until the OpenAPI document and the reference page are wired in. */
export function docsRoutes(): Router {
  return Router();
}
