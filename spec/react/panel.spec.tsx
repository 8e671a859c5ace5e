// @vitest-environment happy-dom
/**
 * The React panel of docs/ui.md ("Your own panel in React", quoted from
 * ./examples/panel.tsx) over the fake client: a prompt, an answer streaming
 * in, a confirmation answered as asked and with edited arguments (answered,
 * it shows what changed), an edit the host finds invalid, stop, reset, a
 * refused request.
 */
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import type { AssistantClient, ConfirmResult } from "elyra-assistant/react";
import { afterEach, describe, expect, it } from "vitest";
import { answeredTurn, askedToDelete, fakeClient, numbered } from "../ui/fixtures.ts";
import { App } from "./examples/panel.tsx";

afterEach(cleanup);

/** The fake client, its events sent inside `act` so React has rendered them when it returns. */
const driven = (options: Parameters<typeof fakeClient>[0] = {}) => {
  const fake = fakeClient(options);
  const emit = (...events: Parameters<typeof fake.emit>) => act(() => fake.emit(...events));
  return { ...fake, emit };
};

/** Clicks inside `act`, waiting for the request it sends and what it renders. */
const click = (name: string) =>
  act(async () => {
    fireEvent.click(screen.getByRole("button", { name }));
  });

const ask = async (text: string) => {
  const box = screen.getByLabelText("Ask the assistant");
  fireEvent.change(box, { target: { value: text } });
  await act(async () => {
    fireEvent.submit(box.closest("form") as HTMLFormElement);
  });
};

const invoiceQuestion = numbered(
  [
    { _tag: "TurnStarted", turn: 1, text: "Bill Acme", route: null, note: null },
    {
      _tag: "ConfirmRequested",
      turn: 1,
      confirmId: "c7",
      callId: "k7",
      tool: "invoices_store",
      description: "Create an invoice for a customer.",
      args: { customer_id: 3, amount: 1200 },
      label: "Issue Acme an invoice of €1,200.00",
      action: "Issue invoice",
      editable: [
        { name: "amount", schema: { type: "number" } },
        { name: "due_on", schema: { type: "string" } },
      ],
    },
  ],
  1,
);

describe("the React panel", () => {
  it("sends a prompt and shows the answer as it streams in", async () => {
    const fake = driven();
    render(<App client={fake.client} />);
    await ask("Who owes us?");
    expect(fake.calls).toContainEqual({ method: "prompt", args: ["Who owes us?", "/"] });
    expect(screen.getByLabelText<HTMLInputElement>("Ask the assistant").value).toBe("");

    const [started, step, first, second, answered] = numbered(
      answeredTurn(1, "Who owes us?", ["Acme owes ", "€1,200."]),
    );
    fake.emit(started!, step!, first!);
    expect(screen.getByText("Who owes us?")).toBeTruthy();
    const answer = screen.getByText("Acme owes");
    expect(answer.getAttribute("aria-busy")).toBe("true");
    expect(screen.getByRole("button", { name: "Stop" })).toBeTruthy();
    fake.emit(second!);
    expect(answer.textContent).toBe("Acme owes €1,200.");
    fake.emit(answered!);
    expect(answer.getAttribute("aria-busy")).toBe("false");
    expect(screen.queryByRole("button", { name: "Stop" })).toBeNull();
    expect(screen.getByRole("button", { name: "Send" })).toBeTruthy();
  });

  it("shows a confirmation and answers it with what it showed", async () => {
    const fake = driven();
    render(<App client={fake.client} />);
    fake.emit(
      ...numbered([
        { _tag: "TurnStarted", turn: 1, text: "Delete 42", route: null, note: null },
        askedToDelete(42),
      ]),
    );
    const dialog = screen.getByRole("dialog", { name: "Confirm customers_destroy" });
    expect(dialog.textContent).toContain("customers_destroy: Delete a customer.");
    expect(dialog.textContent).toContain("id: 42");
    expect(screen.queryByRole("textbox", { name: "id" })).toBeNull();

    await click("Accept");
    expect(fake.calls.at(-1)).toEqual({
      method: "confirm",
      args: ["c42", true, { tool: "customers_destroy", args: { id: 42 } }],
    });
    fake.emit(
      ...numbered([{ _tag: "ConfirmAnswered", turn: 1, confirmId: "c42", answer: "accepted" }], 3),
    );
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(screen.getByText("customers_destroy: accepted")).toBeTruthy();
  });

  it("declines without sending edits", async () => {
    const fake = driven();
    render(<App client={fake.client} />);
    fake.emit(...invoiceQuestion);
    fireEvent.change(screen.getByRole("textbox", { name: "amount" }), {
      target: { value: "900" },
    });
    await click("Decline");
    expect(fake.calls.at(-1)).toEqual({
      method: "confirm",
      args: ["c7", false, { tool: "invoices_store", args: { customer_id: 3, amount: 1200 } }],
    });
  });

  it("accepts with the arguments as the user edited them", async () => {
    const fake = driven();
    render(<App client={fake.client} />);
    fake.emit(...invoiceQuestion);
    const dialog = screen.getByRole("dialog", { name: "Issue Acme an invoice of €1,200.00" });
    expect(dialog.textContent).toContain("customer_id: 3");
    const amount = screen.getByRole<HTMLInputElement>("textbox", { name: "amount" });
    expect(amount.value).toBe("1200");
    fireEvent.change(amount, { target: { value: "950" } });
    // due_on was not given and stays empty: it is left out, not sent as "".
    expect(screen.getByRole<HTMLInputElement>("textbox", { name: "due_on" }).value).toBe("");

    await click("Issue invoice");
    expect(fake.calls.at(-1)).toEqual({
      method: "confirm",
      args: [
        "c7",
        true,
        {
          tool: "invoices_store",
          args: { customer_id: 3, amount: 1200 },
          edited: { customer_id: 3, amount: 950 },
        },
      ],
    });
  });

  it("an answered question the user changed shows each change beside what it was, not the asked amount", () => {
    const fake = driven();
    render(<App client={fake.client} />);
    fake.emit(
      ...invoiceQuestion,
      ...numbered(
        [
          {
            _tag: "ConfirmAnswered",
            turn: 1,
            confirmId: "c7",
            answer: "accepted",
            edited: true,
            args: { customer_id: 3, amount: 950, due_on: "2025-07-01" },
          },
        ],
        3,
      ),
    );
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(screen.getByText("Claude asked: Issue Acme an invoice of €1,200.00")).toBeTruthy();
    const changes = screen.getByRole("list", { name: "Your changes" });
    expect([...changes.querySelectorAll("li")].map((li) => li.textContent)).toEqual([
      "amount: 950 (was 1200)",
      "due on: 2025-07-01 (was not set)",
    ]);
  });

  it("shows the issues of an edit the host could not decode, the question still waiting", async () => {
    const fake = driven();
    const invalid: ConfirmResult = {
      _tag: "InvalidEdit",
      issues: [{ path: "amount", message: "Expected a non-negative number, actual -5" }],
    };
    const client: AssistantClient = {
      ...fake.client,
      confirm: async (...args) => {
        fake.calls.push({ method: "confirm", args });
        return { result: invalid };
      },
    };
    render(<App client={client} />);
    fake.emit(...invoiceQuestion);
    fireEvent.change(screen.getByRole("textbox", { name: "amount" }), {
      target: { value: "-5" },
    });
    await click("Issue invoice");
    expect(screen.getByRole("alert").textContent).toBe(
      "amount: Expected a non-negative number, actual -5",
    );
    expect(screen.getByRole("dialog")).toBeTruthy();
  });

  it("stops a running turn and starts a new conversation", async () => {
    const fake = driven();
    render(<App client={fake.client} />);
    const [started, step, first] = numbered(answeredTurn(1, "Summarise", ["Acme is "]));
    fake.emit(started!, step!, first!);
    await click("Stop");
    expect(fake.calls.at(-1)).toEqual({ method: "stop", args: [] });
    fake.emit(...numbered([{ _tag: "Stopped", turn: 1, partial: "Acme is " }], 4));
    expect(screen.getByText("Stopped.")).toBeTruthy();
    expect(screen.getByRole("button", { name: "Send" })).toBeTruthy();

    await click("New conversation");
    expect(fake.calls.at(-1)).toEqual({ method: "reset", args: [] });
    fake.emit(...numbered([{ _tag: "Reset", turn: 1 }], 5));
    expect(screen.queryByText("Summarise")).toBeNull();
    expect(screen.queryByText("Stopped.")).toBeNull();
  });

  it("says when the host refused a request", async () => {
    const fake = driven({ refuse: new Set(["prompt"]) });
    render(<App client={fake.client} />);
    await ask("Hello");
    expect(screen.getByRole("alert").textContent).toBe("prompt refused");
  });
});
