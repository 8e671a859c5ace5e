// @vitest-environment happy-dom
/**
 * An answered confirmation the user changed shows what was approved, not
 * what the model asked: the fold, the store's snapshot and the panel show
 * the edited arguments, each change marked with what it was, and the
 * sentence made from the asked arguments as what was asked; after a reload
 * (a new host on the same SQLite log, a new store and panel) the same.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Schema } from "effect";
import { createApp, createHost, defineCommand } from "elyra-assistant";
import { assistantHttp } from "elyra-assistant/http";
import { type LogEvent, panelItems } from "elyra-assistant/log";
import { sqliteStore } from "elyra-assistant/sqlite";
import { fakeModel } from "elyra-assistant/testing";
import {
  type AssistantPanel,
  type AssistantStore,
  assistantClient,
  createAssistantStore,
} from "elyra-assistant/ui";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fakeClient, numbered } from "./fixtures.ts";

const LABEL = "Issue an invoice of €500 to Grace Hopper, due in 30 days?";
const asked = { customer_id: 7, amount: 500 };
const approved = { customer_id: 7, amount: 750, project: "Apollo", due_on: "2025-07-01" };

const events = numbered([
  { _tag: "TurnStarted", turn: 1, text: "Bill her 500", route: null, note: null },
  {
    _tag: "ConfirmRequested",
    turn: 1,
    confirmId: "c1",
    callId: "k1",
    tool: "invoices_store",
    description: "Create an invoice.",
    args: asked,
    label: LABEL,
    action: "Issue invoice",
    editable: [
      { name: "amount", schema: { type: "number", exclusiveMinimum: 0 } },
      { name: "project", schema: { type: "string" } },
      { name: "due_on", schema: { type: "string" } },
    ],
  },
  {
    _tag: "ConfirmAnswered",
    turn: 1,
    confirmId: "c1",
    answer: "accepted",
    edited: true,
    args: approved,
  },
]);

/** The same log as a host wrote it before the edited arguments were recorded. */
const olderEvents = events.map((event) =>
  event._tag === "ConfirmAnswered" ? { ...event, args: undefined } : event,
) as LogEvent[];

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  document.body.replaceChildren();
  for (const undo of cleanup.splice(0).reverse()) await undo();
});

const mount = (store: AssistantStore) => {
  const panel = document.createElement("elyra-assistant-panel") as AssistantPanel;
  panel.store = store;
  document.body.append(panel);
  cleanup.push(() => panel.remove());
  return panel.shadowRoot!;
};

/** What the answered dialog reads: its title, each change, the arguments shown and their name. */
const shown = (root: ShadowRoot) => {
  const dialog = root.querySelector<HTMLElement>("[role=dialog]")!;
  return {
    title: root.getElementById(dialog.getAttribute("aria-labelledby")!)?.textContent,
    changes: [...dialog.querySelectorAll("ul.changes li")].map((li) => li.textContent),
    args: JSON.parse(dialog.querySelector("pre.args")?.textContent ?? "null") as unknown,
    argsLabel: dialog.querySelector("pre.args")?.getAttribute("aria-label"),
    answer: dialog.querySelector(".answer")?.textContent,
  };
};

const APPROVED_VIEW = {
  title: `Claude asked: ${LABEL}`,
  changes: [
    "Amount: 750 (was 500)",
    "Project: Apollo (was not set)",
    "Due on: 2025-07-01 (was not set)",
  ],
  args: approved,
  argsLabel: "Arguments, with your changes",
  answer: "Accepted with your changes.",
};

describe("an answered confirmation the user changed", () => {
  it("the fold keeps the approved arguments and what changed, the asked ones beside them", () => {
    const confirm = panelItems.fold(events).items.find((item) => item.kind === "confirm");
    expect(confirm).toMatchObject({
      args: asked,
      edited: true,
      editedArgs: approved,
      changes: [
        { name: "amount", was: 500, now: 750 },
        { name: "project", now: "Apollo" },
        { name: "due_on", now: "2025-07-01" },
      ],
    });
  });

  it("the store's snapshot and the panel show what was approved, each change marked with what it was", () => {
    const fake = fakeClient();
    const store = createAssistantStore(fake.client, { open: true, route: () => "/" });
    const root = mount(store);
    fake.emit(...events);
    const item = store.getSnapshot().items.find((i) => i.kind === "confirm");
    expect(item?.kind === "confirm" && item.editedArgs).toEqual(approved);
    expect(shown(root)).toEqual(APPROVED_VIEW);
    // The model's number is not shown as if it ran: 500 is only ever what the amount was.
    expect(root.querySelector("pre.args")?.textContent).not.toContain("500");
  });

  it("from an older log (no arguments recorded), the arguments shown are named as the ones asked", () => {
    const fake = fakeClient();
    const root = mount(createAssistantStore(fake.client, { open: true, route: () => "/" }));
    fake.emit(...olderEvents);
    expect(shown(root)).toEqual({
      title: `Claude asked: ${LABEL}`,
      changes: [],
      args: asked,
      argsLabel: "Arguments asked",
      answer: "Accepted with your changes.",
    });
  });
});

const TOKEN = "host-token-0123456789";

/** A host over a SQLite log with an invoice command asked with editable arguments. */
const crmHost = (file: string, ran: unknown[] = []) => {
  const issue = defineCommand({
    name: "invoices_store",
    description: "Create an invoice.",
    can: "invoices.create",
    args: {
      customer_id: Schema.Int,
      amount: Schema.Number.pipe(Schema.positive()),
      project: Schema.optional(Schema.String),
      due_on: Schema.optional(Schema.String),
    },
    editable: ["amount", "project", "due_on"],
    confirmAction: "Issue invoice",
    confirmLabel: ({ amount, due_on }) =>
      `Issue an invoice of €${amount} to Grace Hopper, ${due_on === undefined ? "due in 30 days" : `due ${due_on}`}?`,
    run: (args) => {
      ran.push(args);
      return { id: 1 };
    },
  });
  const app = createApp({
    commands: [issue],
    userAbilities: () => ["invoices.create"],
    assistant: { allow: ["*"], confirm: ["invoices.create"] },
  });
  const model = fakeModel().toolCall("invoices_store", asked).says("Issued.");
  const store = sqliteStore(file);
  const host = createHost(app, { model, store });
  const handle = assistantHttp(host, {
    token: TOKEN,
    authenticate: () => ({ name: "Ada" }),
    heartbeatMs: 60_000,
  });
  const tab = () =>
    createAssistantStore(
      assistantClient({
        token: TOKEN,
        clientId: "tab-1",
        baseUrl: "http://app.test/__assistant",
        fetch: (input, init) => handle(new Request(input, init)),
      }),
      { open: true, route: () => "/" },
    );
  return {
    tab,
    close: async () => {
      await host.close();
      await store.close?.();
    },
  };
};

describe("an answered confirmation the user changed, after a reload", () => {
  it("a new host, store and panel reading the same log show what ran, not what was asked", async () => {
    const dir = mkdtempSync(join(tmpdir(), "elyra-edited-"));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, "events.db");
    const ran: unknown[] = [];
    const first = crmHost(file, ran);
    const store = first.tab();
    const root = mount(store);
    await vi.waitFor(() => expect(store.getSnapshot().connected).toBe(true));
    await store.prompt("Bill her 500");
    await vi.waitFor(() => expect(root.querySelector(".item.confirm.waiting")).not.toBeNull());
    const dialog = root.querySelector<HTMLElement>(".item.confirm.waiting")!;
    const field = (name: string) => dialog.querySelector<HTMLInputElement>(`[name=${name}]`)!;
    field("amount").value = "750";
    field("project").value = "Apollo";
    field("due_on").value = "2025-07-01";
    dialog.querySelector<HTMLButtonElement>("button.accept")!.click();
    await vi.waitFor(() =>
      expect(store.getSnapshot().items.some((i) => i.kind === "answer" && !i.streaming)).toBe(true),
    );
    expect(ran).toEqual([approved]);
    expect(shown(root)).toEqual(APPROVED_VIEW);
    document.body.replaceChildren();
    await first.close();

    // The page reloads against a host started again on the same file.
    const second = crmHost(file);
    cleanup.push(second.close);
    const again = second.tab();
    const reloaded = mount(again);
    await vi.waitFor(() =>
      expect(again.getSnapshot().items.some((i) => i.kind === "answer")).toBe(true),
    );
    const item = again.getSnapshot().items.find((i) => i.kind === "confirm");
    expect(item).toMatchObject({ args: asked, editedArgs: approved });
    expect(shown(reloaded)).toEqual(APPROVED_VIEW);
  });
});
