/**
 * An answered confirmation the user changed, as the panel folds it: for any
 * arguments asked and any arguments approved (JSON objects),
 * - the item shows the approved arguments, and keeps the asked ones as `args`;
 * - its changes are exactly the arguments whose values differ, each with
 *   what it was and what it is now, the editable ones first, in their order;
 * - the asked arguments with the changes applied are the approved ones;
 * - `fold` and `apply`, event by event, agree.
 */
import { canonicalJson, type LogEvent, panelItems } from "elyra-assistant/log";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runs } from "./runs.ts";

const key = fc.constantFrom("amount", "project", "due_on", "customer_id", "note", "paid");
const value = fc.jsonValue({ maxDepth: 2 });
const args = fc.dictionary(key, value, { maxKeys: 6 });

const log = (asked: unknown, approved: unknown, editable: ReadonlyArray<string>): LogEvent[] => [
  { _tag: "TurnStarted", seq: 1, at: 0, turn: 1, text: "Bill her", route: null, note: null },
  {
    _tag: "ConfirmRequested",
    seq: 2,
    at: 1,
    turn: 1,
    confirmId: "c1",
    callId: "k1",
    tool: "invoices_store",
    description: "Create an invoice.",
    args: asked,
    editable: editable.map((name) => ({ name, schema: {} })),
  },
  {
    _tag: "ConfirmAnswered",
    seq: 3,
    at: 2,
    turn: 1,
    confirmId: "c1",
    answer: "accepted",
    edited: true,
    args: approved,
  },
];

const json = (v: unknown) => canonicalJson(v);

describe("an edited answer, folded", () => {
  it("shows the approved arguments, and its changes are exactly what differs from the asked ones", () => {
    fc.assert(
      fc.property(
        args,
        args,
        fc.uniqueArray(key, { maxLength: 4 }),
        (asked, approved, editable) => {
          const events = log(asked, approved, editable);
          const state = panelItems.fold(events);
          const item = state.items.find((i) => i.kind === "confirm");
          if (item?.kind !== "confirm") throw new Error("no confirmation item");
          expect(json(item.editedArgs)).toBe(json(approved));
          expect(json(item.args)).toBe(json(asked));

          const changes = item.changes ?? [];
          const names = changes.map((c) => c.name);
          expect(new Set(names).size).toBe(names.length);
          const all = new Set([...Object.keys(asked), ...Object.keys(approved)]);
          for (const name of all) {
            const differs =
              Object.hasOwn(asked, name) !== Object.hasOwn(approved, name) ||
              json(asked[name]) !== json(approved[name]);
            expect(names.includes(name)).toBe(differs);
          }
          for (const change of changes) {
            expect(Object.hasOwn(change, "was")).toBe(Object.hasOwn(asked, change.name));
            expect(Object.hasOwn(change, "now")).toBe(Object.hasOwn(approved, change.name));
            if (Object.hasOwn(change, "was"))
              expect(json(change.was)).toBe(json(asked[change.name]));
            if (Object.hasOwn(change, "now"))
              expect(json(change.now)).toBe(json(approved[change.name]));
          }
          // The editable ones first, in the dialog's order.
          const firsts = names.filter((n) => editable.includes(n));
          expect(names.slice(0, firsts.length)).toEqual(firsts);
          expect(firsts).toEqual(editable.filter((n) => firsts.includes(n)));

          const rebuilt: Record<string, unknown> = { ...asked };
          for (const change of changes) {
            if (Object.hasOwn(change, "now")) rebuilt[change.name] = change.now;
            else delete rebuilt[change.name];
          }
          expect(json(rebuilt)).toBe(json(approved));

          const applied = events.reduce(panelItems.apply, panelItems.initial);
          expect(applied).toEqual(state);
        },
      ),
      { numRuns: runs(1000) },
    );
  });
});
