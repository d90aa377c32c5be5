import { describe, expect, it } from "@jest/globals";
import { PreparedStatement } from "./db.js";

describe("PreparedStatement without session state (transaction pooling)", () => {
  const params = Array.from({ length: 11 }, (_, i) => (i === 10 ? "text[]" : "int"));
  const statement = new PreparedStatement(
    "eleven",
    params,
    "SELECT $1 + $2, $10, $11, $1 FROM t WHERE x = ANY($11)",
  );
  const literals = Array.from({ length: 11 }, (_, i) => (i === 10 ? "'{a,b}'" : String(i + 1)));

  it("puts each literal, cast to its parameter's type, where its $n stands ($1 never inside $10)", () => {
    expect(statement.inline(...literals)).toBe(
      "SELECT (1)::int + (2)::int, (10)::int, ('{a,b}')::text[], (1)::int FROM t WHERE x = ANY(('{a,b}')::text[])",
    );
    expect(statement.execute(...literals)).toBe(`EXECUTE eleven(${literals.join(", ")})`);
  });

  it("refuses a wrong number of arguments, and a $n beyond the parameters", () => {
    expect(() => statement.inline("1")).toThrow("eleven takes 11 arguments, got 1");
    expect(() => new PreparedStatement("two", ["int"], "SELECT $1, $2").inline("1")).toThrow(
      "two has no parameter $2",
    );
  });
});
