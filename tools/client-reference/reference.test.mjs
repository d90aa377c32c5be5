// Generates the reference into a temporary directory (so CI builds it on every run) and checks it
// documents the SDK's entry points. Add a name to DOCUMENTED when the package exports a new one;
// a name the package does not export (yet) is skipped, so the list can run ahead of the code.
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import * as client from "@arena/client";
import { generateReference } from "./generate.mjs";

const DOCUMENTED = ["createArenaClient", "ArenaApiError", "CognitoTokens", "RealtimeClient"];

test("the reference documents every exported entry point, each with its comment", async () => {
  const outDir = await mkdtemp(join(tmpdir(), "arena-client-reference-"));
  try {
    const reference = await generateReference(outDir);
    const byName = new Map(reference.children.map((child) => [child.name, child]));
    const expected = DOCUMENTED.filter((name) => name in client);
    assert.ok(expected.includes("createArenaClient"));
    for (const name of expected) {
      const entry = byName.get(name);
      assert.ok(entry, `${name} is missing from the reference`);
      const comment = entry.comment ?? entry.signatures?.[0]?.comment;
      assert.ok(comment?.summary?.length, `${name} has no doc comment in the reference`);
    }
    const html = await readFile(join(outDir, "index.html"), "utf8");
    assert.match(html, /@arena\/client/);
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
});
