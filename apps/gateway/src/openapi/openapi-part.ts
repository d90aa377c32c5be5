import type { Express } from "express";
import type { GatewayConfig } from "../config.js";
import { docsRoutes } from "./docs-routes.js";
import { openApiDocument } from "./openapi-document.js";

/** `/openapi.json` and `/docs`: the document, generated once from the contracts for PUBLIC_URL. */
export function openApiPart({ config }: { config: GatewayConfig }): { mount(app: Express): void } {
  const routes = docsRoutes(openApiDocument(config.PUBLIC_URL));
  return {
    mount: (app) => {
      app.use(routes);
    },
  };
}
