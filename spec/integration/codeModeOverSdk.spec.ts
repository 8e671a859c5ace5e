/**
 * Code mode through the host, the real SDK and the stand-in Messages API
 * over HTTP. The stand-in refuses, as the API does, a pause answered without
 * the container or with anything but one tool_result per pending call.
 */
import { createHost } from "elyra-assistant";
import { anthropic } from "elyra-assistant/anthropic";
import { lateResult, SCRIPT_CUT_SHORT, tooManyCodeCalls } from "elyra-assistant/machines";
import {
  codeCalls,
  codeFinished,
  codeRuns,
  type ScriptedResponse,
  says,
  simulatedClock,
  standInMessagesApi,
} from "elyra-assistant/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ADA, invoiceBook } from "../fixtures/invoiceBook.ts";

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0)) await f();
});

type Body = {
  readonly container?: string;
  readonly tools?: ReadonlyArray<Record<string, unknown>>;
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: unknown }>;
};

const over = async (
  script: ReadonlyArray<ScriptedResponse>,
  options: {
    readonly codeMode?: boolean;
    readonly maxSteps?: number;
    readonly clock?: ReturnType<typeof simulatedClock>;
  } = {},
) => {
  const book = invoiceBook(options);
  const api = await standInMessagesApi(script);
  cleanup.push(api.close);
  const host = createHost(book.app, {
    model: anthropic({ baseURL: api.url, apiKey: "k", maxRetries: 0 }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  cleanup.push(host.close);
  const bodies = () => api.requests.map((r) => r.body as Body);
  return { book, api, bodies, w: host.window("w", { user: ADA }) };
};

const updates = (ids: ReadonlyArray<number>) =>
  ids.map((id) => ({ name: "invoices_update", input: { id, project: "P-9" } }));

describe("code mode over HTTP", () => {
  it("a run of 37 calls from code, each through the call path, answered with tool_result blocks only; the container within the turn only; maxSteps 8 is enough", async () => {
    const ids = Array.from({ length: 37 }, (_, i) => i + 1);
    const { book, bodies, w } = await over(
      [
        codeRuns("for i in ids: await invoices_update(...)", updates(ids.slice(0, 1))),
        ...ids.slice(1).map((id) => codeCalls(updates([id]))),
        codeFinished({ stdout: "37 updated" }, "All 37 are on P-9."),
        says("Nothing else."),
      ],
      { maxSteps: 8 },
    );
    const end = await w.prompt("Put invoices 1 to 37 on P-9");
    expect(end).toMatchObject({ _tag: "Answered", text: "All 37 are on P-9." });
    expect(book.runs.get("invoices_update")).toBe(37);
    const sent = bodies();
    expect(sent).toHaveLength(38); // the model run, 36 more pauses answered, the code's end
    expect(sent[0]?.container).toBeUndefined();
    for (const body of sent.slice(1)) {
      expect(body.container).toBe("container_1");
      const answer = body.messages.at(-1);
      expect(answer?.role).toBe("user");
      expect(((answer?.content ?? []) as Array<{ type: string }>).map((b) => b.type)).toEqual([
        "tool_result",
      ]);
    }
    const events = await new Promise<ReadonlyArray<{ _tag: string }>>((resolve) => {
      const seen: Array<{ _tag: string }> = [];
      const sub = w.events$().subscribe((e) => {
        seen.push(e);
        if (e._tag === "Answered") {
          queueMicrotask(() => sub.unsubscribe());
          resolve(seen);
        }
      });
    });
    // The code arrives whole through the stream's input_json_delta pieces.
    expect(events.find((e) => e._tag === "ScriptStarted")).toMatchObject({
      toolId: "srvtoolu_1",
      code: "for i in ids: await invoices_update(...)",
    });
    const tags = events.map((e) => e._tag);
    const between = tags.slice(tags.indexOf("ScriptStarted"), tags.indexOf("ScriptFinished"));
    expect(between.filter((t) => t === "ToolFinished")).toHaveLength(37);

    await w.prompt("Anything else?");
    expect(bodies().at(-1)?.container).toBeUndefined();
  });

  it("a confirm tool called from code is refused to the code, never runs, and the user is not asked", async () => {
    const { book, bodies, w } = await over([
      codeRuns("await invoices_delete({'id': 3})", [{ name: "invoices_delete", input: { id: 3 } }]),
      codeFinished(
        { stderr: "ToolError: call it directly", returnCode: 1 },
        "I could not delete it from code.",
      ),
    ]);
    const asked: string[] = [];
    w.events$().subscribe((e) => {
      if (e._tag === "ConfirmRequested") asked.push(e.confirmId);
    });
    const end = await w.prompt("Delete invoice 3");
    expect(end._tag).toBe("Answered");
    expect(book.runs.get("invoices_delete")).toBeUndefined();
    expect(book.invoices.has(3)).toBe(true);
    expect(asked).toEqual([]);
    const answer = bodies()[1]?.messages.at(-1)?.content as Array<{
      content: string;
      is_error?: boolean;
    }>;
    expect(answer[0]?.is_error).toBe(true);
    expect(answer[0]?.content).toContain("call it directly, so the user can confirm it");
    const script = w.panel().items.find((i) => i.kind === "script");
    expect(script).toMatchObject({
      steps: [{ tool: "invoices_delete", ok: false }],
      output: "ToolError: call it directly\n(exit code 1)",
    });
  });

  it("without code mode, no code execution tool and no allowed_callers reach the API", async () => {
    const { bodies, w } = await over([says("Hi.")], { codeMode: false });
    await w.prompt("Hi");
    const tools = bodies()[0]?.tools ?? [];
    expect(tools.length).toBe(3);
    expect(JSON.stringify(tools)).not.toMatch(/allowed_callers|code_execution/);
  });

  it("at most 500 calls from code a prompt: past that the turn fails as unsupported, and nothing past the cap runs", async () => {
    const first = Array.from({ length: 250 }, (_, i) => i + 1);
    const second = Array.from({ length: 251 }, (_, i) => i + 1);
    const { book, w } = await over([
      codeRuns("for …", updates(first)),
      codeCalls(updates(second)),
      codeFinished({ stdout: "never" }, "never"),
    ]);
    const end = await w.prompt("Touch every invoice twice");
    expect(end).toMatchObject({ _tag: "Failed", error: tooManyCodeCalls(500) });
    expect(book.runs.get("invoices_update")).toBe(250);
    // The script the turn ended before says so in the panel.
    expect(w.panel().items.find((i) => i.kind === "script")).toMatchObject({
      calls: 250,
      output: SCRIPT_CUT_SHORT,
    });
  });

  it("a call still running at the deadline is answered with an error before the API's limit (SimulatedClock)", async () => {
    const clock = simulatedClock(Date.UTC(2026, 10, 29));
    const { book, bodies, w } = await over(
      [
        codeRuns("…", updates([1, 2])),
        codeFinished({ stderr: "the call failed", returnCode: 1 }, "Invoice 1 took too long."),
      ],
      { clock },
    );
    let release: () => void = () => undefined;
    book.setGate(new Promise<void>((resolve) => (release = resolve)));
    const ended = w.prompt("Move invoices 1 and 2");
    await vi.waitFor(() => expect(book.runs.get("invoices_update")).toBe(1));
    clock.increment(209_999);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(bodies()).toHaveLength(1);
    clock.increment(1);
    const end = await ended;
    expect(end._tag).toBe("Answered");
    const answer = bodies()[1]?.messages.at(-1)?.content as Array<{
      content: string;
      is_error?: boolean;
    }>;
    expect(answer.map((r) => [r.content, r.is_error])).toEqual([
      [lateResult(210_000), true],
      [lateResult(210_000), true],
    ]);
    // The second call never started.
    expect(book.runs.get("invoices_update")).toBe(1);
    release();
  });
});
