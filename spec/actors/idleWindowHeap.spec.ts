/**
 * What an idle window keeps of its own, where a shared value does (the
 * idleWindows bench measures the heap): a projection of an empty log is the
 * projection's initial state itself, views queue nothing until an event comes,
 * and every window's lifecycle in one state has the same hidden class in V8.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { LazyView, ViewQueue } from "../../src/actors/support/lazyView.ts";
import type { LogEvent } from "../../src/runtime/log/events.ts";
import { history, status } from "../../src/runtime/log/projections.ts";
import { SOURCE_NODE_ARGS } from "../fixtures/sourceNode.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));

const started = (seq: number): LogEvent =>
  ({
    _tag: "TurnStarted",
    turn: 1,
    seq,
    at: 1_000,
    text: "hi",
    route: null,
    note: null,
  }) as LogEvent;

describe("what an idle window shares", () => {
  it("a view of an empty log is the projection's initial state, not a copy of it", () => {
    const queue = new ViewQueue();
    const view = new LazyView(status, queue);
    view.reset([]);
    expect(view.read()).toBe(status.initial);
    const other = new LazyView(history, queue);
    other.reset([]);
    expect(other.read()).toBe(history.initial);
  });

  it("views over one queue each fold what they have not read, whenever they read it", () => {
    const queue = new ViewQueue();
    const first = new LazyView(status, queue);
    const second = new LazyView(history, queue);
    first.reset([]);
    second.reset([]);
    queue.push(started(1));
    expect(first.read()).toEqual(status.fold([started(1)]));
    expect(first.read()).toBe(first.read());
    const answered = {
      ...started(2),
      _tag: "TurnEnded",
      outcome: "answered",
    } as unknown as LogEvent;
    queue.push(answered);
    // A view made now has read all so far: it sees what comes after, on the state it starts from.
    const late = new LazyView(status, queue);
    expect(second.read()).toEqual(history.fold([started(1), answered]));
    expect(first.read()).toEqual(status.fold([started(1), answered]));
    expect(late.read()).toBe(status.initial);
    queue.push(started(3));
    expect(late.read()).toEqual(status.apply(status.initial, started(3)));
    first.reset([started(1)]);
    expect(first.read()).toEqual(status.fold([started(1)]));
    expect(second.read()).toEqual(history.fold([started(1), answered, started(3)]));
  });

  it("every window's lifecycle in one state has one hidden class (V8), not one each", () => {
    // Real windows, after the code has run a while (a spread copy gets a class of its own then).
    const script = [
      'const { createApp, createHost } = await import("./src/index.ts");',
      'const { memoryStore, responseOf } = await import("./src/testing.ts");',
      "const app = createApp({ commands: [], userAbilities: () => [], assistant: { allow: [], confirm: [] } });",
      'const model = { step: async () => responseOf({ text: "x" }) };',
      "const host = createHost(app, { model, store: memoryStore() });",
      "const opened = [];",
      "for (let i = 0; i < 20; i++) {",
      '  const w = host.window("c" + i, { user: { name: "A" } });',
      "  await w.ready;",
      "  opened.push(w.phases.at);",
      "}",
      "const [a, b] = opened.slice(-2);",
      "console.log(JSON.stringify([a.where.phase, %HaveSameMap(a, b)]));",
      "await host.close();",
    ].join("\n");
    const out = execFileSync(
      process.execPath,
      ["--allow-natives-syntax", ...SOURCE_NODE_ARGS, "--input-type=module", "-e", script],
      { cwd: root, encoding: "utf8" },
    );
    expect(JSON.parse(out.trim())).toEqual(["serving", true]);
  });
});
