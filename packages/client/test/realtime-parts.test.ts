import { describe, expect, it } from "@jest/globals";
import fc from "fast-check";
import { realtimeBackoffDelay } from "../src/realtime/backoff.js";
import { realtimeUrlOf } from "../src/realtime/realtime-client.js";
import { RealtimeRecentKeys } from "../src/realtime/recent-keys.js";
import { RealtimeSuggestionBuffer } from "../src/realtime/suggestion-buffer.js";

describe("realtimeBackoffDelay (full jitter)", () => {
  it("waits between 0 and min(max, base × 2^(attempt-1))", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 5000 }),
        fc.integer({ min: 1, max: 60_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, baseMs, maxMs, r) => {
          const delay = realtimeBackoffDelay(attempt, { baseMs, maxMs }, () => r);
          const ceiling = Math.min(maxMs, baseMs * 2 ** (attempt - 1));
          return delay >= 0 && delay < Math.max(1, ceiling) && Number.isInteger(delay);
        },
      ),
    );
  });
});

describe("RealtimeRecentKeys", () => {
  it("forgets the oldest first and keeps a key touched again", () => {
    const keys = new RealtimeRecentKeys(3);
    keys.set("a", "taken");
    keys.set("b", "taken");
    keys.set("c", "taken");
    keys.set("a", "acknowledged");
    keys.set("d", "taken");
    expect(keys.get("b")).toBeUndefined();
    expect(keys.get("a")).toBe("acknowledged");
    expect(keys.size).toBe(3);
  });
});

describe("RealtimeSuggestionBuffer", () => {
  it("refuses past its bound, hands out in order and reports each item taken", async () => {
    const taken: number[] = [];
    const buffer = new RealtimeSuggestionBuffer<number>(2, (n) => taken.push(n));
    expect([buffer.offer(1), buffer.offer(2), buffer.offer(3)]).toEqual([true, true, false]);
    expect(taken).toEqual([]);
    expect((await buffer.next()).value).toBe(1);
    const waiting = [buffer.next(), buffer.next()];
    expect(buffer.offer(4)).toBe(true);
    expect((await Promise.all(waiting)).map((r) => r.value)).toEqual([2, 4]);
    expect(taken).toEqual([1, 2, 4]);
    const last = buffer.next();
    expect(buffer.end()).toEqual([]);
    expect(await last).toEqual({ value: undefined, done: true });
  });
});

describe("realtimeUrlOf", () => {
  it("keeps a ws URL and turns an http base URL into its /ws", () => {
    expect(realtimeUrlOf("wss://arena.example.com/ws")).toBe("wss://arena.example.com/ws");
    expect(realtimeUrlOf("https://arena.example.com")).toBe("wss://arena.example.com/ws");
    expect(realtimeUrlOf("http://127.0.0.1:8080/")).toBe("ws://127.0.0.1:8080/ws");
  });
});
