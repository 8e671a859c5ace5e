/**
 * A confirmation that says what it will do (`confirmLabel`, destructive,
 * the accept word) and edit before approve (`editable`): the call path's side.
 */
import { Schema } from "effect";
import {
  type CallContext,
  type CommandDefinitionError,
  createApp,
  createCallPath,
  defineCommand,
  formatOutcome,
  memoryRateLimitStore,
} from "elyra-assistant";
import {
  answeringConfirmer,
  countingIds,
  editingConfirmer,
  silentConfirmer,
  simulatedClock,
} from "elyra-assistant/testing";
import { describe, expect, it, vi } from "vitest";

interface User {
  readonly name: string;
  abilities: string[];
}

const setup = (
  label?: (args: { id: number; amount: number }, ctx: { user: unknown }) => unknown,
  options: { rateLimit?: { calls: number; perSeconds: number } } = {},
) => {
  const ran: Array<{ id: number; amount: number }> = [];
  const refund = defineCommand({
    name: "invoices_refund",
    description: "Refund part of an invoice.",
    can: "invoices.refund",
    args: { id: Schema.Number, amount: Schema.Number.pipe(Schema.positive()) },
    editable: ["amount"],
    ...(label === undefined ? {} : { confirmLabel: label as never }),
    ...(options.rateLimit === undefined ? {} : { rateLimit: options.rateLimit }),
    run: (args) => {
      ran.push(args);
      return { refunded: args.amount };
    },
  });
  const destroy = defineCommand({
    name: "customers_destroy",
    description: "Delete a customer.",
    can: "customers.destroy",
    args: { id: Schema.Number },
    run: () => ({ ok: true }),
  });
  const user: User = { name: "Ada", abilities: ["invoices.refund", "customers.destroy"] };
  const app = createApp({
    commands: [refund, destroy],
    userAbilities: (u) => (u as User).abilities,
    assistant: { allow: ["*"], confirm: ["invoices.refund", "customers.destroy"] },
  });
  const clock = simulatedClock(1_000);
  const path = createCallPath(app, {
    clock,
    ids: countingIds("call"),
    confirmIds: countingIds("c"),
    rateLimits: memoryRateLimitStore(),
  });
  const ctx = (more: Partial<CallContext> = {}): CallContext => ({
    user,
    origin: { kind: "assistant" },
    scope: "w1",
    ...more,
  });
  return { ran, user, clock, path, ctx };
};

const refundCall = { tool: "invoices_refund", input: { id: 7, amount: 120 } };

describe("confirmLabel", () => {
  it("leads the question with the command's sentence from the decoded arguments and the user", async () => {
    const { path, ctx } = setup(
      (args, { user }) => `Refund ${args.amount} on invoice ${args.id} for ${(user as User).name}?`,
    );
    const confirmer = answeringConfirmer("declined");
    await path.call(refundCall, ctx({ confirmer }));
    expect(confirmer.asked[0]?.label).toBe("Refund 120 on invoice 7 for Ada?");
    expect(confirmer.asked[0]?.description).toBe("Refund part of an invoice.");
  });

  it("may be async", async () => {
    const { path, ctx } = setup(async (args) => `Refund ${args.amount}?`);
    const confirmer = answeringConfirmer("declined");
    await path.call(refundCall, ctx({ confirmer }));
    expect(confirmer.asked[0]?.label).toBe("Refund 120?");
  });

  it.each([
    [
      "throws",
      () => {
        throw new Error("db down");
      },
    ],
    ["rejects", () => Promise.reject(new Error("db down"))],
    ["gives no string", () => 42],
    ["gives an empty one", () => "   "],
    [
      "gives a thenable whose then throws",
      () => ({
        // biome-ignore lint/suspicious/noThenProperty: a hostile thenable
        get then() {
          throw new Error("no");
        },
      }),
    ],
  ])("falls back to the default when it %s, and the question is still asked", async (_, label) => {
    const { path, ctx, ran } = setup(label);
    const confirmer = answeringConfirmer("accepted");
    const outcome = await path.call(refundCall, ctx({ confirmer }));
    expect(confirmer.asked).toHaveLength(1);
    expect(confirmer.asked[0]?.label).toBeUndefined();
    expect(outcome._tag).toBe("Succeeded");
    expect(ran).toEqual([{ id: 7, amount: 120 }]);
  });

  it("falls back after 2 s on the clock when it never answers", async () => {
    let labelling = false;
    const { path, ctx, clock } = setup(() => {
      labelling = true;
      return new Promise(() => undefined);
    });
    const confirmer = silentConfirmer();
    void path.call(refundCall, ctx({ confirmer }));
    // The label is asked for once the arguments' digest is made (WebCrypto, on its own time).
    await vi.waitFor(() => expect(labelling).toBe(true));
    clock.increment(1_999);
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(confirmer.asked).toHaveLength(0);
    clock.increment(1);
    await vi.waitFor(() => expect(confirmer.asked).toHaveLength(1));
    expect(confirmer.asked[0]?.tool).toBe("invoices_refund");
    expect(confirmer.asked[0]?.label).toBeUndefined();
  });

  it("is one line of at most 300 characters", async () => {
    const { path, ctx } = setup(() => `Refund\n\n${"x".repeat(400)}`);
    const confirmer = answeringConfirmer("declined");
    await path.call(refundCall, ctx({ confirmer }));
    const label = confirmer.asked[0]?.label ?? "";
    expect(label.startsWith("Refund x")).toBe(true);
    expect(label).toHaveLength(300);
    expect(label.endsWith("…")).toBe(true);
  });

  it("is not run for a call refused before the question", async () => {
    let labelled = 0;
    const { path, ctx } = setup(() => {
      labelled += 1;
      return "Refund?";
    });
    const confirmer = answeringConfirmer("accepted");
    const outcome = await path.call(
      { tool: "invoices_refund", input: { id: 7, amount: -1 } },
      ctx({ confirmer }),
    );
    expect(outcome._tag).toBe("InvalidArguments");
    expect(labelled).toBe(0);
    expect(confirmer.asked).toHaveLength(0);
  });
});

describe("the accept button", () => {
  it("is destructive and says Delete for a destroy ability, Confirm otherwise", async () => {
    const { path, ctx } = setup();
    const confirmer = answeringConfirmer("declined");
    await path.call({ tool: "customers_destroy", input: { id: 1 } }, ctx({ confirmer }));
    await path.call(refundCall, ctx({ confirmer }));
    expect(confirmer.asked.map((r) => [r.destructive, r.action])).toEqual([
      [true, "Delete"],
      [false, "Confirm"],
    ]);
    expect(confirmer.asked[1]?.editable).toEqual([
      {
        name: "amount",
        schema: expect.objectContaining({ type: "number" }),
        label: "Amount",
        kind: "number",
      },
    ]);
    expect(confirmer.asked[0]?.editable).toEqual([]);
  });

  it("takes what the command declares", () => {
    const command = defineCommand({
      name: "mail_send",
      description: "Send a mail.",
      can: "mail.send",
      destructive: true,
      confirmAction: "Send",
      args: { to: Schema.String },
      run: () => null,
    });
    expect(command.confirmation).toMatchObject({ destructive: true, action: "Send" });
  });

  it.each([
    [{ editable: ["nope"] }, /editable names "nope", which is not one of its arguments/],
    [{ editable: ["to", "to"] }, /editable names "to" twice/],
    [{ confirmAction: "" }, /confirmAction must be a word or two/],
    [{ confirmLabel: "Send?" }, /confirmLabel must be a function/],
    [{ destructive: "yes" }, /destructive must be true or false/],
  ])("a wrong declaration %j is refused when defined", (extra, message) => {
    let error: CommandDefinitionError | undefined;
    try {
      defineCommand({
        name: "mail_send",
        description: "Send a mail.",
        can: "mail.send",
        args: { to: Schema.String },
        run: () => null,
        ...(extra as object),
      });
    } catch (e) {
      error = e as CommandDefinitionError;
    }
    expect(error?._tag).toBe("CommandDefinitionError");
    expect(error?.reason).toMatch(message);
  });
});

describe("edit before approve", () => {
  it("runs exactly the edited arguments, once, and tells the model what ran", async () => {
    const { path, ctx, ran } = setup();
    const confirmer = editingConfirmer((r) => ({ ...(r.args as object), amount: 90 }));
    const outcome = await path.call(refundCall, ctx({ confirmer }));
    expect(ran).toEqual([{ id: 7, amount: 90 }]);
    expect(outcome).toMatchObject({ _tag: "Succeeded", edited: { id: 7, amount: 90 } });
    expect(formatOutcome(outcome)).toEqual({
      isError: false,
      text:
        'The user changed the arguments before approving; invoices_refund ran with {"id":7,"amount":90}, not with the arguments you sent. Its result:\n' +
        '{"refunded":90}',
    });
  });

  it("an edit that changes an argument not editable runs nothing", async () => {
    const { path, ctx, ran } = setup();
    const confirmer = editingConfirmer((r) => ({ ...(r.args as object), id: 8, amount: 90 }));
    const outcome = await path.call(refundCall, ctx({ confirmer }));
    expect(outcome).toMatchObject({ _tag: "NotConfirmed", answer: "declined" });
    expect(ran).toEqual([]);
  });

  it("arguments the schema refuses are not run, and the model is told both", async () => {
    const { path, ctx, ran } = setup();
    const confirmer = editingConfirmer((r) => ({ ...(r.args as object), amount: -5 }));
    const outcome = await path.call(refundCall, ctx({ confirmer }));
    expect(outcome._tag).toBe("InvalidArguments");
    expect(ran).toEqual([]);
    expect(formatOutcome(outcome).text).toMatch(
      /^The user changed the arguments before approving, to \{"id":7,"amount":-5\}; invoices_refund did not run with them:\namount: /,
    );
  });

  it("a user who lost the ability while asked is denied, edited or not, and nothing runs", async () => {
    const { path, ctx, ran, user } = setup();
    const edits = editingConfirmer((r) => {
      user.abilities = [];
      return { ...(r.args as object), amount: 90 };
    });
    expect((await path.call(refundCall, ctx({ confirmer: edits })))._tag).toBe("Denied");
    user.abilities = ["invoices.refund"];
    const plain = answeringConfirmer(() => {
      user.abilities = [];
      return "accepted";
    });
    expect((await path.call(refundCall, ctx({ confirmer: plain })))._tag).toBe("Denied");
    expect(ran).toEqual([]);
  });

  it("an edited call takes from the rate limit once: a 1-call limit runs its approved edit", async () => {
    const { path, ctx, ran } = setup(undefined, { rateLimit: { calls: 1, perSeconds: 60 } });
    const confirmer = editingConfirmer((r) => ({ ...(r.args as object), amount: 90 }));
    const outcome = await path.call(refundCall, ctx({ confirmer }));
    expect(outcome._tag).toBe("Succeeded");
    expect(ran).toEqual([{ id: 7, amount: 90 }]);
    // The one call the limit allows was that one: the next is limited, and runs nothing.
    expect((await path.call({ ...refundCall, callId: "c2" }, ctx({ confirmer })))._tag).toBe(
      "RateLimited",
    );
    expect(ran).toHaveLength(1);
  });

  it("an edit read through a getter runs exactly the copy that was checked (issue 29, item 9)", async () => {
    const { path, ctx, ran } = setup();
    // A hand-written Confirmer's edit whose amount reads 90, except once: 5 000.
    let reads = 0;
    const tricky = { id: 7 } as { id: number; amount: number };
    Object.defineProperty(tricky, "amount", {
      enumerable: true,
      get: () => {
        reads += 1;
        return reads === 3 ? 5_000 : 90;
      },
    });
    const confirmer = editingConfirmer(() => tricky);
    const outcome = await path.call(refundCall, ctx({ confirmer }));
    expect(ran).not.toContainEqual({ id: 7, amount: 5_000 });
    expect(outcome._tag).toBe("Succeeded");
    expect(ran).toEqual([{ id: 7, amount: 90 }]);
  });

  it("arguments edited to what was asked are an ordinary acceptance", async () => {
    const { path, ctx, ran } = setup();
    const confirmer = editingConfirmer((r) => ({ amount: 120, id: 7, ...(r.args as object) }));
    const outcome = await path.call(refundCall, ctx({ confirmer }));
    expect(outcome._tag).toBe("Succeeded");
    expect(outcome.edited).toBeUndefined();
    expect(ran).toEqual([{ id: 7, amount: 120 }]);
  });

  it("edited arguments JSON can't hold are declined: the call is told so, it does not throw", async () => {
    const { path, ctx, ran } = setup();
    const confirmer = editingConfirmer((r) => ({ ...(r.args as object), amount: 90n }));
    const outcome = await path.call(refundCall, ctx({ confirmer }));
    expect(outcome).toMatchObject({ _tag: "NotConfirmed", answer: "declined" });
    expect(ran).toEqual([]);
  });

  it("an edit of a command with nothing editable runs nothing", async () => {
    const { path, ctx } = setup();
    let destroyed = 0;
    const confirmer = editingConfirmer(() => {
      destroyed += 1;
      return { id: 2 };
    });
    const outcome = await path.call(
      { tool: "customers_destroy", input: { id: 1 } },
      ctx({ confirmer }),
    );
    expect(destroyed).toBe(1);
    expect(outcome).toMatchObject({ _tag: "NotConfirmed", answer: "declined" });
  });
});

describe("a schema check that throws", () => {
  it("refuses the arguments, naming the throw, and runs nothing (the turn goes on)", async () => {
    let ran = 0;
    const Day = Schema.String.pipe(
      Schema.filter((s) => new Date(`${s}T00:00:00Z`).toISOString().startsWith(s) || "no date"),
    );
    const command = defineCommand({
      name: "invoices_due",
      description: "Set a due date.",
      can: "invoices.update",
      args: { due_on: Day },
      run: () => {
        ran += 1;
        return null;
      },
    });
    const app = createApp({
      commands: [command],
      userAbilities: () => ["invoices.update"],
      assistant: { allow: ["*"] },
    });
    const path = createCallPath(app);
    const outcome = await path.call(
      { tool: "invoices_due", input: { due_on: "2026-13-45" } },
      { user: {}, origin: { kind: "assistant" }, scope: "w1" },
    );
    expect(outcome._tag).toBe("InvalidArguments");
    expect(formatOutcome(outcome).text).toBe(
      "arguments: a check of the arguments threw (RangeError: Invalid time value), so they were not accepted",
    );
    expect(ran).toBe(0);
    expect(
      (
        await path.call(
          { tool: "invoices_due", input: { due_on: "2026-12-01" } },
          { user: {}, origin: { kind: "assistant" }, scope: "w1" },
        )
      )._tag,
    ).toBe("Succeeded");
  });
});
