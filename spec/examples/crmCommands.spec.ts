/**
 * The example CRM's SQLite commands through the assistant: testApp on a fake
 * model over a seeded in-memory database, dated so "overdue" does not move.
 */

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ModelRequest, ToolResultBlock } from "elyra-assistant";
import type { EventOf } from "elyra-assistant/log";
import { fakeModel, testApp } from "elyra-assistant/testing";
import { afterEach, describe, expect, it } from "vitest";
import { crmApp, DEMO_USER } from "../../examples/crm/app.ts";
import { type CrmDb, openCrmDb } from "../../examples/crm/db.ts";
import type { CustomerPage, InvoicePage } from "../../examples/crm/sqliteCommands.ts";

const TODAY = "2026-06-15";
const open: CrmDb[] = [];

const crm = () => {
  const db = openCrmDb(":memory:", { today: () => TODAY });
  open.push(db);
  return { db, app: crmApp(db) };
};

afterEach(() => {
  for (const db of open.splice(0)) db.close();
});

/** The tool result the model was sent in the turn's second request. */
const resultOf = (requests: ReadonlyArray<ModelRequest>): ToolResultBlock => {
  const content = requests[1]?.messages.at(-1)?.content;
  if (!Array.isArray(content)) throw new Error("the second request carries no tool result");
  return content[0] as ToolResultBlock;
};

/** Calls one tool through the assistant and returns what the model was told. */
const call = async (
  app: ReturnType<typeof crmApp>,
  tool: string,
  input: unknown,
  confirm = false,
) => {
  const model = fakeModel().toolCall(tool, input).says("Done.");
  const turn = await testApp(app, { model, user: DEMO_USER }).assistant().prompt("Go", { confirm });
  const result = resultOf(turn.requests);
  const finished = turn.events.find((e) => e._tag === "ToolFinished") as
    | EventOf<"ToolFinished">
    | undefined;
  return {
    turn,
    result,
    value: result.is_error ? undefined : (JSON.parse(result.content) as unknown),
    link: finished?.link,
  };
};

describe("the seed", () => {
  it("makes 120 customers and 400 invoices, the same ones each time, some overdue and some on no project", () => {
    const { db } = crm();
    const again = openCrmDb(":memory:", { today: () => TODAY });
    open.push(again);
    expect(db.customers({}).total).toBe(120);
    expect(db.invoices({}).total).toBe(400);
    expect(db.invoices({ page: 7 })).toEqual(again.invoices({ page: 7 }));
    expect(db.customer(42)).toEqual(again.customer(42));
    expect(db.invoices({ overdue: true }).total).toBeGreaterThan(20);
    expect(db.invoices({ without_project: true }).total).toBeGreaterThan(20);
    expect(db.invoices({ paid: true }).total).toBeGreaterThan(100);
  });

  it("seeds a new file once: opened again, it keeps what changed", () => {
    const path = join(mkdtempSync(join(tmpdir(), "crm-")), "data", "crm.db");
    const first = openCrmDb(path, { today: () => TODAY, seed: { customers: 10, invoices: 30 } });
    first.updateCustomer(2, { credit_limit: 77 });
    first.close();
    const second = openCrmDb(path, { today: () => TODAY });
    open.push(second);
    expect(second.customers({}).total).toBe(10);
    expect(second.invoices({}).total).toBe(30);
    expect(second.customer(2).credit_limit).toBe(77);

    const empty = openCrmDb(":memory:", { seed: false });
    open.push(empty);
    expect(empty.customers({}).total).toBe(0);
  });
});

describe("customers_index and invoices_index", () => {
  it("filters invoices by overdue, customer, project and number, 20 a page", async () => {
    const { db, app } = crm();
    const overdue = (await call(app, "invoices_index", { overdue: true })).value as InvoicePage;
    expect(overdue.total).toBe(db.invoices({ overdue: true }).total);
    expect(overdue.invoices).toHaveLength(Math.min(20, overdue.total));
    for (const i of overdue.invoices) {
      expect(i.status).toBe("overdue");
      expect(i.paid_on).toBeNull();
      expect(i.due_on < TODAY).toBe(true);
    }
    expect(overdue.total_amount).toBeCloseTo(
      db.sql
        .prepare(
          "SELECT SUM(amount_cents) / 100.0 AS s FROM invoices WHERE paid_on IS NULL AND due_on < ?",
        )
        .pluck()
        .get(TODAY) as number,
    );

    const customerId = overdue.invoices[0]!.customer_id;
    const theirs = (await call(app, "invoices_index", { customer_id: customerId, overdue: false }))
      .value as InvoicePage;
    for (const i of theirs.invoices) {
      expect(i.customer_id).toBe(customerId);
      expect(i.status).not.toBe("overdue");
    }

    const noProject = (await call(app, "invoices_index", { without_project: true, page: 2 }))
      .value as InvoicePage;
    expect(noProject.page).toBe(2);
    expect(noProject.invoices.every((i) => i.project === null)).toBe(true);

    const byNumber = (await call(app, "invoices_index", { search: "INV-0042" }))
      .value as InvoicePage;
    expect(byNumber.invoices.map((i) => i.number)).toContain("INV-0042");
  });

  it("searches customers and keeps those with an overdue invoice", async () => {
    const { db, app } = crm();
    const name = db.customer(7).name.split(" ")[1]!;
    const found = (await call(app, "customers_index", { search: name })).value as CustomerPage;
    expect(found.total).toBeGreaterThan(0);
    expect(found.customers.every((c) => `${c.name} ${c.email} ${c.company}`.includes(name))).toBe(
      true,
    );

    const late = (await call(app, "customers_index", { has_overdue: true })).value as CustomerPage;
    expect(late.total).toBeGreaterThan(0);
    expect(late.customers.every((c) => c.overdue_invoices > 0)).toBe(true);
    expect(late.pages).toBe(Math.ceil(late.total / 20));
  });

  it("refuses a page that is not a positive whole number, and a search of the wrong type", async () => {
    const { app } = crm();
    const { result } = await call(app, "invoices_index", { page: 0, search: 3 });
    expect(result.is_error).toBe(true);
    expect(result.content).toMatch(/page/);
    expect(result.content).toMatch(/search/);
  });
});

describe("store, update and show, with links", () => {
  it("creates a customer and an invoice for them, each linked to its page", async () => {
    const { db, app } = crm();
    const customer = await call(app, "customers_store", {
      name: "Margaret Hamilton",
      email: "margaret@apollo.example",
      company: "Apollo",
      credit_limit: 30_000,
    });
    expect(customer.value).toMatchObject({ id: 121, name: "Margaret Hamilton", balance: 0 });
    expect(customer.link).toBe("/customers/121");

    const invoice = await call(
      app,
      "invoices_store",
      {
        customer_id: 121,
        amount: 1234.5,
        project: "Guidance software",
      },
      true,
    );
    expect(invoice.value).toMatchObject({
      id: 401,
      number: "INV-0401",
      customer_name: "Margaret Hamilton",
      amount: 1234.5,
      issued_on: TODAY,
      due_on: "2026-07-15",
      status: "open",
    });
    expect(invoice.link).toBe("/invoices/401");
    expect(db.customer(121).balance).toBe(1234.5);
  });

  it("updates a customer's credit limit and links the step to them", async () => {
    const { db, app } = crm();
    const { value, link, turn } = await call(app, "customers_update", {
      id: 5,
      credit_limit: 50_000,
    });
    expect(turn.ran).toEqual([
      { command: "customers_update", user: DEMO_USER, origin: { kind: "assistant" }, ok: true },
    ]);
    expect(value).toMatchObject({ id: 5, credit_limit: 50_000 });
    expect(link).toBe("/customers/5");
    expect(db.customer(5).credit_limit).toBe(50_000);
  });

  it("marks an invoice paid, and says what is wrong with a bad change without running it", async () => {
    const { db, app } = crm();
    const id = db.invoices({ overdue: true }).invoices[0]!.id;
    const paid = await call(app, "invoices_update", { id, paid: true });
    expect(paid.value).toMatchObject({ id, status: "paid", paid_on: TODAY });
    expect(paid.link).toBe(`/invoices/${id}`);

    const bad = await call(app, "customers_update", { id: 5, email: "nope", credit_limit: -1 });
    expect(bad.result.is_error).toBe(true);
    expect(bad.result.content).toContain("email: must be a valid email");
    expect(bad.turn.ran).toEqual([]);

    const nothing = await call(app, "customers_update", { id: 5 });
    expect(nothing.result.content).toBe(
      "nothing to change: give at least one of name, email, company, credit_limit",
    );
    const missing = await call(app, "invoices_show", { id: 9999 });
    expect(missing.result.content).toBe("no invoice has id 9999");
  });

  it("re-runs a live customer query after an update", async () => {
    const { app } = crm();
    const model = fakeModel()
      .toolCall("customers_update", { id: 9, credit_limit: 12_345 })
      .says("Done.");
    const t = testApp(app, { model, user: DEMO_USER });
    const limits: number[] = [];
    const sub = t.host
      .window("test-window", { user: DEMO_USER })
      .live("customers_show", { id: 9 })
      .subscribe((r) => {
        if (r._tag === "Result") limits.push((r.value as { credit_limit: number }).credit_limit);
      });
    await t.assistant().at("/customers/9").prompt("Set their credit limit to 12 345");
    await new Promise((resolve) => setTimeout(resolve, 10));
    sub.unsubscribe();
    expect(limits.at(-1)).toBe(12_345);
    expect(limits.length).toBeGreaterThanOrEqual(2);
  });
});

describe("destroy asks first", () => {
  it("does not delete a customer when the user declines", async () => {
    const { db, app } = crm();
    const { turn, result } = await call(app, "customers_destroy", { id: 3 }, false);
    const asked = turn.events.find((e) => e._tag === "ConfirmRequested") as
      | EventOf<"ConfirmRequested">
      | undefined;
    expect(asked).toMatchObject({ tool: "customers_destroy" });
    expect(asked?.description).toContain("cannot be undone");
    expect(turn.ran).toEqual([]);
    expect(result).toMatchObject({
      is_error: true,
      content: "The user didn't confirm customers_destroy, so it did not run.",
    });
    expect(db.customer(3).id).toBe(3);
  });

  it("deletes a customer and their invoices when the user confirms", async () => {
    const { db, app } = crm();
    const invoices = db.invoices({ customer_id: 3 }).total;
    const { turn, value } = await call(app, "customers_destroy", { id: 3 }, true);
    expect(turn.events.some((e) => e._tag === "ConfirmRequested")).toBe(true);
    expect(turn.ran).toEqual([
      { command: "customers_destroy", user: DEMO_USER, origin: { kind: "assistant" }, ok: true },
    ]);
    expect(value).toEqual({ deleted: 3, invoices_deleted: invoices });
    expect(() => db.customer(3)).toThrow("no customer has id 3");
    expect(db.invoices({ customer_id: 3 }).total).toBe(0);
  });

  it("asks before deleting an invoice too", async () => {
    const { db, app } = crm();
    const declined = await call(app, "invoices_destroy", { id: 10 }, false);
    expect(declined.turn.ran).toEqual([]);
    expect(db.invoice(10).id).toBe(10);
    const confirmed = await call(app, "invoices_destroy", { id: 10 }, true);
    expect(confirmed.value).toEqual({ deleted: 10 });
    expect(() => db.invoice(10)).toThrow("no invoice has id 10");
  });
});

describe("what people read on the confirmation (issue 28)", () => {
  it("each command the CRM asks first has a title and a summary for people, never about the model or the user", () => {
    const { app } = crm();
    const asked = ["customers_destroy", "invoices_destroy", "invoices_store"].map((name) =>
      app.commands.get(name),
    );
    for (const command of asked) {
      expect(command?.title).toMatch(/^[A-Z]/);
      expect(command?.summary).toMatch(/^[A-Z].*\.$/);
      expect(command?.summary).not.toMatch(/model|the user|asked to confirm/i);
    }
  });

  it("invoices_store's editable arguments are labelled, the due date a date and the amount in euros, on the wire", async () => {
    const { app } = crm();
    const { turn } = await call(app, "invoices_store", { customer_id: 3, amount: 120 }, false);
    const asked = turn.events.find((e) => e._tag === "ConfirmRequested") as
      | EventOf<"ConfirmRequested">
      | undefined;
    expect(asked).toMatchObject({ title: "Issue invoice", summary: expect.any(String) });
    expect(asked?.editable?.map(({ schema: _s, ...field }) => field)).toEqual([
      { name: "amount", label: "Amount", kind: "money", currency: "EUR" },
      { name: "project", label: "Project", kind: "text" },
      { name: "due_on", label: "Due date", kind: "date" },
    ]);
  });
});
