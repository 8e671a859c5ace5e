/**
 * E2: random sequences of prompts (with tool calls, confirmations, API errors
 * and crashes at random points), stops and resets, run against a real host.
 * After every step: the actor's state equals the fold of its log, no
 * acknowledged event is lost, and each command ran exactly as often as the
 * model's calls allowed — never again because of a rebuild.
 */
import { createApp } from "elyra-assistant";
import { type FakeStep, fakeModel, memoryStore, simulatedClock } from "elyra-assistant/testing";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { createHost } from "../../src/actors/host/host.ts";
import type { AssistantWindow } from "../../src/actors/window/window.ts";
import type { EventStore } from "../../src/runtime/log/eventStore.ts";
import type { LogEvent } from "../../src/runtime/log/events.ts";
import { status, usage } from "../../src/runtime/log/projections.ts";
import { spyCommands, type TestUser } from "../fixtures/spyCommands.ts";
import { runs, timeoutFor } from "./runs.ts";

type Tool = "invoices_index" | "customers_update" | "customers_delete";
interface ToolStep {
  readonly tool: Tool;
  /** For customers_delete: what the user answers. */
  readonly accept: boolean;
}
type Ending = "says" | "fails" | "crashes" | "stopped";

interface Model {
  turns: number;
  tokens: number;
  runs: Record<Tool, number>;
}

interface Real {
  readonly window: AssistantWindow;
  readonly store: EventStore;
  readonly model: ReturnType<typeof fakeModel>;
  readonly runs: Map<string, number>;
  readonly acknowledged: LogEvent[];
  readonly answers: boolean[];
}

const STEP_TOKENS = 15; // the fake model's default usage: 10 in, 5 out

const inputOf = (tool: Tool) =>
  tool === "customers_update"
    ? { id: 1, email: "a@b.co" }
    : tool === "customers_delete"
      ? { id: 1 }
      : {};

/** Every step's checks: machine = fold(log), nothing acknowledged lost, runs as the model allows. */
const invariants = async (m: Model, r: Real) => {
  await r.window.settled();
  const stored = await r.store.read("conversation/w");
  expect(stored.map((e) => e.seq)).toEqual(stored.map((_, i) => i + 1));
  expect(stored).toEqual(r.acknowledged);
  expect(r.window.context()).toEqual({
    turn: status.fold(stored).turn,
    tokensUsed: usage.fold(stored).total,
  });
  expect(status.fold(stored).running).toBe(false);
  expect(r.window.context()).toEqual({ turn: m.turns, tokensUsed: m.tokens });
  for (const tool of ["invoices_index", "customers_update", "customers_delete"] as const) {
    expect(r.runs.get(tool) ?? 0, tool).toBe(m.runs[tool]);
  }
};

class PromptCommand implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly steps: ReadonlyArray<ToolStep>,
    readonly ending: Ending,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const script: FakeStep[] = this.steps.map((s) => ({
      toolCalls: [{ name: s.tool, input: inputOf(s.tool) }],
    }));
    script.push(
      this.ending === "says"
        ? { text: "Done." }
        : this.ending === "fails"
          ? { error: { status: 529, type: "overloaded_error", message: "Overloaded" } }
          : this.ending === "crashes"
            ? { crash: "boom" }
            : { hang: true },
    );
    for (const step of script) r.model.respond(step);
    r.answers.push(...this.steps.filter((s) => s.tool === "customers_delete").map((s) => s.accept));
    const end = r.window.prompt(`turn ${m.turns + 1}`);
    if (this.ending === "stopped") {
      await waitFor(() => r.model.remaining() === 0);
      r.window.stop();
    }
    const ended = await end;
    expect(ended._tag).toBe(
      { says: "Answered", fails: "Failed", crashes: "Failed", stopped: "Stopped" }[this.ending],
    );
    if (this.ending === "crashes") expect(ended).toMatchObject({ error: "interrupted" });
    m.turns += 1;
    // Tokens: every step the model answered; a failed or crashed step answered nothing.
    m.tokens += STEP_TOKENS * (this.steps.length + (this.ending === "says" ? 1 : 0));
    for (const step of this.steps)
      if (step.tool !== "customers_delete" || step.accept) m.runs[step.tool] += 1;
    await invariants(m, r);
  }
  toString = () =>
    `prompt(${this.steps.map((s) => `${s.tool}${s.tool === "customers_delete" ? (s.accept ? "+" : "-") : ""}`).join(",")} → ${this.ending})`;
}

class ResetCommand implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(m: Model, r: Real) {
    await r.window.reset();
    m.tokens = 0;
    await invariants(m, r);
  }
  toString = () => "reset";
}

const waitFor = (done: () => boolean) =>
  vi.waitFor(() => expect(done()).toBe(true), { timeout: 5_000, interval: 1 });

const toolStep = fc.record({
  tool: fc.constantFrom<Tool>("invoices_index", "customers_update", "customers_delete"),
  accept: fc.boolean(),
});

const commands = fc.commands(
  [
    fc
      .tuple(
        fc.array(toolStep, { maxLength: 3 }),
        fc.constantFrom<Ending>("says", "says", "fails", "crashes", "stopped"),
      )
      .map(([steps, ending]) => new PromptCommand(steps, ending)),
    fc.constant(new ResetCommand()),
  ],
  { maxCommands: 8 },
);

describe("E2: crash and rebuild at random points lose nothing and run nothing twice", () => {
  it("the rebuilt state is the fold of the log (model-based, fc.commands)", {
    timeout: timeoutFor(),
  }, async () => {
    await fc.assert(
      fc.asyncProperty(commands, async (cmds) => {
        const spies = spyCommands();
        const app = createApp({
          commands: spies.commands,
          userAbilities: (u) => (u as TestUser).abilities,
          assistant: { allow: ["*"], confirm: ["customers.delete"] },
        });
        const store = memoryStore();
        const model = fakeModel();
        const host = createHost(app, {
          model,
          store,
          clock: simulatedClock(0),
          maxRestarts: 1_000,
        });
        const window = host.window("w", { user: { name: "Ada", abilities: ["*"] } as TestUser });
        const acknowledged: LogEvent[] = [];
        const answers: boolean[] = [];
        window.events$().subscribe((event) => {
          acknowledged.push(event);
          if (event._tag === "ConfirmRequested")
            void window.confirm(event.confirmId, answers.shift() ?? false);
        });
        const real: Real = { window, store, model, runs: spies.runs, acknowledged, answers };
        await window.ready;
        await fc.asyncModelRun(
          () => ({
            model: {
              turns: 0,
              tokens: 0,
              runs: { invoices_index: 0, customers_update: 0, customers_delete: 0 },
            },
            real,
          }),
          cmds,
        );
        await host.close();
      }),
      { numRuns: runs(1000) },
    );
  });
});
