/**
 * Streaming faults as a window sees them, through the host, the real SDK and
 * the stand-in Messages API: a cut stream runs no tool of the cut step (S3),
 * an error after HTTP 200 fails the turn (S1), 529s are retried and then
 * shown as overloaded (S4), and Stop over HTTP keeps what was said.
 */
import { createApp, createHost } from "elyra-assistant";
import { anthropic } from "elyra-assistant/anthropic";
import { says, standInMessagesApi, toolCall } from "elyra-assistant/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { spyCommands, type TestUser } from "../fixtures/spyCommands.ts";

const ada: TestUser = { name: "Ada", abilities: ["*"] };
const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0)) await f();
});

const over = async (script: Parameters<typeof standInMessagesApi>[0], maxRetries = 0) => {
  const spies = spyCommands();
  const app = createApp({
    commands: spies.commands,
    userAbilities: (u) => (u as TestUser).abilities,
    assistant: { allow: ["*"] },
  });
  const api = await standInMessagesApi(script);
  cleanup.push(api.close);
  const host = createHost(app, { model: anthropic({ baseURL: api.url, apiKey: "k", maxRetries }) });
  return { spies, api, w: host.window("w", { user: ada }) };
};

const overloaded = { error: { status: 529, type: "overloaded_error", message: "Overloaded" } };

describe("streaming faults through the window", () => {
  it("S3: a stream cut inside a tool step runs no tool of that step, and the panel shows why", async () => {
    for (const cutAfter of [3, 5, 7]) {
      const { spies, w } = await over([
        toolCall("invoices_index", { overdue: true }, { text: "Checking.", cutAfter }),
      ]);
      const end = await w.prompt("overdue?");
      expect(end._tag, `cut after ${cutAfter}`).toBe("Failed");
      expect(spies.total()).toBe(0);
      expect(w.panel().items.at(-1)).toMatchObject({ kind: "error" });
      expect(w.panel().items.some((i) => i.kind === "tool")).toBe(false);
    }
  });

  it("S1: an event: error after HTTP 200 fails the turn, never a short answer", async () => {
    const { w } = await over([
      says("Three invoices are overdue and one is paid.", { pieces: 8, errorAfter: 6 }),
    ]);
    const end = await w.prompt("overdue?");
    expect(end).toMatchObject({ _tag: "Failed", error: "Overloaded" });
    expect(w.panel().items.at(-1)).toMatchObject({
      kind: "error",
      turn: 1,
      error: "Overloaded",
      reason: "overloaded",
      prompt: "overdue?",
    });
  });

  it("S4: 529, 529, 200 answers with the SDK's retries; 529 × 3 shows as overloaded", async () => {
    const ok = await over([overloaded, overloaded, says("Fine now.")], 2);
    expect(await ok.w.prompt("hi")).toMatchObject({ _tag: "Answered", text: "Fine now." });
    expect(ok.api.requests).toHaveLength(3);
    const down = await over([overloaded, overloaded, overloaded], 2);
    expect(await down.w.prompt("hi")).toMatchObject({ _tag: "Failed", error: "Overloaded" });
    expect(down.w.panel().items.at(-1)).toMatchObject({ kind: "error", error: "Overloaded" });
  });

  it("a tool step streamed in pieces runs its tool once, and its text shows before the tool step", async () => {
    const { spies, w } = await over([
      toolCall(
        "customers_update",
        { id: 7, email: "ada@example.com" },
        { text: "Updating her email now.", pieces: 5 },
      ),
      says("Done: her email is ada@example.com.", { pieces: 6 }),
    ]);
    const tags: string[] = [];
    w.events$().subscribe((e) => tags.push(e._tag));
    expect((await w.prompt("set her email"))._tag).toBe("Answered");
    expect(spies.runs.get("customers_update")).toBe(1);
    expect(tags.indexOf("TextDelta")).toBeLessThan(tags.indexOf("ToolStarted"));
    expect(
      w
        .panel()
        .items.filter((i) => i.kind === "answer")
        .map((i) => (i as { text: string }).text),
    ).toEqual(["Updating her email now.", "Done: her email is ada@example.com."]);
  });

  it("Stop over HTTP keeps what was said and the next request carries it", async () => {
    const { api, w } = await over([
      says("One two three four five six seven eight nine ten.", { pieces: 10, paceMs: 30 }),
      says("Eleven."),
    ]);
    const end = w.prompt("count");
    await vi.waitFor(() => expect(w.panel().items.some((i) => i.kind === "answer")).toBe(true), {
      timeout: 5_000,
      interval: 5,
    });
    w.stop();
    const stopped = await end;
    expect(stopped._tag).toBe("Stopped");
    const partial = (stopped as { partial: string }).partial;
    expect(partial.length).toBeGreaterThan(0);
    expect("One two three four five six seven eight nine ten.".startsWith(partial)).toBe(true);
    await w.prompt("go on");
    const messages = (
      (api.requests.at(-1) as { body: unknown }).body as {
        messages: Array<{ role: string; content: unknown }>;
      }
    ).messages;
    // The end of the earlier turns: it carries the breakpoint the next turn reads up to.
    expect(messages[1]).toEqual({
      role: "assistant",
      content: [
        {
          type: "text",
          text: `${partial}\n\n(stopped by the user)`,
          cache_control: { type: "ephemeral" },
        },
      ],
    });
  });
});
