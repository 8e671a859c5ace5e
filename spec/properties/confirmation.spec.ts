/**
 * C1: a confirmation is bound to its id, tool and a digest of the arguments'
 * canonical JSON; change any of them and nothing runs.
 * C2: an id answered twice, or twice at once, runs the command exactly once;
 * an unknown id is refused.
 * JSON values are drawn as they arrive over the wire: no -0, which canonical
 * JSON cannot tell from 0 (see ./wire.ts).
 */
import {
  type CallOutcome,
  type Confirmer,
  confirmationBroker,
  createApp,
  createCallPath,
} from "elyra-assistant";
import { canonicalJson, digestOf } from "elyra-assistant/log";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { spyCommands } from "../fixtures/spyCommands.ts";
import { runs, timeoutFor } from "./runs.ts";
import { wireJsonValue } from "./wire.ts";

const NUM_RUNS = 1000;

/** The same JSON value with its object keys in another order, at every depth. */
const reordered = (value: unknown, seed: number): unknown => {
  if (Array.isArray(value)) return value.map((v, i) => reordered(v, seed + i));
  if (value === null || typeof value !== "object") return value;
  const keys = Object.keys(value);
  const rotated =
    keys.length === 0
      ? keys
      : [...keys.slice(seed % keys.length), ...keys.slice(0, seed % keys.length)].reverse();
  const out: Record<string, unknown> = {};
  for (const key of rotated)
    Object.defineProperty(out, key, {
      value: reordered((value as Record<string, unknown>)[key], seed + 1),
      enumerable: true,
    });
  return out;
};

const setup = () => {
  const spies = spyCommands();
  const app = createApp({
    commands: spies.commands,
    userAbilities: () => ["*"],
    assistant: { allow: ["*"], confirm: ["customers.*", "invoices.create"] },
  });
  return { spies, path: createCallPath(app) };
};

const ctx = (confirmer: Confirmer, scope = "w1") => ({
  user: {},
  origin: { kind: "assistant" as const },
  scope,
  confirmer,
});

/** Waits until the broker shows `n` pending requests (WebCrypto digests are asynchronous). */
const pendingCount = (broker: ReturnType<typeof confirmationBroker>, n: number) =>
  vi.waitFor(() => expect(broker.pending()).toHaveLength(n), { timeout: 5_000, interval: 1 });

describe("C1: the digest is over canonical JSON", () => {
  it("key order does not change the canonical text or the digest", {
    timeout: timeoutFor(),
  }, async () => {
    await fc.assert(
      fc.asyncProperty(wireJsonValue(), fc.nat(), async (value, seed) => {
        const other = reordered(value, seed);
        expect(canonicalJson(other)).toBe(canonicalJson(value));
        expect(await digestOf(other)).toBe(await digestOf(value));
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it("different values give different canonical text", { timeout: timeoutFor() }, () => {
    fc.assert(
      fc.property(wireJsonValue(), wireJsonValue(), (a, b) => {
        // Equal canonical text only for values equal up to key order.
        if (canonicalJson(a) === canonicalJson(b)) expect(a).toEqual(b);
        else expect(a).not.toEqual(b);
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });
});

describe("C1: changing the id, tool or arguments between request and answer runs nothing", () => {
  const change = fc.oneof(
    fc.record({ confirmId: fc.string({ minLength: 1 }) }),
    fc.record({
      tool: fc.constantFrom("customers_update", "customers_show", "invoices_create", "x"),
    }),
    fc.record({ digest: fc.hexaString({ minLength: 64, maxLength: 64 }) }),
  );

  it("a reply naming anything else is not a confirmation", { timeout: timeoutFor() }, async () => {
    await fc.assert(
      fc.asyncProperty(change, fc.integer(), async (changed, id) => {
        const { spies, path } = setup();
        const confirmer: Confirmer = {
          ask: async (r) => ({
            confirmId: r.confirmId,
            tool: r.tool,
            digest: r.digest,
            answer: "accepted",
            ...changed,
          }),
        };
        const outcome = await path.call(
          { tool: "customers_delete", input: { id } },
          ctx(confirmer),
        );
        const c: { confirmId?: string; tool?: string; digest?: string } = changed;
        const same =
          c.confirmId === undefined &&
          (c.tool ?? "customers_delete") === "customers_delete" &&
          c.digest === undefined;
        expect(outcome._tag).toBe(same ? "Succeeded" : "NotConfirmed");
        expect(spies.total()).toBe(same ? 1 : 0);
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it("through the broker: an answer with other arguments or another tool is refused and settles as declined", {
    timeout: timeoutFor(),
  }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer(),
        fc.oneof(
          fc.record({ args: fc.record({ id: fc.integer() }) }),
          fc.record({ args: wireJsonValue() }),
          fc.record({ tool: fc.string() }),
        ),
        async (id, tamper) => {
          const { spies, path } = setup();
          const broker = confirmationBroker();
          const pending = path.call({ tool: "customers_delete", input: { id } }, ctx(broker));
          await pendingCount(broker, 1);
          const request = broker.pending()[0]!;
          const matches =
            ("args" in tamper && canonicalJson(tamper.args) === canonicalJson({ id })) ||
            ("tool" in tamper && tamper.tool === "customers_delete");
          const result = await broker.answer({
            confirmId: request.confirmId,
            accept: true,
            scope: "w1",
            ...tamper,
          });
          expect(result._tag).toBe(matches ? "Answered" : "Mismatch");
          const outcome: CallOutcome = await pending;
          expect(outcome._tag).toBe(matches ? "Succeeded" : "NotConfirmed");
          expect(spies.total()).toBe(matches ? 1 : 0);
        },
      ),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it("an answer echoing the same arguments in another key order is the same confirmation", async () => {
    const { spies, path } = setup();
    const broker = confirmationBroker();
    const input = { customerId: 4, amount: 10, address: { street: "Main", zip: "12345" } };
    const pending = path.call({ tool: "invoices_create", input }, ctx(broker));
    await pendingCount(broker, 1);
    const { confirmId } = broker.pending()[0]!;
    const args = { address: { zip: "12345", street: "Main" }, amount: 10, customerId: 4 };
    expect(
      await broker.answer({ confirmId, accept: true, scope: "w1", tool: "invoices_create", args }),
    ).toEqual({
      _tag: "Answered",
      answer: "accepted",
    });
    expect((await pending)._tag).toBe("Succeeded");
    expect(spies.runs.get("invoices_create")).toBe(1);
  });
});

describe("C2: each id is redeemable once", () => {
  it("answered twice in a row: runs once, the second answer is refused", {
    timeout: timeoutFor(),
  }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.boolean(), async (first, second) => {
        const { spies, path } = setup();
        const broker = confirmationBroker();
        const pending = path.call({ tool: "customers_delete", input: { id: 1 } }, ctx(broker));
        await pendingCount(broker, 1);
        const { confirmId } = broker.pending()[0]!;
        expect((await broker.answer({ confirmId, accept: first, scope: "w1" }))._tag).toBe(
          "Answered",
        );
        expect((await broker.answer({ confirmId, accept: second, scope: "w1" }))._tag).toBe(
          "UnknownConfirmation",
        );
        await pending;
        expect(spies.total()).toBe(first ? 1 : 0);
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it("answered twice at once, in any interleaving (fc.scheduler): exactly one answer counts", {
    timeout: timeoutFor(),
  }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(fc.record({ accept: fc.boolean(), withArgs: fc.boolean() }), {
          minLength: 2,
          maxLength: 4,
        }),
        async (s, answers) => {
          const { spies, path } = setup();
          const broker = confirmationBroker();
          const pending = path.call({ tool: "customers_delete", input: { id: 1 } }, ctx(broker));
          await pendingCount(broker, 1);
          const { confirmId } = broker.pending()[0]!;
          const results = answers.map((a, i) =>
            s.schedule(Promise.resolve(), `answer ${i}`).then(() =>
              broker.answer({
                confirmId,
                accept: a.accept,
                scope: "w1",
                ...(a.withArgs ? { args: { id: 1 } } : {}),
              }),
            ),
          );
          await s.waitAll();
          const settled = await Promise.all(results);
          const answered = settled.filter((r) => r._tag === "Answered");
          expect(answered).toHaveLength(1);
          expect(settled.filter((r) => r._tag === "UnknownConfirmation")).toHaveLength(
            answers.length - 1,
          );
          await pending;
          const accepted = answered[0]?._tag === "Answered" && answered[0].answer === "accepted";
          expect(spies.total()).toBe(accepted ? 1 : 0);
        },
      ),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it("an unknown id is refused and runs nothing", { timeout: timeoutFor() }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.string(), async (guess) => {
        const { spies, path } = setup();
        const broker = confirmationBroker();
        const pending = path.call({ tool: "customers_delete", input: { id: 1 } }, ctx(broker));
        await pendingCount(broker, 1);
        const { confirmId } = broker.pending()[0]!;
        fc.pre(guess !== confirmId);
        expect((await broker.answer({ confirmId: guess, accept: true, scope: "w1" }))._tag).toBe(
          "UnknownConfirmation",
        );
        expect(spies.total()).toBe(0);
        await broker.answer({ confirmId, accept: false, scope: "w1" });
        await pending;
        expect(spies.total()).toBe(0);
      }),
      { numRuns: runs(NUM_RUNS) },
    );
  });

  it("another window cannot answer, and its attempt does not use the id up", async () => {
    const { spies, path } = setup();
    const broker = confirmationBroker();
    const pending = path.call({ tool: "customers_delete", input: { id: 1 } }, ctx(broker, "w1"));
    await pendingCount(broker, 1);
    const { confirmId } = broker.pending()[0]!;
    expect((await broker.answer({ confirmId, accept: true, scope: "w2" }))._tag).toBe(
      "OtherWindow",
    );
    expect(spies.total()).toBe(0);
    expect((await broker.answer({ confirmId, accept: true, scope: "w1" }))._tag).toBe("Answered");
    expect((await pending)._tag).toBe("Succeeded");
    expect(spies.total()).toBe(1);
  });

  it("ids are 128 random bits, never repeated", async () => {
    const { path } = setup();
    const broker = confirmationBroker();
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const pending = path.call({ tool: "customers_delete", input: { id: i } }, ctx(broker));
      await pendingCount(broker, 1);
      const { confirmId } = broker.pending()[0]!;
      expect(confirmId).toMatch(/^[A-Za-z0-9_-]{22}$/);
      seen.add(confirmId);
      await broker.answer({ confirmId, accept: false, scope: "w1" });
      await pending;
    }
    expect(seen.size).toBe(200);
  });
});
