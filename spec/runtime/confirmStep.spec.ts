/**
 * The call path's confirmation step (issue 30, item 5): the arguments'
 * digest is computed once per call (and an edit's once), and what is read
 * again after the wait is still compared with what was asked.
 */
import { Schema } from "effect";
import {
  type CallContext,
  type Confirmer,
  createApp,
  createCallPath,
  defineCommand,
} from "elyra-assistant";
import { answeringConfirmer, editingConfirmer } from "elyra-assistant/testing";
import { afterEach, describe, expect, it, vi } from "vitest";

const setup = () => {
  const ran: unknown[] = [];
  const refund = defineCommand({
    name: "invoices_refund",
    description: "Refund part of an invoice.",
    can: "invoices.refund",
    args: { id: Schema.Number, amount: Schema.Number.pipe(Schema.positive()) },
    editable: ["amount"],
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
  const ctx = (confirmer: Confirmer): CallContext => ({
    user: {},
    origin: { kind: "assistant" },
    scope: "w1",
    confirmer,
  });
  return { ran, path: createCallPath(app), ctx };
};

const hashes = () => vi.spyOn(globalThis.crypto.subtle, "digest");

afterEach(() => vi.restoreAllMocks());

describe("the confirmation step", () => {
  it("hashes the arguments once for an accepted call", async () => {
    const { path, ctx, ran } = setup();
    const digest = hashes();
    const outcome = await path.call(
      { tool: "invoices_refund", input: { id: 7, amount: 120 } },
      ctx(answeringConfirmer("accepted")),
    );
    expect(outcome._tag).toBe("Succeeded");
    expect(ran).toEqual([{ id: 7, amount: 120 }]);
    expect(digest).toHaveBeenCalledTimes(1);
  });

  it("hashes the arguments once and the edit once for an accepted edit", async () => {
    const { path, ctx, ran } = setup();
    const digest = hashes();
    const confirmer = editingConfirmer((r) => ({ ...(r.args as object), amount: 90 }));
    const outcome = await path.call(
      { tool: "invoices_refund", input: { id: 7, amount: 120 } },
      ctx(confirmer),
    );
    expect(outcome).toMatchObject({ _tag: "Succeeded", edited: { id: 7, amount: 90 } });
    expect(ran).toEqual([{ id: 7, amount: 90 }]);
    expect(digest).toHaveBeenCalledTimes(2);
  });

  it("declines arguments that changed while the user was asked, and runs nothing", async () => {
    const { path, ctx, ran } = setup();
    const input = { id: 7, amount: 120 };
    const confirmer = answeringConfirmer(() => {
      input.amount = 5_000;
      return "accepted";
    });
    const outcome = await path.call({ tool: "invoices_refund", input }, ctx(confirmer));
    expect(outcome).toMatchObject({ _tag: "NotConfirmed", answer: "declined" });
    expect(ran).toEqual([]);
  });
});
