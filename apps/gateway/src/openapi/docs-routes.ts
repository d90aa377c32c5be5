import { createRequire } from "node:module";
import { dirname } from "node:path";
import { Router } from "express";

// swagger-ui-dist ships the built page; only these files of it are served, from this process.
const assetsDir = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
const ASSETS = ["swagger-ui.css", "swagger-ui-bundle.js", "favicon-32x32.png", "favicon-16x16.png"];

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Arena API reference</title>
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

// validatorUrl null: no badge fetched from swagger.io; the page talks to this gateway only.
const INIT = `window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: null,
});
`;

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** `GET /openapi.json` and `GET /docs`: the document and a browsable reference, no CDN involved. */
export function docsRoutes(document: object): Router {
  const router = Router();
  const body = JSON.stringify(document);
  router.get("/openapi.json", (_req, res) => {
    res.set("Cache-Control", "public, max-age=300").type("application/json").send(body);
  });
  router.get("/docs", (_req, res) => {
    res.set("Content-Security-Policy", CSP).type("html").send(PAGE);
  });
  router.get("/docs/init.js", (_req, res) => {
    res.set("Content-Security-Policy", CSP).type("application/javascript").send(INIT);
  });
  router.get("/docs/assets/:file", (req, res, next) => {
    const file = req.params.file as string;
    if (!ASSETS.includes(file)) {
      next();
      return;
    }
    // `root`: the dot-directory of pnpm's store is in assetsDir, which send's dotfile rule would refuse.
    res.set("Cache-Control", "public, max-age=86400").sendFile(file, { root: assetsDir });
  });
  return router;
}
