import { memoryRateLimitStore } from "elyra-assistant";
import { describe, expect, it } from "vitest";

describe("memoryRateLimitStore", () => {
  it("sweeps keys whose window has emptied, so idle windows cost nothing", () => {
    const store = memoryRateLimitStore();
    const limit = { calls: 1, perSeconds: 1 };
    for (let i = 0; i < 1000; i++) store.take(`window-${i}:tool`, limit, 0);
    expect(store.size()).toBe(1000);
    for (let i = 0; i < 24; i++) store.take("busy:tool", limit, 5_000 + i * 1000);
    expect(store.size()).toBe(1);
  });

  it("keeps a key whose window still holds calls", () => {
    const store = memoryRateLimitStore();
    store.take("slow:tool", { calls: 1, perSeconds: 3600 }, 0);
    for (let i = 0; i < 1024; i++) store.take("busy:tool", { calls: 5000, perSeconds: 1 }, 10_000);
    expect(store.size()).toBe(2);
    expect(store.take("slow:tool", { calls: 1, perSeconds: 3600 }, 10_000)).toEqual({
      _tag: "Limited",
      retryAfterMs: 3_590_000,
    });
  });
});
