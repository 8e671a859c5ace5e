/**
 * Edit before approve over `POST /confirm`, through a real host: the log
 * keeps the question's sentence, button and editable fields, and an edited
 * answer with the arguments approved; edited arguments the schema refuses are told
 * while the question still waits; what ran is what the user approved, and
 * the model is told so.
 */
import { Schema } from "effect";
import { createApp, createHost, defineCommand } from "elyra-assistant";
import { assistantHttp } from "elyra-assistant/http";
import type { LogEvent } from "elyra-assistant/log";
import { fakeModel, memoryStore } from "elyra-assistant/testing";
import { describe, expect, it, vi } from "vitest";

const TOKEN = "host-token-0123456789";

const setup = () => {
  const ran: unknown[] = [];
  const refund = defineCommand({
    name: "invoices_refund",
    description: "Refund part of an invoice.",
    can: "invoices.refund",
    args: { id: Schema.Int, amount: Schema.Number.pipe(Schema.positive()) },
    editable: ["amount"],
    confirmAction: "Refund",
    confirmLabel: ({ id, amount }) => `Refund €${amount} on invoice ${id}?`,
    run: (args) => {
      ran.push(args);
      return { refunded: args.amount };
    },
  });
  const app = createApp({
    commands: [refund],
    userAbilities: () => ["invoices.refund"],
    assistant: { allow: ["*"], confirm: ["invoices.refund"] },
  });
  const model = fakeModel().toolCall("invoices_refund", { id: 7, amount: 120 }).says("Done.");
  const host = createHost(app, { model, store: memoryStore() });
  const handle = assistantHttp(host, { token: TOKEN, authenticate: () => ({ name: "Ada" }) });
  const post = async (route: string, body: unknown) => {
    const response = await handle(
      new Request(`http://app.test/__assistant/${route}`, {
        method: "POST",
        headers: { "x-elyra-token": TOKEN, "x-elyra-client": "w1" },
        body: JSON.stringify(body),
      }),
    );
    return { status: response.status, body: (await response.json().catch(() => null)) as unknown };
  };
  const window = host.window("w1", { user: { name: "Ada" } });
  const events: LogEvent[] = [];
  window.events$().subscribe((event) => events.push(event));
  return { ran, model, post, events, window };
};

const asked = async (events: LogEvent[]) => {
  await vi.waitFor(() => expect(events.some((e) => e._tag === "ConfirmRequested")).toBe(true));
  return events.find((e) => e._tag === "ConfirmRequested") as Extract<
    LogEvent,
    { _tag: "ConfirmRequested" }
  >;
};

describe("POST /confirm with edited arguments", () => {
  it("runs what the user approved, logs it as edited with the arguments approved, and tells the model", async () => {
    const { ran, model, post, events } = setup();
    expect((await post("prompt", { text: "Refund invoice 7" })).status).toBe(202);
    const question = await asked(events);
    expect(question).toMatchObject({
      label: "Refund €120 on invoice 7?",
      action: "Refund",
      editable: [{ name: "amount", schema: { type: "number", exclusiveMinimum: 0 } }],
    });
    expect(question.destructive).toBeUndefined();

    const refused = await post("confirm", {
      confirmId: question.confirmId,
      accept: true,
      tool: "invoices_refund",
      args: { id: 7, amount: 120 },
      edited: { id: 7, amount: -3 },
    });
    expect(refused).toEqual({
      status: 200,
      body: {
        result: {
          _tag: "InvalidEdit",
          issues: [{ path: "amount", message: "expected a positive number, got -3" }],
        },
      },
    });
    expect(ran).toEqual([]);

    const taken = await post("confirm", {
      confirmId: question.confirmId,
      accept: true,
      tool: "invoices_refund",
      args: { id: 7, amount: 120 },
      edited: { id: 7, amount: 90 },
    });
    expect(taken.body).toEqual({ result: { _tag: "Answered", answer: "accepted", edited: true } });
    await vi.waitFor(() => expect(events.some((e) => e._tag === "Answered")).toBe(true));
    expect(ran).toEqual([{ id: 7, amount: 90 }]);
    const answered = events.find((e) => e._tag === "ConfirmAnswered");
    expect(answered).toMatchObject({
      answer: "accepted",
      edited: true,
      args: { id: 7, amount: 90 },
    });
    expect(Object.keys(answered ?? {}).sort()).toEqual(
      ["_tag", "answer", "args", "at", "confirmId", "edited", "seq", "turn"].sort(),
    );
    // What the log holds is what ran.
    expect(ran[0]).toEqual((answered as { args?: unknown }).args);
    const toolResult = JSON.stringify(model.requests.at(-1)?.messages.at(-1));
    expect(toolResult).toContain(
      'The user changed the arguments before approving; invoices_refund ran with {\\"amount\\":90,\\"id\\":7}, not with the arguments you sent.',
    );

    const again = await post("confirm", {
      confirmId: question.confirmId,
      accept: true,
      edited: { id: 7, amount: 80 },
    });
    expect(again.body).toEqual({ result: { _tag: "UnknownConfirmation" } });
    expect(ran).toHaveLength(1);
  });

  it("an edit of an argument not editable settles the question as declined; nothing runs", async () => {
    const { ran, post, events } = setup();
    await post("prompt", { text: "Refund invoice 7" });
    const question = await asked(events);
    const mismatch = await post("confirm", {
      confirmId: question.confirmId,
      accept: true,
      edited: { id: 8, amount: 120 },
    });
    expect(mismatch.body).toEqual({ result: { _tag: "Mismatch" } });
    await vi.waitFor(() => expect(events.some((e) => e._tag === "Answered")).toBe(true));
    expect(events.find((e) => e._tag === "ConfirmAnswered")).toMatchObject({ answer: "declined" });
    expect(ran).toEqual([]);
  });
});
