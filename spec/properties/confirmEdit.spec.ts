/**
 * Edit before approve, through the call path and the window's broker: for
 * any arguments the model sent, any answers the dialog sends (edits in and
 * out of bounds, arguments the schema refuses, declines, repeats, answers at
 * once) and a user who may lose the ability meanwhile:
 * - at most one run;
 * - answers are weighed in the order sent, so a decline sent at once with an
 *   invalid edit is never lost;
 * - what runs decodes with the command's schema, for a user who has the ability;
 * - an edited confirmation never runs the original arguments: it runs exactly
 *   the edited ones, or nothing;
 * - what the dialog was told agrees with what ran;
 * - what the log is given (the broker's settled answer) and the panel's fold
 *   of it show the arguments that ran: the edited ones, never the asked ones.
 */
import { Schema } from "effect";
import {
  type AnswerResult,
  type CallOutcome,
  type ConfirmationSettled,
  confirmationBroker,
  createApp,
  createCallPath,
  defineCommand,
} from "elyra-assistant";
import { canonicalJson, type LogEvent, panelItems } from "elyra-assistant/log";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { runs, timeoutFor } from "./runs.ts";

const Args = { id: Schema.Int, amount: Schema.Number.pipe(Schema.positive()), note: Schema.String };
const decodes = Schema.is(Schema.Struct(Args));

const setup = () => {
  const ran: unknown[] = [];
  const user = { abilities: ["invoices.refund"] };
  const refund = defineCommand({
    name: "invoices_refund",
    description: "Refund part of an invoice.",
    can: "invoices.refund",
    args: Args,
    editable: ["amount", "note"],
    run: (args) => {
      ran.push(args);
      return { ok: true };
    },
  });
  const app = createApp({
    commands: [refund],
    userAbilities: (u) => (u as typeof user).abilities,
    assistant: { allow: ["*"], confirm: ["invoices.refund"] },
  });
  const broker = confirmationBroker();
  return { ran, user, broker, path: createCallPath(app) };
};

const amount = fc.oneof(
  fc.double({ min: 0.01, max: 1e6, noNaN: true }),
  fc.constantFrom(0, -1, Number.NaN),
  fc.string({ maxLength: 3 }),
);

/** One answer the dialog sends: an edit of the asked arguments, or none. */
const answer = fc.record({
  accept: fc.boolean(),
  edit: fc.option(
    fc.record(
      {
        amount,
        note: fc.string({ maxLength: 5 }),
        id: fc.integer({ min: 1, max: 3 }),
        extra: fc.constantFrom("x", 1),
        proto: fc.constant(true),
      },
      { requiredKeys: [] },
    ),
    { nil: undefined },
  ),
  /** Sent at once with the previous answer rather than after it was answered. */
  together: fc.boolean(),
  /** Sent with the arguments asked, as the dialog echoes them. */
  echo: fc.boolean(),
});

const editOf = (asked: Record<string, unknown>, edit: Record<string, unknown>) => {
  const edited: Record<string, unknown> = { ...asked };
  for (const [key, value] of Object.entries(edit)) {
    if (key === "proto")
      Object.defineProperty(edited, "__proto__", { value: { id: 99 }, enumerable: true });
    else edited[key] = value;
  }
  return JSON.parse(JSON.stringify(edited)) as Record<string, unknown>;
};

/** The panel's confirmation item after the question and its answer, logged as the window logs them. */
const foldedAnswer = (args: unknown, settled: ConfirmationSettled) => {
  const events = [
    {
      _tag: "ConfirmRequested",
      seq: 1,
      at: 0,
      turn: 1,
      confirmId: "c1",
      callId: "k1",
      tool: "invoices_refund",
      description: "",
      args,
      editable: settled.request.editable,
    },
    {
      _tag: "ConfirmAnswered",
      seq: 2,
      at: 0,
      turn: 1,
      confirmId: "c1",
      answer: settled.answer,
      ...(settled.edited ? { edited: true, args: settled.args } : {}),
    },
  ] as LogEvent[];
  const item = panelItems.fold(events).items[0];
  return item?.kind === "confirm" ? item : undefined;
};

describe("an edited confirmation", () => {
  it("never runs the original arguments, nor arguments the schema or the user's abilities refuse, and runs at most once", {
    timeout: timeoutFor(120_000),
  }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          id: fc.integer({ min: 1, max: 3 }),
          amount: fc.double({ min: 0.01, max: 1e6, noNaN: true }),
          note: fc.string({ maxLength: 5 }),
        }),
        fc.array(answer, { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        async (asked, answers, losesAbility) => {
          const { ran, user, broker, path } = setup();
          const ctx = { user, origin: { kind: "assistant" as const }, scope: "w1" };
          const call = path.call(
            { tool: "invoices_refund", input: asked },
            { ...ctx, confirmer: broker },
          );
          await vi.waitFor(() => expect(broker.pending()).toHaveLength(1), {
            timeout: 5_000,
            interval: 1,
          });
          const [request] = broker.pending();
          const logged: ConfirmationSettled[] = [];
          broker.settled$.subscribe((s) => logged.push(s));
          if (losesAbility) user.abilities = [];
          const results: AnswerResult[] = [];
          const sent: Array<Record<string, unknown> | undefined> = [];
          let batch: Promise<AnswerResult>[] = [];
          for (const a of answers) {
            const edited = a.edit === undefined ? undefined : editOf(asked, a.edit);
            sent.push(edited);
            if (!a.together && batch.length > 0) results.push(...(await Promise.all(batch)));
            if (!a.together) batch = [];
            batch.push(
              broker.answer({
                confirmId: request?.confirmId ?? "",
                accept: a.accept,
                scope: "w1",
                ...(edited === undefined ? {} : { edited }),
                ...(a.echo ? { args: asked } : {}),
              }),
            );
          }
          results.push(...(await Promise.all(batch)));
          // An answer that settles nothing leaves the question waiting: the test ends it.
          if (broker.pending().length > 0)
            await broker.answer({
              confirmId: request?.confirmId ?? "",
              accept: false,
              scope: "w1",
            });
          const outcome: CallOutcome = await call;

          expect(ran.length).toBeLessThanOrEqual(1);
          // Answers are weighed in the order sent, even at once: the first that isn't an
          // invalid edit settles the question, and every one after it finds nothing to answer.
          const first = results.findIndex((r) => r._tag !== "InvalidEdit");
          if (first >= 0) {
            expect(["Answered", "Mismatch"]).toContain(results[first]?._tag);
            for (const later of results.slice(first + 1))
              expect(later._tag).toBe("UnknownConfirmation");
          }
          const settled = results.filter((r) => r._tag === "Answered" || r._tag === "Mismatch");
          expect(settled.length).toBeLessThanOrEqual(1);
          if (ran.length === 1) {
            expect(decodes(ran[0])).toBe(true);
            expect(losesAbility).toBe(false);
          }
          const acceptedEdit = settled[0]?._tag === "Answered" && settled[0].edited === true;
          if (acceptedEdit) {
            // Runs exactly the edited arguments or nothing: never the original ones.
            const index = results.indexOf(settled[0] as AnswerResult);
            const edited = sent[index];
            if (ran.length === 1) {
              expect(canonicalJson(ran[0])).toBe(canonicalJson(edited));
              expect(canonicalJson(ran[0])).not.toBe(canonicalJson(asked));
            }
            expect(outcome.edited).toEqual(edited);
            // The log is given the arguments approved, and the panel shows them with each change.
            expect(logged).toHaveLength(1);
            expect(canonicalJson(logged[0]?.args)).toBe(canonicalJson(edited));
            const item = foldedAnswer(request?.args, logged[0] as ConfirmationSettled);
            expect(canonicalJson(item?.editedArgs)).toBe(canonicalJson(edited));
            if (ran.length === 1)
              expect(canonicalJson(item?.editedArgs)).toBe(canonicalJson(ran[0]));
            for (const change of item?.changes ?? [])
              expect(canonicalJson(change.now)).toBe(canonicalJson(edited?.[change.name]));
          } else if (ran.length === 1) {
            expect(canonicalJson(ran[0])).toBe(canonicalJson(asked));
            expect(outcome.edited).toBeUndefined();
          }
          if (!acceptedEdit)
            expect(logged.every((s) => s.args === undefined && !s.edited)).toBe(true);
          const accepted = settled[0]?._tag === "Answered" && settled[0].answer === "accepted";
          if (!accepted) expect(ran).toEqual([]);
          if (accepted && !losesAbility) expect(outcome._tag).toBe("Succeeded");
        },
      ),
      { numRuns: runs(1000) },
    );
  });
});
