import { describe, expect, it } from "@jest/globals";
import { Counter, createMetrics, DROPPED_DEFAULT_METRICS } from "../src/index.js";
import { promtoolCheckMetrics } from "../src/testing.js";

describe("createMetrics", () => {
  it("exports process and Node.js defaults that pass promtool check metrics", async () => {
    const { registry, httpDuration } = createMetrics("kit-test");
    httpDuration.observe({ method: "GET", route: "/x", status: "200" }, 0.01);
    const text = await registry.metrics();
    expect(text).toContain("# TYPE nodejs_active_handles gauge");
    expect(text).toMatch(/^process_resident_memory_bytes\{/m);
    for (const name of DROPPED_DEFAULT_METRICS) expect(text).not.toContain(name);
    expect(promtoolCheckMetrics(text)).toEqual({ status: 0, output: "" });
  });

  it("lets promtool report a metric that breaks the rules (the check is real)", async () => {
    const { registry } = createMetrics("kit-test");
    new Counter({ name: "kit_test_things", help: "a counter without _total", registers: [registry] }).inc();
    const result = promtoolCheckMetrics(await registry.metrics());
    expect(result.status).not.toBe(0);
    expect(result.output).toContain("kit_test_things");
  });
});
