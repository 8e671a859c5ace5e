/**
 * The example CRM's offline demo model: scripted answers picked from the last
 * user message and the window note, through the whole assistant on testApp.
 */
import { testApp } from "elyra-assistant/testing";
import { afterEach, describe, expect, it } from "vitest";
import { crmApp, DEMO_USER } from "../../examples/crm/app.ts";
import { type CrmDb, openCrmDb } from "../../examples/crm/db.ts";
import { decide, demoModel, parseAmount, readPrompt } from "../../examples/crm/demoModel.ts";

const TODAY = "2026-06-15";
const open: CrmDb[] = [];

const crm = () => {
  const db = openCrmDb(":memory:", { today: () => TODAY });
  open.push(db);
  const t = testApp(crmApp(db), { model: demoModel({ paceMs: 0 }), user: DEMO_USER });
  return { db, t };
};

afterEach(() => {
  for (const db of open.splice(0)) db.close();
});

describe("the demo model", () => {
  it("answers what is overdue from invoices_index", async () => {
    const { db, t } = crm();
    const turn = await t.assistant().at("/invoices").prompt("Which invoices are overdue?");
    expect(turn.ran.map((r) => r.command)).toEqual(["invoices_index"]);
    const total = db.invoices({ overdue: true }).total;
    expect(turn.answer).toMatch(new RegExp(`^${total} invoices are overdue, €[\\d,.]+ in all`));
    expect(turn.answer).toContain(db.invoices({ overdue: true }).invoices[0]!.number);
  });

  it("narrows to the customer on the page when the prompt says their", async () => {
    const { db, t } = crm();
    const id = db.invoices({ overdue: true }).invoices[0]!.customer_id;
    const turn = await t
      .assistant()
      .at(`/customers/${id}`)
      .prompt("Which of their invoices are overdue?");
    expect(turn.answer).toContain("for this customer");
    expect(turn.requests[0]?.messages.at(-1)?.content).toContain(`"route":"/customers/${id}"`);
    const call = turn.requests[1]?.messages.at(-2)?.content;
    expect(call).toEqual([
      expect.objectContaining({
        type: "tool_use",
        name: "invoices_index",
        input: { customer_id: id, overdue: true },
      }),
    ]);
  });

  it("sets the credit limit of the customer on the page", async () => {
    const { db, t } = crm();
    const turn = await t.assistant().at("/customers/42").prompt("Set her credit limit to 50 000");
    expect(turn.ran).toEqual([
      { command: "customers_update", user: DEMO_USER, origin: { kind: "assistant" }, ok: true },
    ]);
    expect(db.customer(42).credit_limit).toBe(50_000);
    expect(turn.answer).toBe(`Done: ${db.customer(42).name}'s credit limit is now €50,000.00.`);
    expect(turn.panel.items.find((i) => i.kind === "tool")).toMatchObject({
      link: "/customers/42",
    });
  });

  it("asks before deleting the customer on the page, and leaves them when declined", async () => {
    const { db, t } = crm();
    const declined = await t.assistant().at("/customers/7").prompt("Delete this customer");
    expect(declined.events.some((e) => e._tag === "ConfirmRequested")).toBe(true);
    expect(declined.ran).toEqual([]);
    expect(declined.answer).toBe("All right, I left it as it was.");
    expect(db.customer(7).id).toBe(7);

    const confirmed = await t
      .assistant()
      .at("/customers/7")
      .prompt("Delete this customer", { confirm: true });
    expect(confirmed.ran.map((r) => r.command)).toEqual(["customers_destroy"]);
    expect(confirmed.answer).toMatch(/^Deleted customer 7 and \d+ invoices? of theirs\.$/);
    expect(() => db.customer(7)).toThrow();
  });

  it("says it is the offline demo when it has no rule for the prompt, and asks whose limit off a customer page", async () => {
    const { t } = crm();
    const help = await t.assistant().prompt("Write me a poem");
    expect(help.ran).toEqual([]);
    expect(help.answer).toContain("offline demo model");
    expect(help.answer).toContain("ANTHROPIC_API_KEY");

    const whose = await t.assistant().at("/customers").prompt("Set the credit limit to 5000");
    expect(whose.ran).toEqual([]);
    expect(whose.answer).toMatch(/^Whose credit limit\?/);
  });

  it("tells its answer a word at a time, and stops when aborted", async () => {
    const model = demoModel({ paceMs: 1 });
    const pieces: string[] = [];
    const request = {
      model: "demo",
      system: "",
      tools: [],
      maxTokens: 100,
      messages: [{ role: "user" as const, content: "hello" }],
    };
    const response = await model.step(request, {
      signal: new AbortController().signal,
      onText: (piece) => pieces.push(piece),
    });
    expect(pieces.length).toBeGreaterThan(10);
    expect(pieces.join("")).toBe((response.content[0] as { text: string }).text);

    const stop = new AbortController();
    const stopped = model.step(request, { signal: stop.signal, onText: () => stop.abort() });
    await expect(stopped).rejects.toMatchObject({ kind: "aborted" });
  });
});

describe("the demo model's rules", () => {
  it("reads the window note before the text", () => {
    expect(
      readPrompt('<window>{"route":"/customers/4","selected":{"customers":[4]}}</window>\n\nHi'),
    ).toEqual({ note: { route: "/customers/4", selected: { customers: [4] } }, text: "Hi" });
    expect(readPrompt("Hi")).toEqual({ note: {}, text: "Hi" });
  });

  it("reads amounts as people write them", () => {
    expect(parseAmount("50 000")).toBe(50_000);
    expect(parseAmount("50,000")).toBe(50_000);
    expect(parseAmount("€7500")).toBe(7_500);
    expect(parseAmount("12.5k")).toBe(12_500);
    expect(parseAmount("nothing")).toBeUndefined();
  });

  it("picks the customer named, on the page, or the one selected", () => {
    expect(decide("Set the credit limit of customer 12 to 20k", { route: "/customers/4" })).toEqual(
      { call: "customers_update", input: { id: 12, credit_limit: 20_000 } },
    );
    expect(decide("Delete them", { route: "/customers", selected: { customers: [8] } })).toEqual({
      call: "customers_destroy",
      input: { id: 8 },
    });
    expect(decide("Delete this", { route: "/invoices/31" })).toEqual({
      call: "invoices_destroy",
      input: { id: 31 },
    });
    expect(decide("Delete these", { selected: { customers: [1, 2] } })).toMatchObject({
      say: expect.stringContaining("one at a time"),
    });
    expect(decide("Mark this invoice paid", { route: "/invoices/31" })).toEqual({
      call: "invoices_update",
      input: { id: 31, paid: true },
    });
    expect(
      decide("What is selected?", { route: "/invoices", selected: { invoices: [3, 41] } }),
    ).toEqual({
      say: "You have selected 2 invoices (INV-0003, INV-0041). Claude could work through them; this demo only reads which ones they are.",
    });
    expect(decide("Find Hopper", {})).toEqual({
      call: "customers_index",
      input: { search: "Hopper" },
    });
    expect(decide("Which invoices have no project?", {})).toEqual({
      call: "invoices_index",
      input: { without_project: true },
    });
  });
});
