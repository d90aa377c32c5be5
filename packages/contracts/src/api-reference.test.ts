import { readFileSync } from "node:fs";
import { describe, expect, it } from "@jest/globals";
import { HOSTED_OPERATIONS } from "./actions.js";
import {
  API_REFERENCE_END,
  API_REFERENCE_START,
  headingAnchor,
  renderApiReference,
  withApiReference,
} from "./api-reference.js";

const apiDoc = readFileSync(new URL("../../../docs/api.md", import.meta.url), "utf8");

function generatedPart(document: string): string {
  const start = document.indexOf(API_REFERENCE_START);
  const end = document.indexOf(API_REFERENCE_END);
  return start < 0 || end < start ? "" : document.slice(start, end + API_REFERENCE_END.length);
}

describe("the API reference", () => {
  it("in docs/api.md is what the action table renders (run `pnpm docs:api` after changing it)", () => {
    expect(generatedPart(apiDoc)).toBe(renderApiReference());
  });

  it("gives every hosted operation a section", () => {
    const headings = apiDoc.split("\n").filter((line) => line.startsWith("#### "));
    for (const op of HOSTED_OPERATIONS) expect(headings).toContain(`#### ${op.operationId}`);
  });

  it("links only to headings of the page, each heading unique", () => {
    const anchors = apiDoc
      .split("\n")
      .filter((line) => /^#{1,6} /.test(line))
      .map((line) => headingAnchor(line.replace(/^#+ /, "")));
    expect(new Set(anchors).size).toBe(anchors.length);
    const targets = [...apiDoc.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]);
    expect(targets.length).toBeGreaterThan(HOSTED_OPERATIONS.length);
    for (const target of targets) expect(anchors).toContain(target);
  });

  it("replaces only the generated part of a document", () => {
    const document = `# Title\n\nhand-written\n\n${API_REFERENCE_START}\nstale\n${API_REFERENCE_END}\n\nafter\n`;
    expect(withApiReference(document)).toBe(`# Title\n\nhand-written\n\n${renderApiReference()}\n\nafter\n`);
    expect(() => withApiReference("# no markers")).toThrow(/no generated part/);
  });

  it("states the rules that span fields: a leaderboard count's limit depends on the variant", () => {
    expect(renderApiReference()).toContain("When `fromRank` is given: `count` ≤ 100.");
    expect(renderApiReference()).toContain(
      "When `playerId` is given: `count` ≤ 50; `fromRank` is not allowed.",
    );
  });
});
