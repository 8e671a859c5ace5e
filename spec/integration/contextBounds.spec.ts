/**
 * A conversation that outgrows its bounds, through a real host, the SDK in
 * `anthropic()` and the stand-in Messages API (issue 32, item 3): the turn
 * past the history's bound asks for a summary with no tools and sends it in
 * place of the earlier turns; a long turn clears its older tool results; the
 * window shows that earlier messages were summarised; and a host started
 * again on the same store sends the next request byte for byte as the host
 * that never stopped does.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Schema } from "effect";
import { createApp, createHost, defineCommand } from "elyra-assistant";
import { anthropic } from "elyra-assistant/anthropic";
import { sqliteStore } from "elyra-assistant/sqlite";
import {
  memoryStore,
  says,
  simulatedClock,
  standInMessagesApi,
  toolCall,
} from "elyra-assistant/testing";
import { afterEach, describe, expect, it } from "vitest";
import type { EventStore } from "../../src/runtime/log/eventStore.ts";
import { CLEARED_RESULT } from "../../src/runtime/prompt/clearing.ts";
import { SUMMARY_HEAD, SUMMARY_REQUEST } from "../../src/runtime/prompt/compaction.ts";

/** The ids `customers_show` ran with. */
const shown: number[] = [];

const spec = {
  commands: [
    defineCommand({
      name: "customers_show",
      description: "Show one customer by id, with their notes.",
      can: "customers.show",
      args: { id: Schema.Number },
      run: ({ id }) => {
        shown.push(id);
        return { id, notes: "n".repeat(2_000) };
      },
    }),
  ],
  userAbilities: () => ["customers.*"],
  assistant: {
    allow: ["customers.*"],
    compactHistoryAbove: 700,
    compactKeepTurns: 1,
    clearToolResultsAbove: 1_000,
    clearKeepToolResults: 1,
  },
} satisfies Parameters<typeof createApp>[0];
const app = createApp(spec);
const ada = { name: "Ada" };
const long = (n: number) => `Answer ${n}: ${"word ".repeat(300)}`;

type Body = { tools?: unknown[]; messages: Array<{ role: string; content: unknown }> };

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0)) await f();
});

/** The script: two long answers, then the third turn's summary and answer, then a fourth turn. */
const script = () => [
  says(long(1)),
  says(long(2)),
  says("Ada asked twice; the answers were long."),
  says("Third answer."),
  says("Fourth answer."),
];

const hostOn = async (store: EventStore, promptCache = false, on = app, replies = script()) => {
  const api = await standInMessagesApi(replies, { promptCache });
  cleanup.push(api.close);
  const host = createHost(on, {
    model: anthropic({ baseURL: api.url, apiKey: "test-key", maxRetries: 0 }),
    store,
    clock: simulatedClock(Date.UTC(2026, 11, 3)),
  });
  cleanup.push(() => host.close());
  return { api, host };
};

describe("a conversation past its bounds, through the host", () => {
  it("a summary's step that calls a tool anyway: the tool is not run, nothing is summarised, and the next turn asks again", async () => {
    shown.length = 0;
    const replies = [
      says(long(1)),
      says(long(2)),
      toolCall("customers_show", { id: 1 }, { text: "Let me look up customer 1 first." }),
      says("Third answer."),
      says("Ada asked three times; the answers were long."),
      says("Fourth answer."),
    ];
    const { api, host } = await hostOn(memoryStore(), false, app, replies);
    const w = host.window("w1", { user: ada });
    for (const q of ["one", "two", "three", "four"])
      expect((await w.prompt(q))._tag).toBe("Answered");
    expect(shown).toEqual([]);
    const bodies = api.requests.map((r) => r.body as Body);
    // Turn 3 went on with its history whole; turn 4 asked for the summary again and used it.
    expect(JSON.stringify((bodies[3] as Body).messages)).toContain("Answer 1:");
    expect(JSON.stringify((bodies[3] as Body).messages)).not.toContain("Let me look up");
    expect(JSON.stringify((bodies[4] as Body).messages.at(-1))).toContain(
      JSON.stringify(SUMMARY_REQUEST),
    );
    expect(JSON.stringify((bodies[5] as Body).messages[0])).toContain("Ada asked three times");
    const compacted = w.panel().items.filter((i) => i.kind === "summarised");
    expect(compacted).toHaveLength(1);
  });

  it("the summary's request reads the earlier turns from the prompt cache, as the turn before wrote them", async () => {
    const store = memoryStore();
    // Instructions long enough that the prefix passes the cache's minimum (1 024 tokens).
    const instructed = createApp({
      ...spec,
      assistant: { ...spec.assistant, instructions: "Answer as the CRM's assistant. ".repeat(200) },
    });
    const { host } = await hostOn(store, true, instructed);
    const w = host.window("w1", { user: ada });
    for (const q of ["one", "two", "three"]) await w.prompt(q);
    await w.settled();
    const steps = (await store.read("conversation/w1", 0)).flatMap((e) =>
      e._tag === "StepFinished" ? [e] : [],
    );
    const summary = steps.find((e) => e.turn === 3 && e.step === 0);
    // The tools, the system prompt and turn 1 as turn 2's request cached them: read, not written again.
    expect(summary?.usage.cacheReadTokens ?? 0).toBeGreaterThan(0);
    expect(summary?.usage.cacheReadTokens ?? 0).toBeGreaterThan(summary?.usage.inputTokens ?? 0);
  });

  it("summarises once the history passes its bound, and says so in the window", async () => {
    const { api, host } = await hostOn(memoryStore());
    const w = host.window("w1", { user: ada });
    for (const q of ["one", "two", "three"]) await w.prompt(q);
    const bodies = api.requests.map((r) => r.body as Body);
    expect(bodies).toHaveLength(4);
    const summary = bodies[2] as Body;
    // Sent with the tools every request of the conversation has, byte for byte: the cached prefix.
    expect(JSON.stringify(summary.tools)).toBe(JSON.stringify((bodies[3] as Body).tools));
    expect(summary.tools?.length).toBeGreaterThan(0);
    // The request's last message, as the cache layout marks it.
    expect(JSON.stringify(summary.messages.at(-1))).toContain(JSON.stringify(SUMMARY_REQUEST));
    expect(summary.messages.at(-1)?.role).toBe("user");
    const answer = bodies[3] as Body;
    expect(JSON.stringify(answer.messages[0])).toContain(SUMMARY_HEAD);
    expect(JSON.stringify(answer.messages)).toContain("Ada asked twice");
    expect(JSON.stringify(answer.messages)).not.toContain("Answer 1:");
    expect(JSON.stringify(answer.messages)).toContain("Answer 2:");
    // The window answered the question, not with the summary; and shows the line.
    const items = w.panel().items;
    expect(items.map((i) => i.kind)).toContain("summarised");
    expect(
      items
        .filter((i) => i.kind === "answer")
        .map((i) => (i as { text: string }).text)
        .at(-1),
    ).toBe("Third answer.");
  });

  it("a host started again on the same store sends the next request as the one that never stopped", async () => {
    const dir = await mkdtemp(join(tmpdir(), "elyra-bounds-"));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, "assistant.db");
    const steady = await hostOn(memoryStore());
    for (const q of ["one", "two", "three", "four"])
      await steady.host.window("w1", { user: ada }).prompt(q);

    const first = sqliteStore(file);
    const before = await hostOn(first);
    for (const q of ["one", "two", "three"])
      await before.host.window("w1", { user: ada }).prompt(q);
    await before.host.close();
    await first.close?.();

    const second = sqliteStore(file);
    cleanup.push(async () => second.close?.());
    const after = await hostOn(second);
    const again = after.host.window("w1", { user: ada });
    await again.ready;
    expect(again.panel().items.map((i) => i.kind)).toContain("summarised");
    await again.prompt("four");
    const last = (api: { requests: ReadonlyArray<{ body: unknown }> }) =>
      JSON.stringify(api.requests.at(-1)?.body);
    expect(JSON.stringify(after.api.requests.at(-1)?.body)).toContain(SUMMARY_HEAD);
    expect(last(after.api)).toBe(last(steady.api));
  });

  it("a long turn clears its older tool results from what the model is sent", async () => {
    const api = await standInMessagesApi([
      toolCall("customers_show", { id: 1 }),
      toolCall("customers_show", { id: 2 }),
      toolCall("customers_show", { id: 3 }),
      says("Done."),
    ]);
    cleanup.push(api.close);
    const host = createHost(app, {
      model: anthropic({ baseURL: api.url, apiKey: "test-key", maxRetries: 0 }),
    });
    cleanup.push(() => host.close());
    await host.window("w2", { user: ada }).prompt("Show customers 1 to 3.");
    const last = api.requests.at(-1)?.body as Body;
    const results = last.messages
      .flatMap((m) =>
        Array.isArray(m.content) ? (m.content as Array<{ type: string; content?: string }>) : [],
      )
      .filter((b) => b.type === "tool_result");
    expect(results.map((r) => r.content === CLEARED_RESULT)).toEqual([true, false, false]);
  });
});
