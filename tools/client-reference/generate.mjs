// The API reference of @arena/client, by TypeDoc: HTML and reference.json into the directory given
// (`pnpm --filter @arena/client-reference reference [dir]`, default `reference/`). TypeDoc drives
// TypeScript's JavaScript API, so this package pins TypeScript 5.x (TypeScript 7 has none).
import { fileURLToPath } from "node:url";
import { Application } from "typedoc";

const clientDir = fileURLToPath(new URL("../../packages/client/", import.meta.url));

/** Generates the reference into `outDir`; resolves to TypeDoc's JSON model of it. */
export async function generateReference(outDir) {
  const app = await Application.bootstrapWithPlugins({
    entryPoints: [`${clientDir}src/index.ts`],
    tsconfig: `${clientDir}tsconfig.build.json`,
    name: "@arena/client",
    readme: `${clientDir}README.md`,
    excludePrivate: true,
    excludeInternal: true,
    treatWarningsAsErrors: false,
    logLevel: "Error",
  });
  const project = await app.convert();
  if (!project) throw new Error("TypeDoc could not convert @arena/client");
  await app.generateDocs(project, outDir);
  await app.generateJson(project, `${outDir}/reference.json`);
  return app.serializer.projectToObject(project, outDir);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outDir = process.argv[2] ?? "reference";
  await generateReference(outDir);
  console.log(`wrote the @arena/client reference to ${outDir}`);
}
