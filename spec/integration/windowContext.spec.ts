/**
 * The window-context case (docs/window-context.md), end to end on a fake
 * model: the user is on /customers/42 with the customer and her invoices
 * live; "Set her credit limit to 50 000" carries the note, runs
 * customers_update, links the step to /customers/42, and the open customer
 * query runs again with the new limit.
 */
import { createApp, type LiveResult, SelectionRefused } from "elyra-assistant";
import type { EventOf } from "elyra-assistant/log";
import { WINDOW_RULE } from "elyra-assistant/machines";
import { fakeModel, testApp } from "elyra-assistant/testing";
import { describe, expect, it } from "vitest";
import { crmCommands, crmData } from "../../examples/crm/commands.ts";

interface Staff {
  readonly name: string;
  readonly abilities: ReadonlyArray<string>;
}

const ADA: Staff = {
  name: "Ada",
  abilities: ["customers.view", "customers.update", "invoices.view"],
};

const crm = (windowContext = true) => {
  const db = crmData();
  const app = createApp({
    commands: crmCommands(db),
    userAbilities: (user) => (user as Staff).abilities,
    assistant: {
      allow: ["customers.*", "invoices.view"],
      confirm: ["customers.delete"],
      windowContext,
    },
  });
  return { db, app };
};

const CASE_NOTE =
  '<window>{"route":"/customers/42","showing":[{"command":"invoices_index","arguments":{"customer_id":42,"page":1}},{"command":"customers_show","arguments":{"id":42}}]}</window>';

describe("the window in a turn", () => {
  it("sends the note, runs customers_update, links the step, and the live customer updates", async () => {
    const { db, app } = crm();
    const model = fakeModel()
      .toolCall("customers_update", { id: 42, creditLimit: 50_000 })
      .says("Done: Ada Lovelace's credit limit is now 50 000.")
      .says("Her email is ada@example.com.");
    const t = testApp(app, { model, user: ADA });

    const seen: LiveResult[] = [];
    const window = t.host.window("test-window", { user: ADA });
    const sub = window.live("customers_show", { id: 42 }).subscribe((r) => seen.push(r));
    const assistant = t
      .assistant()
      .at("/customers/42")
      .live("invoices_index", { customer_id: 42, page: 1 });
    const turn = await assistant.prompt("Set her credit limit to 50 000");

    expect(turn.note).toBe(CASE_NOTE);
    const [first] = turn.requests;
    expect(first?.messages.at(-1)).toEqual({
      role: "user",
      content: `${CASE_NOTE}\n\nSet her credit limit to 50 000`,
    });
    expect(first?.system).toContain(WINDOW_RULE);
    expect(turn.ran).toEqual([
      { command: "customers_update", user: ADA, origin: { kind: "assistant" }, ok: true },
    ]);
    expect(db.customers.get(42)?.creditLimit).toBe(50_000);

    const finished = turn.events.find((e) => e._tag === "ToolFinished") as EventOf<"ToolFinished">;
    expect(finished.link).toBe("/customers/42");
    expect(turn.panel.items.find((i) => i.kind === "tool")).toMatchObject({
      tool: "customers_update",
      ok: true,
      link: "/customers/42",
    });
    // Arguments reach neither the window nor the log.
    expect(JSON.stringify(turn.events)).not.toContain("50000");

    // The open customer query ran again after the write, with the new limit.
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(
      seen.map((r) => (r._tag === "Result" ? (r.value as { creditLimit: number }).creditLimit : r)),
    ).toEqual([10_000, 50_000]);

    // The note stays in the history with its text, so a later "her" still resolves.
    const next = await assistant.prompt("And her email?");
    expect(next.requests[0]?.messages[0]).toEqual({
      role: "user",
      content: `${CASE_NOTE}\n\nSet her credit limit to 50 000`,
    });
    sub.unsubscribe();
    assistant.unsubscribe();
  });

  it("selections go with their route: another route drops them, Reset drops them", async () => {
    const { app } = crm();
    const model = fakeModel().says("One.").says("Two.").says("Three.").says("Four.");
    const t = testApp(app, { model, user: ADA });
    const onList = t.assistant().at("/invoices").select("invoices", [1, 3]);
    const a = await onList.prompt("Mark these paid");
    expect(a.note).toBe('<window>{"route":"/invoices","selected":{"invoices":[1,3]}}</window>');

    // Same route: still selected.
    expect((await onList.prompt("And these?")).note).toContain('"selected":{"invoices":[1,3]}');

    // A turn from another route drops the selection for good.
    const elsewhere = await t.assistant().at("/customers").prompt("Who owes most?");
    expect(elsewhere.note).toBe('<window>{"route":"/customers"}</window>');
    expect((await t.assistant().at("/invoices").prompt("Back here")).note).toBe(
      '<window>{"route":"/invoices"}</window>',
    );
  });

  it("Reset drops the selections; [] clears a kind; a kind with no name is refused", async () => {
    const { app } = crm();
    const t = testApp(app, { model: fakeModel().says("A.").says("B.").says("C."), user: ADA });
    const window = t.host.window("test-window", { user: ADA });
    await window.select("invoices", [1], { route: "/invoices" });
    await window.select("customers", [42], { route: "/invoices" });
    await window.select("invoices", [], { route: "/invoices" });
    expect(window.panel().items).toEqual([]);
    const a = await t.assistant().at("/invoices").prompt("What is selected?");
    expect(a.note).toBe('<window>{"route":"/invoices","selected":{"customers":[42]}}</window>');

    await window.reset();
    const b = await t.assistant().at("/invoices").prompt("And now?");
    expect(b.note).toBe('<window>{"route":"/invoices"}</window>');

    await expect(window.select("", [1])).rejects.toBeInstanceOf(SelectionRefused);
    await expect(window.select("  ", [1])).rejects.toBeInstanceOf(SelectionRefused);
    await expect(window.select("x", [{} as unknown as number])).rejects.toBeInstanceOf(
      SelectionRefused,
    );
    const c = await t.assistant().at("/invoices").prompt("Still?");
    expect(c.note).toBe('<window>{"route":"/invoices"}</window>');
  });

  it("a selection outlives a rebuild of the window from its log; the log keeps 100 ids and the count", async () => {
    const { app } = crm();
    const t = testApp(app, { model: fakeModel().crashes("boom").says("Yes."), user: ADA });
    const window = t.host.window("test-window", { user: ADA });
    await window.select(
      "invoices",
      Array.from({ length: 150 }, (_, i) => i),
      { route: "/invoices" },
    );
    const crashed = await t.assistant().at("/invoices").prompt("How many?");
    expect(crashed.end).toMatchObject({ _tag: "Failed", error: "interrupted" });
    const turn = await t.assistant().at("/invoices").prompt("How many now?");
    const parsed = JSON.parse((turn.note ?? "").slice(8, -9));
    expect(parsed.selected.invoices).toEqual(Array.from({ length: 100 }, (_, i) => i));
    // 150 selected, 100 shown: the note says how many it left out.
    expect(parsed.more_selected).toBe(50);
  });

  it("shows only queries of commands offered to this user, and never another window's", async () => {
    const { app } = crm();
    const viewer: Staff = { name: "Vic", abilities: ["customers.view"] };
    const t = testApp(app, { model: fakeModel().says("Hi."), user: viewer });
    const other = t.host.window("other-window", { user: viewer });
    const sub = other.live("customers_show", { id: 43 }).subscribe();
    // invoices_index is not offered to Vic: the live query itself is refused.
    await expect(
      t.assistant().at("/customers/42").live("invoices_index", {}).prompt("Hi"),
    ).rejects.toMatchObject({ reason: "notAllowed" });
    const turn = await t
      .assistant()
      .at("/customers/42")
      .live("customers_show", { id: 42 })
      .prompt("Hi");
    expect(turn.note).toBe(
      '<window>{"route":"/customers/42","showing":[{"command":"customers_show","arguments":{"id":42}}]}</window>',
    );
    sub.unsubscribe();
  });

  it("windowContext: false sends no note and no rule", async () => {
    const { app } = crm(false);
    const t = testApp(app, { model: fakeModel().says("Hi."), user: ADA });
    const turn = await t
      .assistant()
      .at("/customers/42")
      .live("customers_show", { id: 42 })
      .select("customers", [42])
      .prompt("Hello");
    expect(turn.note).toBeNull();
    expect(turn.requests[0]?.messages.at(-1)).toEqual({ role: "user", content: "Hello" });
    expect(turn.requests[0]?.system).not.toContain("<window>");
    expect(turn.requests[0]?.system).not.toContain(WINDOW_RULE);
  });

  it("closing the window ends its live queries", async () => {
    const { app } = crm();
    const t = testApp(app, { model: fakeModel(), user: ADA });
    const window = t.host.window("w", { user: ADA });
    let completed = false;
    window.live("customers_show", { id: 42 }).subscribe({ complete: () => (completed = true) });
    expect(t.host.live.queries("w")).toHaveLength(1);
    await window.close();
    expect(completed).toBe(true);
    expect(t.host.live.queries("w")).toEqual([]);
    // A query subscribed after the close is refused, and nothing is registered.
    const late = window.live("customers_show", { id: 42 });
    const refused = await new Promise((resolve) => late.subscribe({ error: resolve }));
    expect(refused).toMatchObject({ _tag: "LiveQueryRefused", reason: "closed" });
    expect(t.host.live.queries("w")).toEqual([]);
  });
});
