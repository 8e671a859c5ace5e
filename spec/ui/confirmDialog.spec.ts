// @vitest-environment happy-dom
/**
 * The confirmation dialog says what it will do: the command's sentence first,
 * a destructive accept button worded as such and never focused first, and
 * the arguments the user may change as labelled fields, sent as `edited`.
 */
import type { ConfirmEcho, ConfirmResponse } from "elyra-assistant/ui";
import { type AssistantPanel, createAssistantStore } from "elyra-assistant/ui";
import { afterEach, describe, expect, it } from "vitest";
import { fakeClient, numbered } from "./fixtures.ts";

const mount = (reply?: (echo: ConfirmEcho | undefined) => ConfirmResponse["result"]) => {
  const fake = fakeClient();
  const sent: Array<{ accept: boolean; echo: ConfirmEcho | undefined }> = [];
  const client = {
    ...fake.client,
    confirm: async (_confirmId: string, accept: boolean, echo?: ConfirmEcho) => {
      sent.push({ accept, echo });
      return {
        result: reply?.(echo) ?? {
          _tag: "Answered" as const,
          answer: accept ? "accepted" : "declined",
        },
      } as ConfirmResponse;
    },
  };
  const store = createAssistantStore(client, { open: true, route: () => "/" });
  const panel = document.createElement("elyra-assistant-panel") as AssistantPanel;
  panel.store = store;
  document.body.append(panel);
  const root = panel.shadowRoot!;
  return { fake, sent, root };
};

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

const refund = {
  _tag: "ConfirmRequested",
  turn: 1,
  confirmId: "c1",
  callId: "k1",
  tool: "invoices_store",
  description: "Create an invoice.",
  args: { customer_id: 7, amount: 1200, project: "Apollo" },
  label: "Issue an invoice of €1,200 to Grace Hopper, due in 30 days?",
  action: "Issue invoice",
  editable: [
    { name: "amount", schema: { type: "number", exclusiveMinimum: 0 } },
    { name: "project", schema: { type: "string" } },
    { name: "due_on", schema: { type: "string" } },
  ],
} as const;

const destroy = {
  _tag: "ConfirmRequested",
  turn: 1,
  confirmId: "c2",
  callId: "k2",
  tool: "customers_destroy",
  description: "Delete a customer and all of their invoices.",
  args: { id: 42 },
  label: "Delete Grace Hamilton (customer 42) and her 3 invoices?",
  destructive: true,
  action: "Delete",
} as const;

const started = { _tag: "TurnStarted", turn: 1, text: "Go", route: null, note: null } as const;

afterEach(() => {
  document.body.replaceChildren();
});

describe("the confirmation dialog", () => {
  it("leads with the command's sentence, then the arguments; the model's description is never shown", () => {
    const { fake, root } = mount();
    fake.emit(...numbered([started, destroy]));
    const dialog = root.querySelector<HTMLElement>("[role=dialog]")!;
    const heading = root.getElementById(dialog.getAttribute("aria-labelledby")!)!;
    expect(heading.textContent).toBe("Delete Grace Hamilton (customer 42) and her 3 invoices?");
    expect(
      [...dialog.children].map(
        (c) => c.tagName.toLowerCase() + (c.className ? `.${c.className.split(" ")[0]}` : ""),
      ),
    ).toEqual(["h3.label", "pre.args", "div.buttons"]);
    expect(dialog.textContent).not.toContain(destroy.description);
    expect(dialog.textContent).not.toContain(destroy.tool);
  });

  it("a destructive command's accept button says Delete, is styled so, comes last and is not focused", () => {
    const { fake, root } = mount();
    const textarea = root.querySelector("textarea")!;
    textarea.focus();
    fake.emit(...numbered([started, destroy]));
    const dialog = root.querySelector<HTMLElement>("[role=dialog]")!;
    const buttons = [...dialog.querySelectorAll("button")];
    expect(buttons.map((b) => [b.textContent, b.className])).toEqual([
      ["Decline", "decline"],
      ["Delete", "accept destructive"],
    ]);
    expect(dialog.classList.contains("destructive")).toBe(true);
    expect(root.activeElement).toBe(dialog);
    expect(root.activeElement).not.toBe(buttons[1]);
  });

  it("without a sentence, it is titled with the command's title, never the tool's name or the model's description", () => {
    const { fake, root } = mount();
    const { label: _l, ...plain } = destroy;
    fake.emit(...numbered([started, plain]));
    const dialog = root.querySelector<HTMLElement>("[role=dialog]")!;
    // A log with no title (older hosts): the tool's name read as what it does.
    expect(root.getElementById(dialog.getAttribute("aria-labelledby")!)?.textContent).toBe(
      "Delete a customer?",
    );
    expect(dialog.querySelector(".description")).toBeNull();
    expect(dialog.textContent).not.toContain(destroy.description);
  });

  it("editable arguments are labelled fields; what the user changed is sent as edited", async () => {
    const { fake, root, sent } = mount();
    fake.emit(...numbered([started, refund]));
    const dialog = root.querySelector<HTMLElement>("[role=dialog]")!;
    expect(dialog.querySelector("pre.args")?.textContent).toBe('{\n  "customer_id": 7\n}');
    const amount = dialog.querySelector<HTMLInputElement>("input[name=amount]")!;
    expect(amount.type).toBe("number");
    expect(amount.value).toBe("1200");
    // A log with no labels (older hosts): the key in words, never the key.
    expect(root.querySelector(`label[for="${amount.id}"]`)?.textContent).toBe("Amount");
    expect(dialog.querySelector<HTMLInputElement>("input[name=due_on]")?.value).toBe("");
    amount.value = "950";
    dialog.querySelector<HTMLButtonElement>("button.accept")!.click();
    await settle();
    expect(sent).toEqual([
      {
        accept: true,
        echo: {
          tool: "invoices_store",
          args: refund.args,
          edited: { customer_id: 7, amount: 950, project: "Apollo" },
        },
      },
    ]);
    fake.emit(
      ...numbered(
        [{ _tag: "ConfirmAnswered", turn: 1, confirmId: "c1", answer: "accepted", edited: true }],
        3,
      ),
    );
    expect(root.querySelector("[role=dialog] .answer")?.textContent).toBe(
      "Accepted with your changes.",
    );
  });

  it("unchanged fields send no edit; a decline sends none either", async () => {
    const { fake, root, sent } = mount();
    fake.emit(...numbered([started, refund]));
    root.querySelector<HTMLButtonElement>("[role=dialog] button.accept")!.click();
    await settle();
    expect(sent[0]?.echo).toEqual({ tool: "invoices_store", args: refund.args });
  });

  it("edited arguments the host refuses are told by their field, and the question can be answered again", async () => {
    let first = true;
    const { fake, root, sent } = mount((echo) => {
      if (first && echo?.edited !== undefined) {
        first = false;
        return {
          _tag: "InvalidEdit",
          issues: [{ path: "amount", message: "must be more than 0" }],
        };
      }
      return { _tag: "Answered", answer: "accepted", edited: true };
    });
    fake.emit(...numbered([started, refund]));
    const dialog = root.querySelector<HTMLElement>("[role=dialog]")!;
    const amount = dialog.querySelector<HTMLInputElement>("input[name=amount]")!;
    const accept = dialog.querySelector<HTMLButtonElement>("button.accept")!;
    amount.value = "-5";
    accept.click();
    await settle();
    await settle();
    expect(dialog.querySelector("[role=alert]")?.textContent).toBe("Amount: must be more than 0");
    expect(amount.getAttribute("aria-invalid")).toBe("true");
    expect(accept.disabled).toBe(false);
    expect(root.activeElement).toBe(amount);
    amount.value = "5";
    accept.click();
    await settle();
    expect(sent.map((s) => (s.echo?.edited as { amount?: number } | undefined)?.amount)).toEqual([
      -5, 5,
    ]);
    expect(root.activeElement).toBe(root.querySelector("textarea"));
  });
});
