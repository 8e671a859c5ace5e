/**
 * Issue 33, item 5: a reload, or a second tab on the same window, opened
 * while a turn streams, re-attaches from the log and goes on with the
 * stream: the text streamed so far replayed, the rest live, nothing missed
 * and nothing twice. (`npm run bench -- reattach` times it on SQLite.)
 */

import type { Model } from "elyra-assistant";
import type { LogEvent } from "elyra-assistant/log";
import type { FakeModel } from "elyra-assistant/testing";
import { describe, expect, it, vi } from "vitest";
import { readSse, setup } from "./fixture.ts";

/** A model that streams three pieces, waits to be let go, then streams three more. */
const gatedModel = () => {
  let letGo: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    letGo = resolve;
  });
  const pieces = ["Ada ", "has ", "three ", "invoices ", "overdue, ", "€9 300."];
  const model: Model = {
    step: async (_request, { onText }) => {
      for (const piece of pieces.slice(0, 3)) onText?.(piece);
      await gate;
      for (const piece of pieces.slice(3)) onText?.(piece);
      return {
        content: [{ type: "text", text: pieces.join("") }],
        stopReason: "end_turn",
        usage: { inputTokens: 10, outputTokens: 6 },
      };
    },
  };
  return { model, letGo, text: pieces.join("") };
};

const textOf = (events: ReadonlyArray<LogEvent>) =>
  events.flatMap((e) => (e._tag === "TextDelta" ? [e.text] : [])).join("");

describe("re-attaching to a streaming turn", () => {
  it("a reload and a second tab mid-stream: the streamed text replayed, the rest live, the whole answer once", async () => {
    const gated = gatedModel();
    const t = setup(gated.model as unknown as FakeModel);
    const first = new AbortController();
    const a = readSse(await t.call("events", { signal: first.signal }));
    await t.call("prompt", { body: "What is overdue?" });
    await vi.waitFor(() => expect(textOf(a.events())).toBe("Ada has three "));
    // The page reloads: its stream goes, a new one opens with no resume point.
    first.abort();
    await a.done;
    const reloaded = new AbortController();
    const b = readSse(await t.call("events", { signal: reloaded.signal }));
    // And a second tab of the same window, resuming from where the first had got to.
    const tab = new AbortController();
    const last = a.events().at(-1)?.seq as number;
    const c = readSse(
      await t.call("events", { headers: { "last-event-id": String(last) }, signal: tab.signal }),
    );
    await vi.waitFor(() => expect(textOf(b.events())).toBe("Ada has three "));
    gated.letGo();
    await vi.waitFor(() => expect(b.events().at(-1)?._tag).toBe("Answered"));
    await vi.waitFor(() => expect(c.events().at(-1)?._tag).toBe("Answered"));
    expect(textOf(b.events())).toBe(gated.text);
    expect(textOf([...a.events(), ...c.events()])).toBe(gated.text);
    // Nothing twice: each stream's seqs run on by one.
    for (const events of [b.events(), [...a.events(), ...c.events()]])
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    reloaded.abort();
    tab.abort();
    await Promise.all([b.done, c.done]);
  });
});
