/** Each route doing its one thing, with the status the contract names. */
import type { ToolInfo } from "elyra-assistant/http";
import { fakeModel } from "elyra-assistant/testing";
import { describe, expect, it, vi } from "vitest";
import { readSse, setup } from "./fixture.ts";

describe("POST /prompt", () => {
  it("answers 202 with the turn as soon as it starts, not when it ends", async () => {
    const t = setup(fakeModel().hangs());
    const response = await t.call("prompt", { body: { text: "Hello", route: "/customers/42" } });
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ turn: 1 });
    expect(t.ada.state()).not.toBe("idle");
    await t.ada.settled();
    expect(t.ada.panel().items[0]).toMatchObject({ kind: "user", text: "Hello" });
    t.ada.stop();
    await vi.waitFor(() => expect(t.ada.state()).toBe("idle"));
  });

  it("takes a bare string too, and counts turns", async () => {
    const t = setup(fakeModel().says("One.").says("Two."));
    expect(await (await t.call("prompt", { body: "First" })).json()).toEqual({ turn: 1 });
    await vi.waitFor(() => expect(t.ada.state()).toBe("idle"));
    expect(await (await t.call("prompt", { body: "Second" })).json()).toEqual({ turn: 2 });
    await vi.waitFor(() => expect(t.ada.state()).toBe("idle"));
    await t.ada.settled();
    expect(t.ada.history().messages.map((m) => m.content)).toEqual([
      "First",
      "One.",
      "Second",
      "Two.",
    ]);
  });

  it("while a turn runs: 409 turnInProgress, and the second prompt reaches no model", async () => {
    const t = setup(fakeModel().hangs().says("Never."));
    expect((await t.call("prompt", { body: "One" })).status).toBe(202);
    const second = await t.call("prompt", { body: "Two" });
    expect(second.status).toBe(409);
    expect(await second.json()).toEqual({
      error: { type: "turnInProgress", message: "a turn is already running in this window" },
    });
    expect(t.model.requests).toHaveLength(1);
    t.ada.stop();
  });

  it("two prompts at once: one starts, the other is refused", async () => {
    const t = setup(fakeModel().hangs().hangs());
    const answers = await Promise.all([
      t.call("prompt", { body: "One" }),
      t.call("prompt", { body: "Two" }),
    ]);
    expect(answers.map((r) => r.status).sort()).toEqual([202, 409]);
    t.ada.stop();
  });
});

describe("POST /stop and /reset", () => {
  it("stop answers 204 and the turn ends Stopped", async () => {
    const t = setup(fakeModel().hangs());
    await t.call("prompt", { body: "Hello" });
    const response = await t.call("stop");
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    await vi.waitFor(() => expect(t.ada.state()).toBe("idle"));
    await t.ada.settled();
    expect(t.ada.panel().items.at(-1)).toMatchObject({ kind: "stopped" });
  });

  it("stop with no turn running is a 204 that does nothing", async () => {
    const t = setup();
    expect((await t.call("stop")).status).toBe(204);
    await t.ada.settled();
    expect(t.ada.lastSeq()).toBe(0);
  });

  it("reset answers 204 and the conversation is forgotten", async () => {
    const t = setup(fakeModel().says("Hi."));
    await t.call("prompt", { body: "Hello" });
    await vi.waitFor(() => expect(t.ada.state()).toBe("idle"));
    const response = await t.call("reset");
    expect(response.status).toBe(204);
    expect(t.ada.history().messages).toEqual([]);
  });
});

describe("POST /tools", () => {
  it("lists what this user is offered now, and which ask first", async () => {
    const t = setup();
    const response = await t.call("tools");
    expect(response.status).toBe(200);
    const { tools } = (await response.json()) as { tools: ToolInfo[] };
    expect(tools).toEqual([
      {
        name: "customers_delete",
        description: "Delete a customer. It cannot be undone.",
        asksFirst: true,
      },
      { name: "customers_show", description: "Show one customer by id.", asksFirst: false },
      { name: "customers_update", description: "Change a customer's email.", asksFirst: false },
      { name: "invoices_index", description: "List invoices.", asksFirst: false },
    ]);
    const eve = (await (await t.call("tools", { user: "eve", client: "w9" })).json()) as {
      tools: ToolInfo[];
    };
    expect(eve.tools.map((tool) => tool.name)).toEqual(["customers_show"]);
  });
});

describe("POST /selected", () => {
  it("answers 204 and the log has the selection, on the route given", async () => {
    const t = setup();
    const response = await t.call("selected", {
      body: { kind: "customer", ids: [42, "a-7"], route: "/customers" },
    });
    expect(response.status).toBe(204);
    await t.ada.settled();
    const events: unknown[] = [];
    t.ada.events$().subscribe((e) => events.push(e));
    await vi.waitFor(() => expect(events).toHaveLength(1));
    expect(events[0]).toMatchObject({
      _tag: "SelectionChanged",
      kind: "customer",
      ids: [42, "a-7"],
      route: "/customers",
    });
  });

  it("a selection the window refuses is a 400", async () => {
    const t = setup();
    const response = await t.call("selected", { body: { kind: "  ", ids: [] } });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: { type: "badRequest", message: "a selection needs a kind with a name" },
    });
  });
});

describe("GET /live", () => {
  const live = (command: string, args?: unknown) =>
    `live?command=${command}${args === undefined ? "" : `&args=${encodeURIComponent(JSON.stringify(args))}`}`;

  it("streams the result now and after each write; closing it ends the query", async () => {
    const t = setup();
    const controller = new AbortController();
    const response = await t.call(live("customers_show", { id: 42 }), {
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const stream = readSse(response);
    await vi.waitFor(() => expect(stream.values()).toHaveLength(1));
    expect(stream.values()[0]).toEqual({ _tag: "Result", value: { id: 42, name: "Ada" } });
    expect(t.host.live.queries("w1")).toHaveLength(1);

    t.host.live.invalidate(["customers"]);
    await vi.waitFor(() => expect(stream.values()).toHaveLength(2));
    expect(t.spies.runs.get("customers_show")).toBe(2);

    controller.abort();
    await stream.done;
    expect(t.host.live.queries("w1")).toEqual([]);
  });

  it.each([
    [
      "an unknown command",
      "nope",
      {},
      400,
      { type: "unknownCommand", message: "unknown command: nope" },
    ],
    [
      "a command that is not live",
      "customers_update",
      {},
      400,
      { type: "notLive", message: "customers_update is not a live command" },
    ],
    [
      "bad arguments",
      "customers_show",
      { id: "x" },
      400,
      { type: "badArguments", message: 'id: expected number, got "x"' },
    ],
    [
      "a command the user may not run",
      "invoices_index",
      {},
      403,
      { type: "notAllowed", message: "the user may not do this: it takes invoices.view" },
    ],
  ])("%s: refused before streaming, as JSON", async (_, command, args, status, error) => {
    const t = setup();
    const response = await t.call(live(command, args), { user: "eve", client: "w9" });
    expect(response.status).toBe(status);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(await response.json()).toEqual({ error });
    expect(t.spies.total()).toBe(0);
    expect(t.host.live.queries("w9")).toEqual([]);
  });

  it("a query with no command or arguments that are not JSON: 400 naming it", async () => {
    const t = setup();
    const none = await t.call("live");
    expect(none.status).toBe(400);
    expect(await none.json()).toEqual({
      error: { type: "badRequest", message: "command: expected string, got undefined" },
    });
    const bad = await t.call("live?command=customers_show&args=%7Bid");
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      error: { type: "badRequest", message: "args: must be JSON" },
    });
  });
});
