import type { Express } from "express";
import { docsRoutes } from "./docs-routes.js";
import { openApiDocument } from "./openapi-document.js";

/** `/openapi.json` and `/docs`: the document, generated once from the contracts. */
export function openApiPart(): { mount(app: Express): void } {
  const routes = docsRoutes(openApiDocument());
  return {
    mount: (app) => {
      app.use(routes);
    },
  };
}
