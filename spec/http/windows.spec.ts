/** A window is its user's: another cannot prompt, confirm, stop or read it, nor answer its confirmations. */
import { fakeModel } from "elyra-assistant/testing";
import { describe, expect, it, vi } from "vitest";
import { readSse, setup } from "./fixture.ts";

/** Ada's window w1 waiting on a confirmation to delete customer 42. */
const waitingOnDelete = async () => {
  const t = setup(fakeModel().toolCall("customers_delete", { id: 42 }).says("Deleted."));
  const started = await t.call("prompt", { body: "Delete customer 42" });
  expect(started.status).toBe(202);
  const asked = await vi.waitFor(() => {
    const item = t.ada.panel().items.find((i) => i.kind === "confirm");
    if (item?.kind !== "confirm") throw new Error("not asked yet");
    return item;
  });
  expect(asked.tool).toBe("customers_delete");
  await t.ada.settled();
  return { t, confirmId: asked.confirmId };
};

describe("another user's window", () => {
  it("every route answers 403 notYourWindow, and Ada's turn goes on untouched", async () => {
    const { t, confirmId } = await waitingOnDelete();
    const seq = t.ada.lastSeq();
    const asBob = [
      ["prompt", { body: "Hello" }],
      ["confirm", { body: { confirmId, accept: true } }],
      ["stop", {}],
      ["reset", {}],
      ["tools", {}],
      ["selected", { body: { kind: "customer", ids: [1] } }],
      ["events", {}],
      ["live?command=customers_show&args=%7B%22id%22%3A42%7D", {}],
    ] as const;
    for (const [path, call] of asBob) {
      const response = await t.call(path, { ...call, user: "bob", client: "w1" });
      expect(response.status, path).toBe(403);
      expect(await response.json()).toEqual({
        error: { type: "notYourWindow", message: "this window belongs to another user" },
      });
    }
    await t.ada.settled();
    expect(t.ada.lastSeq()).toBe(seq);
    expect(t.ada.state()).not.toBe("idle");
    expect(t.spies.total()).toBe(0);
    expect(t.host.live.queries("w1")).toEqual([]);

    // Ada answers in her own window: the delete runs once.
    const answered = await t.call("confirm", { body: { confirmId, accept: true } });
    expect(answered.status).toBe(200);
    expect(await answered.json()).toEqual({ result: { _tag: "Answered", answer: "accepted" } });
    await vi.waitFor(() => expect(t.ada.state()).toBe("idle"));
    expect(t.spies.runs.get("customers_delete")).toBe(1);
  });

  it("a confirm id of window A answered through window B is UnknownConfirmation, and nothing runs", async () => {
    const { t, confirmId } = await waitingOnDelete();
    // Bob, in his own window; then Ada herself, in another of her windows.
    for (const [user, client] of [
      ["bob", "w2"],
      ["ada", "w3"],
    ] as const) {
      const response = await t.call("confirm", {
        user,
        client,
        body: { confirmId, accept: true, tool: "customers_delete", args: { id: 42 } },
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ result: { _tag: "UnknownConfirmation" } });
    }
    await t.ada.settled();
    expect(t.spies.runs.get("customers_delete")).toBeUndefined();
    // Still waiting in window A: the answers elsewhere settled nothing.
    expect(t.ada.panel().items.find((i) => i.kind === "confirm")).not.toHaveProperty("answer");

    // A's own answer still counts, once; a second answer is unknown.
    const declined = await t.call("confirm", { body: { confirmId, accept: false } });
    expect(await declined.json()).toEqual({ result: { _tag: "Answered", answer: "declined" } });
    const again = await t.call("confirm", { body: { confirmId, accept: true } });
    expect(await again.json()).toEqual({ result: { _tag: "UnknownConfirmation" } });
    await vi.waitFor(() => expect(t.ada.state()).toBe("idle"));
    expect(t.spies.runs.get("customers_delete")).toBeUndefined();
  });

  it("an answer echoing another tool or other arguments is a Mismatch and declines", async () => {
    const { t, confirmId } = await waitingOnDelete();
    const response = await t.call("confirm", {
      body: { confirmId, accept: true, tool: "customers_delete", args: { id: 43 } },
    });
    expect(await response.json()).toEqual({ result: { _tag: "Mismatch" } });
    await vi.waitFor(() => expect(t.ada.state()).toBe("idle"));
    expect(t.spies.runs.get("customers_delete")).toBeUndefined();
  });

  it("Bob cannot read Ada's conversation; his own stream has none of it", async () => {
    const { t } = await waitingOnDelete();
    const controller = new AbortController();
    const own = await t.call("events", { user: "bob", client: "w2", signal: controller.signal });
    expect(own.status).toBe(200);
    const stream = readSse(own);
    await new Promise((r) => setTimeout(r, 20));
    expect(stream.messages).toEqual([]);
    controller.abort();
    await stream.done;
  });
});
