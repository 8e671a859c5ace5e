/**
 * Code mode, streamed through the host: the script shows when Claude starts
 * writing its code (`ScriptWriting`), its code grows in deltas gathered like
 * text (at most one per 50 ms), and the whole code comes once the step ends
 * (`ScriptStarted`, as before). The deltas are for display: the requests and
 * the history are what they were without them. On a simulated clock; and
 * over HTTP with the real SDK against the stand-in.
 */
import { createHost, type Model } from "elyra-assistant";
import { anthropic } from "elyra-assistant/anthropic";
import { type EventOf, history, type LogEvent, panelItems } from "elyra-assistant/log";
import {
  codeFinished,
  codeRuns,
  fakeModel,
  simulatedClock,
  standInMessagesApi,
  testApp,
} from "elyra-assistant/testing";
import { afterEach, describe, expect, it } from "vitest";
import { ADA, invoiceBook } from "../fixtures/invoiceBook.ts";

const CODE = `invoices = await invoices_index({})
missing = [i for i in invoices if i["project"] is None]
print(f"{len(missing)} on no project \\u2014 \\"done\\"")`;
const JSON_LENGTH = JSON.stringify({ code: CODE }).length;
/** The code's input cut every 4 characters: about 40 pieces. */
const EVERY_4 = Array.from({ length: Math.ceil(JSON_LENGTH / 4) }, (_, i) => (i + 1) * 4);

const script = () => [
  codeRuns(CODE, [{ name: "invoices_index", input: {} }], {
    text: "I'll do this in code.",
    splitAt: EVERY_4,
  }),
  codeFinished({ stdout: "37 on no project" }, "37 are on no project."),
];

const settle = async () => {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
};

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0)) await f();
});

type Script = Extract<ReturnType<typeof panelItems.fold>["items"][number], { kind: "script" }>;
const scriptOf = (items: ReadonlyArray<{ readonly kind: string }>) =>
  items.find((item): item is Script => item.kind === "script");

describe("a script's code streamed through the host (SimulatedClock)", () => {
  it("shows the script as the code is written, gathers its code every 50 ms, then logs the whole code after the step", async () => {
    const clock = simulatedClock(0);
    const model = fakeModel(script(), { paceMs: 10, clock });
    const host = createHost(invoiceBook().app, { model, clock });
    cleanup.push(host.close);
    const w = host.window("w", { user: ADA });
    const events: LogEvent[] = [];
    w.events$().subscribe((e) => events.push(e));
    const end = w.prompt("Which invoices are on no project?");
    /** The panel's script while its code was being written, each time it grew. */
    const seen: Script[] = [];
    for (let t = 0; t < 1_000; t += 5) {
      clock.increment(5);
      await settle();
      const shown = scriptOf(w.panel().items);
      if (shown?.writing && shown.code !== seen.at(-1)?.code) seen.push(shown);
    }
    expect(await end).toMatchObject({ _tag: "Answered", text: "37 are on no project." });
    await w.settled();

    const tags = events.map((e) => e._tag);
    const writing = tags.indexOf("ScriptWriting");
    const stepEnd = tags.indexOf("StepFinished");
    const started = tags.indexOf("ScriptStarted");
    // The words first, then the script, while the step still runs; the whole code after it.
    expect(tags.lastIndexOf("TextDelta", writing)).toBeGreaterThan(-1);
    expect(writing).toBeGreaterThan(tags.lastIndexOf("TextDelta", writing));
    expect(writing).toBeLessThan(stepEnd);
    expect(started).toBeGreaterThan(stepEnd);
    expect(events[writing]).toMatchObject({ turn: 1, toolId: "srvtoolu_1" });
    expect(events[started]).toMatchObject({ toolId: "srvtoolu_1", code: CODE });

    const deltas = events.filter(
      (e): e is EventOf<"ScriptCodeDelta"> => e._tag === "ScriptCodeDelta",
    );
    expect(deltas.map((d) => d.code).join("")).toBe(CODE);
    expect(tags.lastIndexOf("ScriptCodeDelta")).toBeLessThan(stepEnd);
    // About 40 pieces 10 ms apart, gathered: at most one delta per 50 ms (but the last, which
    // the step's end tells at once).
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.length).toBeLessThan(EVERY_4.length / 3);
    for (let i = 1; i < deltas.length - 1; i++)
      expect((deltas[i] as LogEvent).at - (deltas[i - 1] as LogEvent).at).toBeGreaterThanOrEqual(
        50,
      );

    // The panel showed the code growing, each time a prefix of the whole.
    expect(seen.length).toBeGreaterThan(2);
    for (const shown of seen) {
      expect(CODE.startsWith(shown.code)).toBe(true);
      expect(shown.output).toBeUndefined();
    }
    expect(seen[0]?.code.length).toBeLessThan(CODE.length);
    const last = scriptOf(w.panel().items);
    expect(last).toEqual({
      kind: "script",
      turn: 1,
      toolId: "srvtoolu_1",
      code: CODE,
      steps: [{ callId: "toolu_fake-1", tool: "invoices_index", ok: true, outcome: "ok" }],
      calls: 1,
      output: "37 on no project",
    });
    // A log without the streamed events (an older one) folds to the same panel.
    const older = events.filter((e) => e._tag !== "ScriptWriting" && e._tag !== "ScriptCodeDelta");
    expect(panelItems.fold(older)).toEqual(panelItems.fold(events));
    expect(history.fold(older)).toEqual(history.fold(events));
  });

  it("sends the model the same requests, and keeps the same history, as a model that streams no code", async () => {
    const withoutCode = (model: Model): Model => ({
      step: (request, { signal, onText }) =>
        model.step(request, { signal, ...(onText === undefined ? {} : { onText }) }),
    });
    const run = async (streamCode: boolean) => {
      const model = fakeModel([...script(), { text: "None are left." }]);
      const t = testApp(invoiceBook().app, {
        model: streamCode ? model : withoutCode(model),
        user: ADA,
      });
      const a = t.assistant();
      const first = await a.prompt("Which invoices are on no project?");
      const second = await a.prompt("Any left?");
      return { first, second, requests: t.requests };
    };
    const streamed = await run(true);
    const plain = await run(false);
    expect(streamed.first.events.some((e) => e._tag === "ScriptCodeDelta")).toBe(true);
    expect(plain.first.events.some((e) => e._tag === "ScriptCodeDelta")).toBe(false);
    expect(streamed.requests).toEqual(plain.requests);
    expect(streamed.second.history).toEqual(plain.second.history);
    expect(streamed.first.panel).toEqual(plain.first.panel);
  });

  it("Stop while the code is written keeps the words, and the script says it was cut short", async () => {
    const clock = simulatedClock(0);
    const model = fakeModel(script(), { paceMs: 10, clock });
    const host = createHost(invoiceBook().app, { model, clock });
    cleanup.push(host.close);
    const w = host.window("w", { user: ADA });
    const events: LogEvent[] = [];
    w.events$().subscribe((e) => events.push(e));
    const end = w.prompt("Which invoices are on no project?");
    for (let t = 0; t < 1_000 && !events.some((e) => e._tag === "ScriptCodeDelta"); t += 5) {
      clock.increment(5);
      await settle();
    }
    expect(scriptOf(w.panel().items)?.writing).toBe(true);
    w.stop();
    expect(await end).toMatchObject({ _tag: "Stopped", partial: "I'll do this in code." });
    for (let t = 0; t < 200; t += 5) {
      clock.increment(5);
      await settle();
    }
    await w.settled();
    const tags = events.map((e) => e._tag);
    expect(tags).not.toContain("ScriptStarted");
    // Nothing of the code is logged after the turn ended.
    expect(tags.slice(tags.indexOf("Stopped"))).toEqual(["Stopped"]);
    const shown = scriptOf(w.panel().items);
    expect(shown?.writing).toBeUndefined();
    expect(shown?.output).toBe("(the turn ended before the code finished)");
    expect(CODE.startsWith(shown?.code ?? "-")).toBe(true);
  });
});

describe("a script's code streamed over HTTP (the real SDK, the stand-in)", () => {
  it("logs the script started and its code in deltas before the step ends, then the whole code", async () => {
    const api = await standInMessagesApi(script());
    cleanup.push(api.close);
    const host = createHost(invoiceBook().app, {
      model: anthropic({ baseURL: api.url, apiKey: "k", maxRetries: 0 }),
    });
    cleanup.push(host.close);
    const w = host.window("w", { user: ADA });
    const events: LogEvent[] = [];
    w.events$().subscribe((e) => events.push(e));
    expect(await w.prompt("Which invoices are on no project?")).toMatchObject({
      _tag: "Answered",
    });
    await w.settled();
    const tags = events.map((e) => e._tag);
    const stepEnd = tags.indexOf("StepFinished");
    expect(tags.indexOf("ScriptWriting")).toBeGreaterThan(-1);
    expect(tags.indexOf("ScriptWriting")).toBeLessThan(stepEnd);
    expect(tags.lastIndexOf("ScriptCodeDelta")).toBeLessThan(stepEnd);
    const deltas = events.filter(
      (e): e is EventOf<"ScriptCodeDelta"> => e._tag === "ScriptCodeDelta",
    );
    expect(deltas.map((d) => d.code).join("")).toBe(CODE);
    expect(events.find((e) => e._tag === "ScriptStarted")).toMatchObject({ code: CODE });
    expect(scriptOf(w.panel().items)).toMatchObject({ code: CODE, output: "37 on no project" });
  });
});
