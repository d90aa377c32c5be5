#!/usr/bin/env node
import { readFile, writeFile } from "node:fs/promises";
import { withApiReference } from "./api-reference.js";

/** `node dist/api-reference-cli.js <file>`: rewrites the generated part of the API reference in place. */
const file = process.argv[2];
if (file === undefined) {
  process.stderr.write("Usage: api-reference-cli <docs/api.md>\n");
  process.exit(2);
}
const before = await readFile(file, "utf8");
const after = withApiReference(before);
if (after === before) {
  process.stdout.write(`${file} is up to date\n`);
} else {
  await writeFile(file, after);
  process.stdout.write(`${file} rewritten from the action table\n`);
}
