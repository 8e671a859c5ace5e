import { type ConfirmRequest, confirmationBroker } from "elyra-assistant";
import { describe, expect, it } from "vitest";

const request = (confirmId: string, scope = "w1"): ConfirmRequest => ({
  confirmId,
  callId: "toolu_1",
  tool: "customers_delete",
  description: "Delete a customer.",
  args: { id: 1 },
  digest: "d".repeat(64),
  scope,
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
