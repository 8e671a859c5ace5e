/**
 * The 214-invoice task of code mode (docs/code-mode.md) on the fake model:
 * Claude's code reads 214 invoices and puts the 37 without a project on one,
 * each call from code through the call path; the pauses are requests but not
 * model steps; the log and the panel show one script holding its calls.
 */
import type { ContentBlock, Message } from "elyra-assistant";
import type { EventOf } from "elyra-assistant/log";
import { codeCalls, codeFinished, codeRuns, fakeModel, testApp } from "elyra-assistant/testing";
import { describe, expect, it } from "vitest";
import {
  ADA,
  INVOICES,
  invoiceBook,
  missingTotal,
  TASK_CODE,
  WITHOUT_PROJECT,
} from "../fixtures/invoiceBook.ts";

const lastUser = (messages: ReadonlyArray<Message>) => messages.at(-1);

describe("the 214-invoice task in code mode", () => {
  it("reads 214 invoices, updates the 37 without a project, prints the total; 8 steps are enough", async () => {
    const book = invoiceBook({ maxSteps: 8 });
    const output = `${INVOICES} invoices read, 37 updated, total ${missingTotal()}`;
    const model = fakeModel().respond(
      codeRuns(TASK_CODE, [{ name: "invoices_index", input: {} }], {
        text: "I'll do this in code.",
      }),
    );
    for (const id of WITHOUT_PROJECT)
      model.respond(
        codeCalls([{ name: "invoices_update", input: { id, project: "P-unassigned" } }]),
      );
    model.respond(codeFinished({ stdout: output }, `Done: ${output}.`));
    const t = testApp(book.app, { model, user: ADA });
    const turn = await t.assistant().prompt("Put every invoice without a project on P-unassigned");

    expect(turn.end).toMatchObject({ _tag: "Answered", text: `Done: ${output}.` });
    expect(book.runs.get("invoices_index")).toBe(1);
    expect(book.runs.get("invoices_update")).toBe(37);
    expect([...book.invoices.values()].filter((i) => i.project === null)).toEqual([]);
    expect(turn.ran).toHaveLength(38);
    expect(turn.ran.every((r) => r.ok)).toBe(true);

    // 39 requests: the first runs the model, 38 answer pauses for the code, and the code's end.
    expect(turn.requests).toHaveLength(39);
    const [first, ...answers] = turn.requests;
    expect(first?.container).toBeUndefined();
    expect(first?.tools.at(-1)).toEqual({
      type: "code_execution_20260120",
      name: "code_execution",
    });
    for (const request of answers) {
      expect(request.container).toBe("container_1");
      const answer = lastUser(request.messages);
      expect(answer?.role).toBe("user");
      expect(
        ((answer?.content ?? []) as ReadonlyArray<ContentBlock>).every(
          (b) => b.type === "tool_result",
        ),
      ).toBe(true);
    }

    // The log: the script, each call between its start and end, the output.
    const tags = turn.events.map((e) => e._tag);
    const started = tags.indexOf("ScriptStarted");
    const finished = tags.indexOf("ScriptFinished");
    expect(started).toBeGreaterThan(-1);
    const calls = turn.events.filter((e): e is EventOf<"ToolStarted"> => e._tag === "ToolStarted");
    expect(calls).toHaveLength(38);
    for (const call of calls) {
      const at = turn.events.indexOf(call);
      expect(at).toBeGreaterThan(started);
      expect(at).toBeLessThan(finished);
      expect(call.caller).toEqual({ type: "code", toolId: "srvtoolu_1" });
    }
    expect(turn.events[started]).toMatchObject({ toolId: "srvtoolu_1", code: TASK_CODE });
    expect(turn.events[finished]).toMatchObject({ toolId: "srvtoolu_1", output, calls: 38 });
    const links = turn.events
      .filter((e): e is EventOf<"ToolFinished"> => e._tag === "ToolFinished")
      .map((e) => e.link);
    expect(links.slice(1)).toEqual(WITHOUT_PROJECT.map((id) => `/invoices/${id}`));

    // The panel: the user's text, what was said first, one script holding its 38 calls, the answer.
    const items = turn.panel.items;
    expect(items.map((i) => i.kind)).toEqual(["user", "answer", "script", "answer"]);
    const script = items[2] as Extract<(typeof items)[number], { kind: "script" }>;
    expect(script).toMatchObject({ code: TASK_CODE, calls: 38, output });
    expect(script.steps[0]).toMatchObject({ tool: "invoices_index", ok: true });
    expect(script.steps[5]).toMatchObject({
      tool: "invoices_update",
      ok: true,
      link: "/invoices/25",
    });
  });

  it("keeps the container for the turn only, and a pause is not a step", async () => {
    const book = invoiceBook({ maxSteps: 1 });
    const model = fakeModel()
      .respond(codeRuns("x", [{ name: "invoices_index", input: {} }]))
      .respond(codeCalls([{ name: "invoices_index", input: {} }]))
      .respond(codeFinished({ stdout: "ok" }, "Done."))
      .says("Next turn.");
    const t = testApp(book.app, { model, user: ADA });
    expect((await t.assistant().prompt("Go")).end._tag).toBe("Answered");
    const next = await t.assistant().prompt("And now?");
    expect(next.requests[0]?.container).toBeUndefined();
    expect(next.end).toMatchObject({ _tag: "Answered", text: "Next turn." });
  });

  it("a script id such as constructor is counted like any other", async () => {
    const book = invoiceBook();
    const run = { toolId: "constructor" };
    const model = fakeModel()
      .respond(codeRuns("x", [{ name: "invoices_index", input: {} }], run))
      .respond(codeFinished({ stdout: "ok" }, "Done.", run));
    const turn = await testApp(book.app, { model, user: ADA }).assistant().prompt("Go");
    expect(turn.events.find((e) => e._tag === "ScriptFinished")).toMatchObject({
      toolId: "constructor",
      calls: 1,
    });
  });

  it("without code mode, no code execution tool and no allowed_callers are sent", async () => {
    const book = invoiceBook({ codeMode: false });
    const t = testApp(book.app, { model: fakeModel().says("Hi."), user: ADA });
    const turn = await t.assistant().prompt("Hi");
    const tools = turn.requests[0]?.tools ?? [];
    expect(tools.map((tool) => tool.name)).toEqual([
      "invoices_delete",
      "invoices_index",
      "invoices_update",
    ]);
    expect(JSON.stringify(tools)).not.toContain("allowed_callers");
    expect(JSON.stringify(tools)).not.toContain("code_execution");
  });

  it("in code mode, tools behind confirm stay direct-only", async () => {
    const book = invoiceBook();
    const t = testApp(book.app, { model: fakeModel().says("Hi."), user: ADA });
    const tools = (await t.assistant().prompt("Hi")).requests[0]?.tools ?? [];
    expect(tools).toContainEqual(
      expect.objectContaining({
        name: "invoices_update",
        allowed_callers: ["direct", "code_execution_20260120"],
      }),
    );
    const del = tools.find((tool) => tool.name === "invoices_delete");
    expect(del).toBeDefined();
    expect(del).not.toHaveProperty("allowed_callers");
  });
});
