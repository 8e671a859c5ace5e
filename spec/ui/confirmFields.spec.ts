// @vitest-environment happy-dom
/**
 * Issue 28, item 8: the dialog speaks to people. Its heading is the
 * command's title, under it the command's summary (never the model's
 * description); editable fields are labelled by the host's labels, a date is
 * a date picker, an amount shows its currency, and a refused edit names the
 * field's label, not the argument's key.
 */
import { type AssistantPanel, createAssistantStore } from "elyra-assistant/ui";
import { afterEach, describe, expect, it } from "vitest";
import { fakeClient, numbered } from "./fixtures.ts";

const started = { _tag: "TurnStarted", turn: 1, text: "Go", route: null, note: null } as const;

const issue = {
  _tag: "ConfirmRequested",
  turn: 1,
  confirmId: "c1",
  callId: "k1",
  tool: "invoices_store",
  description: "Create an invoice. The user is asked to confirm first.",
  title: "Issue invoice",
  summary: "Issues a new invoice, dated today and unpaid.",
  args: { customer_id: 7, amount: 1200, due_on: "2026-07-01" },
  action: "Issue invoice",
  editable: [
    { name: "amount", schema: { type: "number" }, label: "Amount", kind: "money", currency: "EUR" },
    { name: "project", schema: { type: "string" }, label: "Project", kind: "text" },
    { name: "due_on", schema: { type: "string" }, label: "Due date", kind: "date" },
  ],
} as const;

const mount = (issues: ReadonlyArray<{ path: string; message: string }> = []) => {
  const fake = fakeClient();
  const client = {
    ...fake.client,
    confirm: async () => ({ result: { _tag: "InvalidEdit" as const, issues } }),
  };
  const store = createAssistantStore(client, { open: true, route: () => "/" });
  const panel = document.createElement("elyra-assistant-panel") as AssistantPanel;
  panel.store = store;
  document.body.append(panel);
  fake.emit(...numbered([started, issue]));
  const root = panel.shadowRoot!;
  const dialog = root.querySelector<HTMLElement>("[role=dialog]")!;
  const labelOf = (input: HTMLElement) =>
    root.querySelector(`label[for="${input.id}"]`)?.textContent;
  return { root, dialog, labelOf };
};

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

afterEach(() => {
  document.body.replaceChildren();
});

describe("the dialog in people's words", () => {
  it("titled with the command's title, the summary under it, never the model's description", () => {
    const { root, dialog } = mount();
    expect(root.getElementById(dialog.getAttribute("aria-labelledby")!)?.textContent).toBe(
      "Issue invoice?",
    );
    const about = root.getElementById(dialog.getAttribute("aria-describedby")!);
    expect(about?.textContent).toBe(issue.summary);
    expect(dialog.textContent).not.toContain("The user is asked");
    expect(dialog.textContent).not.toContain("invoices_store");
  });

  it("fields are labelled by the host's labels; a date is a date picker; an amount shows its currency", () => {
    const { dialog, labelOf } = mount();
    const due = dialog.querySelector<HTMLInputElement>("input[name=due_on]")!;
    expect(due.type).toBe("date");
    expect(due.value).toBe("2026-07-01");
    expect(labelOf(due)).toBe("Due date");
    const amount = dialog.querySelector<HTMLInputElement>("input[name=amount]")!;
    expect(amount.type).toBe("number");
    expect(amount.step).toBe("0.01");
    expect(labelOf(amount)).toBe("Amount");
    expect(amount.getAttribute("aria-label")).toBe("Amount (EUR)");
    expect(dialog.querySelector(".unit")?.textContent).toBe("€");
    expect(labelOf(dialog.querySelector<HTMLInputElement>("input[name=project]")!)).toBe("Project");
    const labels = [...dialog.querySelectorAll("label")].map((l) => l.textContent);
    for (const key of ["due_on", "amount", "project"]) expect(labels).not.toContain(key);
  });

  it("a refused edit names the field's label, not the argument's key", async () => {
    const { dialog } = mount([
      { path: "due_on", message: "must be a date as YYYY-MM-DD" },
      { path: "amount", message: "must be more than 0" },
    ]);
    dialog.querySelector<HTMLInputElement>("input[name=amount]")!.value = "-1";
    dialog.querySelector<HTMLButtonElement>("button.accept")!.click();
    await settle();
    await settle();
    const said = [...dialog.querySelectorAll("[role=alert] li")].map((li) => li.textContent);
    expect(said).toEqual(["Due date: must be a date as YYYY-MM-DD", "Amount: must be more than 0"]);
  });
});
