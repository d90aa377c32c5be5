import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createHarness, type Harness } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

const DAY = 86_400_000;
const inDays = (days: number) => new Date(h.clock.now().getTime() + days * DAY).toISOString();

describe("scheduling seasons", () => {
  it("refuses a start more than 365 days ahead, so the tenant's seasons cannot be blocked for good", async () => {
    const t = "far";
    const res = await h.as(t).post("/seasons", { startsAt: "9999-12-31T00:00:00Z" }).expect(400);
    expect(res.body.errors).toEqual([
      { pointer: "/startsAt", detail: expect.stringMatching(/^must be at most 365 days after now/) },
    ]);
    const reset = await h
      .as(t)
      .post("/admin/season/reset", { seasonName: "S2", seasonStart: inDays(366) })
      .expect(400);
    expect(reset.body.errors).toEqual([
      { pointer: "/seasonStart", detail: expect.stringMatching(/^must be at most 365 days after now/) },
    ]);
    // Nothing was scheduled: a season starts now, and one can be scheduled 365 days ahead.
    await h.as(t).post("/seasons", {}).expect(201);
    const ahead = await h
      .as(t)
      .post("/seasons", { startsAt: inDays(365) })
      .expect(201);
    expect(ahead.body).toMatchObject({ season: "S3", isCurrentSeason: false });
  });

  it("cancels a season that has not started, and then another can be scheduled", async () => {
    const t = "undo";
    await h
      .as(t)
      .post("/seasons", { startsAt: inDays(30) })
      .expect(201);
    const blocked = await h.as(t).post("/seasons", {}).expect(409);
    expect(blocked.body.detail).toContain("DELETE /seasons/S2");
    await h.as(t, "server").delete("/seasons/S2").expect(403);
    await h.as(t).delete("/seasons/S2").expect(204);
    expect(
      (await h.as(t).get("/seasons").expect(200)).body.seasons.map((s: { season: string }) => s.season),
    ).toEqual(["S1"]);
    await h.as(t).delete("/seasons/S2").expect(404);
    const again = await h
      .as(t)
      .post("/seasons", { startsAt: inDays(7) })
      .expect(201);
    expect(again.body).toMatchObject({ season: "S2", isCurrentSeason: false });
  });

  it("answers 409 for a season that has started, 404 for one the tenant does not have, 400 for a bad name", async () => {
    const t = "started";
    await h
      .as(t)
      .post("/seasons", { startsAt: inDays(1) })
      .expect(201);
    h.clock.advance(DAY + 1000);
    const res = await h.as(t).delete("/seasons/S2").expect(409);
    expect(res.body.code).toBe("CONFLICT");
    expect((await h.as(t).delete("/seasons/S1").expect(409)).body.code).toBe("CONFLICT");
    expect((await h.as(t).get("/seasons").expect(200)).body.currentSeason).toBe("S2");
    await h.as(t).delete("/seasons/S3").expect(404);
    await h.as("never-used").delete("/seasons/S1").expect(409);
    await h.as(t).delete("/seasons/S2147483647").expect(404);
    // Beyond PostgreSQL's integer: not a season name at all (the contracts' bound).
    await h.as(t).delete("/seasons/S99999999999").expect(400);
    const bad = await h.as(t).delete("/seasons/s2").expect(400);
    expect(bad.body.errors[0].pointer).toBe("/season");
  });
});
