/**
 * The import rules `pnpm lint` enforces over the `src` folders of every app and package (their unit
 * tests included). The cruiser reads the TypeScript sources themselves, so it needs no build: `.js`
 * specifiers resolve to their `.ts` files and workspace packages to their `source` export.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment:
        "An import circle, type-only imports included: a module of the circle cannot be read, " +
        "tested or moved without the others. Move what both sides need into a module of its own.",
      from: {},
      to: { circular: true },
    },
    {
      name: "package-imports-app",
      severity: "error",
      comment: "Packages are shared by the apps, so they cannot depend on one of them.",
      from: { path: "^packages/[^/]+/" },
      to: { path: "^apps/" },
    },
    {
      name: "app-imports-other-app-src",
      severity: "error",
      comment:
        "An app reaches another app only through that app's package exports (a test harness " +
        "starts the matchmaker through them), never by a relative path into its sources.",
      from: { path: "^apps/([^/]+)/" },
      // "local": a relative import; a workspace import resolves to the same file but through
      // the package's exports, which say what the app offers.
      to: { path: "^apps/[^/]+/src/", pathNot: "^apps/$1/", dependencyTypes: ["local"] },
    },
  ],
  options: {
    // TypeScript 7 has no compiler API for the cruiser to use; swc parses the sources.
    parser: "swc",
    // Type-only imports count: a circle of types is still a circle.
    tsPreCompilationDeps: true,
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(dist|generated|node_modules)/" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["source", "import", "default"],
      mainFields: ["module", "main", "types"],
      extensions: [".ts", ".js", ".mjs", ".cjs", ".json"],
    },
  },
};
