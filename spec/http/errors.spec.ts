/** A bug is a 500 that says "internal error" and nothing else; the host is told the rest. */
import { fakeModel } from "elyra-assistant/testing";
import { describe, expect, it, vi } from "vitest";
import { setup } from "./fixture.ts";

const SECRET = "db password is hunter2 at /srv/app/session.ts:42";

const isBare500 = async (response: Response) => {
  expect(response.status).toBe(500);
  const text = await response.text();
  expect(JSON.parse(text)).toEqual({ error: { type: "internal", message: "internal error" } });
  expect(text).not.toContain("hunter2");
  expect(text).not.toContain("session.ts");
};

describe("a 500", () => {
  it("when authenticate throws: nothing of the error is in the answer; onError has it", async () => {
    const t = setup(fakeModel(), {
      authenticate: () => {
        throw new Error(SECRET);
      },
    });
    await isBare500(await t.call("tools"));
    expect(t.errors).toHaveLength(1);
    expect((t.errors[0] as Error).message).toBe(SECRET);
  });

  it("when something that is not an Error is thrown", async () => {
    const t = setup(fakeModel(), {
      token: () => {
        throw SECRET;
      },
    });
    await isBare500(await t.call("tools"));
    expect(t.errors).toEqual([SECRET]);
  });

  it("when a route's own work fails, e.g. the window's log cannot be read", async () => {
    const t = setup();
    vi.spyOn(t.ada, "reset").mockRejectedValue(new TypeError(SECRET));
    await isBare500(await t.call("reset"));
    expect(t.errors).toEqual([new TypeError(SECRET)]);
  });

  it("when an async authenticate rejects", async () => {
    const t = setup(fakeModel(), { authenticate: async () => Promise.reject(new Error(SECRET)) });
    await isBare500(await t.call("prompt", { body: "Hi" }));
    expect(t.model.requests).toHaveLength(0);
  });

  it("is logged with console.error when no onError is given", async () => {
    const spy = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const t = setup(fakeModel(), {
        onError: undefined as never,
        authenticate: () => {
          throw new Error(SECRET);
        },
      });
      await isBare500(await t.call("tools"));
      expect(spy).toHaveBeenCalledWith(
        "elyra-assistant/http: a request failed",
        expect.objectContaining({ message: SECRET }),
      );
    } finally {
      spy.mockRestore();
    }
  });

  it("refusals are not errors: nothing is logged for a 4xx", async () => {
    const t = setup(fakeModel().hangs());
    await t.call("prompt", { body: "One" });
    expect((await t.call("prompt", { body: "Two" })).status).toBe(409);
    expect((await t.call("tools", { token: null })).status).toBe(403);
    expect((await t.call("confirm", { body: {} })).status).toBe(400);
    expect(t.errors).toEqual([]);
    t.ada.stop();
  });
});
