import { type ConfirmRequest, confirmationBroker } from "elyra-assistant";
import { digestOf } from "elyra-assistant/log";
import { describe, expect, it } from "vitest";

const request = (confirmId: string, scope = "w1"): ConfirmRequest => ({
  confirmId,
  callId: "toolu_1",
  tool: "customers_delete",
  description: "Delete a customer.",
  args: { id: 1 },
  digest: "d".repeat(64),
  scope,
  destructive: true,
  action: "Delete",
  editable: [],
});

describe("confirmationBroker", () => {
  it("publishes each request and lists it while it waits", () => {
    const broker = confirmationBroker();
    const shown: ConfirmRequest[] = [];
    broker.requests$.subscribe((r) => shown.push(r));
    void broker.ask(request("a"), new AbortController().signal);
    expect(shown).toEqual([request("a")]);
    expect(broker.pending()).toEqual([request("a")]);
  });

  it("replies with what was asked and the answer", async () => {
    const broker = confirmationBroker();
    const reply = broker.ask(request("a"), new AbortController().signal);
    expect(await broker.answer({ confirmId: "a", accept: false, scope: "w1" })).toEqual({
      _tag: "Answered",
      answer: "declined",
    });
    expect(await reply).toEqual({
      confirmId: "a",
      tool: "customers_delete",
      digest: "d".repeat(64),
      answer: "declined",
    });
    expect(broker.pending()).toEqual([]);
  });

  it("forgets a request when the call path gives up: a late answer is refused", async () => {
    const broker = confirmationBroker();
    const giveUp = new AbortController();
    const reply = broker.ask(request("a"), giveUp.signal);
    giveUp.abort(new Error("timed out"));
    await expect(reply).rejects.toThrow("timed out");
    expect(broker.pending()).toEqual([]);
    expect(await broker.answer({ confirmId: "a", accept: true, scope: "w1" })).toEqual({
      _tag: "UnknownConfirmation",
    });
  });

  it("refuses to ask with a signal already aborted", async () => {
    const broker = confirmationBroker();
    const giveUp = new AbortController();
    giveUp.abort(new Error("stopped"));
    await expect(broker.ask(request("a"), giveUp.signal)).rejects.toThrow("stopped");
    expect(broker.pending()).toEqual([]);
  });

  it("keeps each window's requests apart", async () => {
    const broker = confirmationBroker();
    void broker.ask(request("a", "w1"), new AbortController().signal);
    void broker.ask(request("b", "w2"), new AbortController().signal);
    expect(await broker.answer({ confirmId: "a", accept: true, scope: "w2" })).toEqual({
      _tag: "OtherWindow",
    });
    expect(await broker.answer({ confirmId: "b", accept: true, scope: "w2" })).toMatchObject({
      _tag: "Answered",
    });
    expect(broker.pending().map((r) => r.confirmId)).toEqual(["a"]);
  });
});

describe("confirmationBroker: edit before approve", () => {
  const editable = (confirmId: string): ConfirmRequest => ({
    ...request(confirmId),
    args: { id: 1, amount: 120 },
    editable: [{ name: "amount", schema: { type: "number" } }],
    checkEdit: (edited) =>
      typeof (edited as { amount?: unknown }).amount === "number" &&
      (edited as { amount: number }).amount > 0
        ? []
        : [{ path: "amount", message: "expected a positive number" }],
  });

  it("an accepted edit replies with a copy of the edited arguments and is logged as edited", async () => {
    const broker = confirmationBroker();
    const settled: boolean[] = [];
    broker.settled$.subscribe((s) => settled.push(s.edited));
    const reply = broker.ask(editable("a"), new AbortController().signal);
    const edited = { id: 1, amount: 90 };
    expect(await broker.answer({ confirmId: "a", accept: true, scope: "w1", edited })).toEqual({
      _tag: "Answered",
      answer: "accepted",
      edited: true,
    });
    edited.amount = 1_000_000;
    expect((await reply).edited).toEqual({ id: 1, amount: 90 });
    expect(settled).toEqual([true]);
  });

  it("edited arguments the schema refuses are told, and the question still waits", async () => {
    const broker = confirmationBroker();
    const reply = broker.ask(editable("a"), new AbortController().signal);
    expect(
      await broker.answer({
        confirmId: "a",
        accept: true,
        scope: "w1",
        edited: { id: 1, amount: -1 },
      }),
    ).toEqual({
      _tag: "InvalidEdit",
      issues: [{ path: "amount", message: "expected a positive number" }],
    });
    expect(broker.pending().map((r) => r.confirmId)).toEqual(["a"]);
    await broker.answer({ confirmId: "a", accept: false, scope: "w1" });
    expect((await reply).answer).toBe("declined");
  });

  it.each([
    ["an argument not editable", { id: 2, amount: 90 }],
    ["a member the arguments lack", { id: 1, amount: 90, admin: true }],
    ["a member left out", { amount: 90 }],
    ["no object", [1, 90]],
  ])("an edit of %s is a mismatch and settles as declined", async (_, edited) => {
    const broker = confirmationBroker();
    const reply = broker.ask(editable("a"), new AbortController().signal);
    expect(await broker.answer({ confirmId: "a", accept: true, scope: "w1", edited })).toEqual({
      _tag: "Mismatch",
    });
    expect(await reply).toMatchObject({ answer: "declined" });
    expect((await reply).edited).toBeUndefined();
  });

  it("an edit of a question with nothing editable is a mismatch", async () => {
    const broker = confirmationBroker();
    const reply = broker.ask(request("a"), new AbortController().signal);
    expect(
      await broker.answer({ confirmId: "a", accept: true, scope: "w1", edited: { id: 2 } }),
    ).toEqual({ _tag: "Mismatch" });
    expect((await reply).answer).toBe("declined");
  });

  it("a decline with edits is a decline", async () => {
    const broker = confirmationBroker();
    const reply = broker.ask(editable("a"), new AbortController().signal);
    const edited = { id: 9, amount: -1 };
    expect(await broker.answer({ confirmId: "a", accept: false, scope: "w1", edited })).toEqual({
      _tag: "Answered",
      answer: "declined",
    });
    expect((await reply).edited).toBeUndefined();
  });

  it("a decline racing an invalid edit that echoes the arguments is kept: the question ends declined", async () => {
    const asked = { ...editable("a"), digest: await digestOf({ id: 1, amount: 120 }) };
    const broker = confirmationBroker();
    const reply = broker.ask(asked, new AbortController().signal);
    const [edit, decline] = await Promise.all([
      broker.answer({
        confirmId: "a",
        accept: true,
        scope: "w1",
        args: asked.args,
        edited: { id: 1, amount: -1 },
      }),
      broker.answer({ confirmId: "a", accept: false, scope: "w1" }),
    ]);
    expect(edit).toMatchObject({ _tag: "InvalidEdit" });
    expect(decline).toEqual({ _tag: "Answered", answer: "declined" });
    expect((await reply).answer).toBe("declined");
    expect(broker.pending()).toEqual([]);
  });

  it("of two answers at once, the first settles and the second finds nothing to answer", async () => {
    const asked = { ...editable("a"), digest: await digestOf({ id: 1, amount: 120 }) };
    const broker = confirmationBroker();
    const reply = broker.ask(asked, new AbortController().signal);
    const answers = await Promise.all([
      broker.answer({ confirmId: "a", accept: true, scope: "w1", args: asked.args }),
      broker.answer({ confirmId: "a", accept: false, scope: "w1", args: asked.args }),
    ]);
    expect(answers).toEqual([
      { _tag: "Answered", answer: "accepted" },
      { _tag: "UnknownConfirmation" },
    ]);
    expect((await reply).answer).toBe("accepted");
  });
});
