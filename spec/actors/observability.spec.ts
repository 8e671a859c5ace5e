/**
 * What operators see: OpenTelemetry spans for a turn, its model steps and its
 * command calls (no arguments or text as attributes), and XState's inspection
 * events of every actor through `createHost(app, { inspect })`.
 */
import { trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { createApp, createHost } from "elyra-assistant";
import { fakeModel } from "elyra-assistant/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnyActorRef, InspectionEvent } from "xstate";
import { spyCommands, type TestUser } from "../fixtures/spyCommands.ts";

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
beforeAll(() => {
  trace.setGlobalTracerProvider(provider);
});
afterAll(async () => {
  trace.disable();
  await provider.shutdown();
});

const ada: TestUser = { name: "Ada", abilities: ["*"] };
const appOf = () => {
  const spies = spyCommands();
  return {
    spies,
    app: createApp({
      commands: spies.commands,
      userAbilities: (u) => (u as TestUser).abilities,
      assistant: { allow: ["*"], confirm: ["customers.delete"] },
    }),
  };
};

const parentOf = (span: ReadableSpan): string | undefined =>
  (span as { parentSpanContext?: { spanId: string } }).parentSpanContext?.spanId ??
  (span as { parentSpanId?: string }).parentSpanId;

describe("spans", () => {
  it("a turn with two tool calls is one tree: the turn, its model steps and its calls, and no arguments or text", async () => {
    exporter.reset();
    const { app } = appOf();
    const model = fakeModel()
      .toolCall("customers_show", { id: 42 }, { text: "Looking her up." })
      .toolCall("customers_update", { id: 42, email: "secret-address@example.com" })
      .says("Her email is changed.");
    const host = createHost(app, { model });
    const w = host.window("w", { user: ada });
    const end = await w.prompt("Change her email to secret-address@example.com");
    expect(end._tag).toBe("Answered");
    await w.settled();

    const spans = exporter.getFinishedSpans();
    const turns = spans.filter((s) => s.name === "elyra.turn");
    expect(turns).toHaveLength(1);
    const turn = turns[0] as ReadableSpan;
    const children = spans.filter((s) => parentOf(s) === turn.spanContext().spanId);
    expect(children.map((s) => s.name).sort()).toEqual([
      "elyra.model.step",
      "elyra.model.step",
      "elyra.model.step",
      "elyra.tool.call",
      "elyra.tool.call",
    ]);
    expect(spans).toHaveLength(6);
    const calls = children.filter((s) => s.name === "elyra.tool.call");
    expect(calls.map((s) => [s.attributes["elyra.tool"], s.attributes["elyra.outcome"]])).toEqual([
      ["customers_show", "ok"],
      ["customers_update", "ok"],
    ]);
    const steps = children.filter((s) => s.name === "elyra.model.step");
    expect(steps.map((s) => s.attributes["gen_ai.response.finish_reasons"])).toEqual([
      ["tool_use"],
      ["tool_use"],
      ["end_turn"],
    ]);
    expect(turn.attributes["elyra.outcome"]).toBe("Answered");
    // Attributes name what happened, never what was said or sent.
    const attributes = JSON.stringify(spans.map((s) => s.attributes));
    for (const secret of ["secret-address", "Looking her up", "Her email", "42"])
      expect(attributes).not.toContain(secret);
    await host.close();
  });

  it("a refused call and a failed turn end their spans with an error status", async () => {
    exporter.reset();
    const { app } = appOf();
    const model = fakeModel()
      .toolCall("no_such_tool", {})
      .fails(401, "authentication_error", "invalid x-api-key");
    const host = createHost(app, { model });
    const w = host.window("w", { user: ada });
    expect((await w.prompt("Go"))._tag).toBe("Failed");
    await w.settled();
    const spans = exporter.getFinishedSpans();
    const call = spans.find((s) => s.name === "elyra.tool.call");
    expect(call?.status.code).toBe(2);
    expect(call?.attributes["elyra.outcome"]).toBe("unknownTool");
    const turn = spans.find((s) => s.name === "elyra.turn");
    expect(turn?.attributes["elyra.outcome"]).toBe("Failed");
    expect(turn?.status.code).toBe(2);
    await host.close();
  });
});

describe("inspect", () => {
  it("passes XState's inspection events of every actor: the conversation, its calls, the confirmation, the coalescer", async () => {
    const { app } = appOf();
    const seen: InspectionEvent[] = [];
    const host = createHost(app, {
      model: fakeModel().toolCall("customers_delete", { id: 1 }).says("Kept."),
      // An inspector typed with XState's own InspectionEvent is accepted as it is.
      inspect: (event: InspectionEvent) => seen.push(event),
    });
    const w = host.window("w", { user: ada });
    w.events$().subscribe((e) => {
      if (e._tag === "ConfirmRequested") void w.confirm(e.confirmId, false);
    });
    await w.prompt("Delete customer 1");
    await w.settled();
    const machines = new Set(
      seen
        .filter((e) => e.type === "@xstate.actor")
        .map(
          (e) => (e.actorRef.getSnapshot() as { machine?: { id: string } }).machine?.id ?? "logic",
        ),
    );
    expect(machines).toContain("conversation");
    expect(machines).toContain("confirmation");
    expect(machines).toContain("coalescer");
    expect(machines).toContain("logic"); // the turn's steps, invoked by the conversation
    expect(seen.some((e) => e.type === "@xstate.snapshot")).toBe(true);
    await host.close();
  });

  it("shows who supervises whom: the supervisor → each conversation → its model step, tool run, confirmation and coalescer", async () => {
    const { app } = appOf();
    const created: AnyActorRef[] = [];
    const host = createHost(app, {
      model: fakeModel()
        .toolCall("customers_delete", { id: 1 })
        .says("Kept.")
        .toolCall("customers_delete", { id: 1 })
        .says("Kept."),
      inspect: (event) => {
        if (event.type === "@xstate.actor") created.push(event.actorRef as AnyActorRef);
      },
    });
    const windows = ["a", "b"].map((id) => host.window(id, { user: ada }));
    for (const w of windows) {
      w.events$().subscribe((e) => {
        if (e._tag === "ConfirmRequested") void w.confirm(e.confirmId, false);
      });
      await w.prompt("Delete customer 1");
      await w.settled();
    }
    const machineOf = (ref: AnyActorRef | undefined) =>
      (ref?.getSnapshot() as { machine?: { id: string } } | undefined)?.machine?.id ?? "logic";
    const supervisors = created.filter((ref) => machineOf(ref) === "supervisor");
    // Windows opened one after another share a supervisor (256 to a block): one, a root.
    expect(supervisors).toHaveLength(1);
    for (const supervisor of supervisors) expect(supervisor._parent).toBeUndefined();
    const conversations = created.filter((ref) => machineOf(ref) === "conversation");
    // Each is a supervisor's child under the window's key, and in its system under its name.
    expect(conversations.map((ref) => [ref.id, (ref as { systemId?: string }).systemId])).toEqual([
      ["0", "conversation:0"],
      ["1", "conversation:1"],
    ]);
    expect(conversations.map((conversation) => conversation._parent)).toEqual([
      supervisors[0],
      supervisors[0],
    ]);
    // Everything else runs under a conversation (a recovery under the supervisor).
    const parentsOf = (machine: string) =>
      created.filter((ref) => machineOf(ref) === machine).map((ref) => machineOf(ref._parent));
    expect(parentsOf("confirmation")).toEqual(["conversation", "conversation"]);
    expect(parentsOf("coalescer").length).toBeGreaterThanOrEqual(2);
    expect(new Set(parentsOf("coalescer"))).toEqual(new Set(["conversation"]));
    const logic = created.filter((ref) => machineOf(ref) === "logic");
    expect(new Set(logic.map((ref) => machineOf(ref._parent)))).toEqual(
      new Set(["conversation", "supervisor"]),
    );
    expect(logic.filter((ref) => machineOf(ref._parent) === "supervisor").map((r) => r.id)).toEqual(
      ["recover:0", "recover:1"],
    );
    await host.close();
  });

  it("spreads the windows over supervisors, 256 at most to one, so no one parent holds them all", async () => {
    const { app } = appOf();
    const created: AnyActorRef[] = [];
    const host = createHost(app, {
      model: fakeModel(),
      inspect: (event) => {
        if (event.type === "@xstate.actor") created.push(event.actorRef as AnyActorRef);
      },
    });
    for (let i = 0; i < 600; i++) await host.window(`w${i}`, { user: ada }).settled();
    const machineOf = (ref: AnyActorRef | undefined) =>
      (ref?.getSnapshot() as { machine?: { id: string } } | undefined)?.machine?.id ?? "logic";
    const supervisors = created.filter((ref) => machineOf(ref) === "supervisor");
    const children = supervisors.map(
      (supervisor) =>
        Object.keys((supervisor.getSnapshot() as { children: object }).children).length,
    );
    expect(children.reduce((sum, n) => sum + n, 0)).toBe(600);
    expect(children).toEqual([256, 256, 88]);
    await host.close();
  });
});
