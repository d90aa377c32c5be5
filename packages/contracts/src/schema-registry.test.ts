import { describe, expect, it } from "@jest/globals";
import { openApiComponentSchemas, SCHEMA_NAMES, schemaRegistry } from "./schema-registry.js";
import { ajv } from "./validation.js";

/** JSON pointers of every `$id` below the root of a schema. */
function nestedIds(value: unknown, path = ""): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => nestedIds(item, `${path}/${i}`));
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, child]) => [
    ...(key === "$id" && path !== "" ? [path] : []),
    ...nestedIds(child, `${path}/${key}`),
  ]);
}

describe("schema registry", () => {
  it("names every schema by its $id, each name once", () => {
    expect(new Set(SCHEMA_NAMES).size).toBe(SCHEMA_NAMES.length);
    for (const [name, schema] of Object.entries(schemaRegistry)) expect(schema.$id).toBe(name);
  });

  it("holds the main wire shapes of every domain", () => {
    for (const name of [
      "MatchmakingRequest",
      "MatchmakingResponse",
      "InitiateAuthRequest",
      "GameConfigRequest",
      "SubmitPlayersRequest",
      "CompleteMatchResponse",
      "BackfillRequest",
      "PlayerStats",
      "RestPlayerStats",
      "LeaderboardRequest",
      "ClientMessage",
      "GetPlayerStatsPayload",
      "Problem",
    ]) {
      expect(SCHEMA_NAMES).toContain(name);
    }
  });

  it("keeps $id on top-level schemas only", () => {
    const offenders = Object.entries(schemaRegistry).flatMap(([name, schema]) =>
      nestedIds(schema).map((pointer) => `${name}${pointer}`),
    );
    expect(offenders).toEqual([]);
  });

  it("compiles every schema with the shared strict ajv instance", () => {
    for (const [name, schema] of Object.entries(schemaRegistry)) {
      const validate = ajv.getSchema(name) ?? ajv.compile(schema);
      expect(typeof validate).toBe("function");
    }
  });

  it("gives OpenAPI component schemas without $id and with their content intact", () => {
    const components = openApiComponentSchemas();
    expect(Object.keys(components)).toEqual([...SCHEMA_NAMES]);
    expect(components.LeaderboardRequest).not.toHaveProperty("$id");
    expect(components.LeaderboardRequest?.required).toEqual(["count"]);
    expect(JSON.parse(JSON.stringify(components))).toEqual(components);
  });
});
