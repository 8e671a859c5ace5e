/**
 * Streaming through the host: text told a word at a time on a simulated clock,
 * gathered into deltas, tool steps after the words said before them, and Stop
 * keeping what was said.
 */
import { createApp, createHost } from "elyra-assistant";
import { fakeModel, simulatedClock } from "elyra-assistant/testing";
import { describe, expect, it, vi } from "vitest";
import { spyCommands, type TestUser } from "../fixtures/spyCommands.ts";

const ada: TestUser = { name: "Ada", abilities: ["*"] };
const app = () =>
  createApp({
    commands: spyCommands().commands,
    userAbilities: (u) => (u as TestUser).abilities,
    assistant: { allow: ["*"] },
  });

const settle = async () => {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
};

describe("streaming through the host", () => {
  it("pieces are gathered into deltas every 50 ms; each step's text is its own; the answer heals", async () => {
    const clock = simulatedClock(0);
    const model = fakeModel([], { paceMs: 10, clock })
      .toolCall("invoices_index", {}, { text: "Let me check the invoices for you." })
      .says("Invoice one is overdue, and nothing else is.");
    const w = createHost(app(), { model, clock }).window("w", { user: ada });
    const events: Array<{ _tag: string; step?: number; text?: string; at: number }> = [];
    w.events$().subscribe((e) => events.push(e as never));
    const end = w.prompt("overdue?");
    for (let t = 0; t < 400; t += 5) {
      clock.increment(5);
      await settle();
    }
    expect((await end)._tag).toBe("Answered");
    await w.settled();
    const deltas = events.filter((e) => e._tag === "TextDelta");
    expect(
      deltas
        .filter((d) => d.step === 1)
        .map((d) => d.text)
        .join(""),
    ).toBe("Let me check the invoices for you.");
    expect(
      deltas
        .filter((d) => d.step === 2)
        .map((d) => d.text)
        .join(""),
    ).toBe("Invoice one is overdue, and nothing else is.");
    // 7 and 8 words at 10 ms: gathered, not one delta a word.
    expect(deltas.length).toBeLessThan(8);
    const tags = events.map((e) => e._tag);
    expect(tags.indexOf("ToolStarted")).toBeGreaterThan(
      tags.lastIndexOf("TextDelta", tags.indexOf("ToolStarted")),
    );
    const stepOneLast = events.findLastIndex((e) => e._tag === "TextDelta" && e.step === 1);
    expect(stepOneLast).toBeLessThan(tags.indexOf("ToolStarted"));
    expect(
      w
        .panel()
        .items.filter((i) => i.kind === "answer")
        .map((i) => (i as { text: string }).text),
    ).toEqual([
      "Let me check the invoices for you.",
      "Invoice one is overdue, and nothing else is.",
    ]);
  });

  it("Stop mid-answer keeps what was said, in the panel and in the next request's history", async () => {
    const clock = simulatedClock(0);
    const model = fakeModel([], { paceMs: 10, clock })
      .says("First, the overdue invoices are one and three, and then")
      .says("Going on: the rest are paid.");
    const w = createHost(app(), { model, clock }).window("w", { user: ada });
    const end = w.prompt("summarise");
    for (let t = 0; t < 45; t += 5) {
      clock.increment(5);
      await settle();
    }
    w.stop();
    const stopped = await end;
    expect(stopped).toMatchObject({ _tag: "Stopped", partial: "First, the overdue invoices " });
    await w.settled();
    // A word told after Stop is not shown.
    clock.increment(100);
    await settle();
    expect(w.panel().items).toEqual([
      { kind: "user", turn: 1, text: "summarise" },
      { kind: "answer", turn: 1, step: 1, text: "First, the overdue invoices ", streaming: false },
      { kind: "stopped", turn: 1 },
    ]);

    const next = w.prompt("go on");
    await vi.waitFor(() => expect(model.requests).toHaveLength(2));
    expect(model.requests[1]?.messages).toEqual([
      { role: "user", content: "summarise" },
      { role: "assistant", content: "First, the overdue invoices \n\n(stopped by the user)" },
      { role: "user", content: "go on" },
    ]);
    for (let t = 0; t < 200; t += 10) {
      clock.increment(10);
      await settle();
    }
    expect((await next)._tag).toBe("Answered");
  });
});
