/**
 * A command's `signal` aborts when its call is stopped, and only then: a
 * command that returned, whose step then ended, keeps a signal that never
 * aborts (its tool step's actor, stopped after the step, used to abort it
 * anyway, making a DOMException each tool step for nothing).
 */
import { createApp, createHost, defineCommand } from "elyra-assistant";
import { fakeModel } from "elyra-assistant/testing";
import { describe, expect, it, vi } from "vitest";

const ada = { name: "Ada" };

/** A command that keeps the signal each run was given, and finishes when told to (or at once). */
const probe = (hold: boolean) => {
  const signals: AbortSignal[] = [];
  let finish: (() => void) | undefined;
  const command = defineCommand({
    name: "reports_run",
    description: "Run a report.",
    can: "reports.run",
    args: {},
    run: (_args, { signal }) => {
      signals.push(signal);
      return hold
        ? new Promise<string>((resolve) => (finish = () => resolve("report ready")))
        : "report ready";
    },
  });
  const app = createApp({
    commands: [command],
    userAbilities: () => ["*"],
    assistant: { allow: ["*"] },
  });
  return { app, signals, finish: () => finish?.() };
};

describe("a command's signal", () => {
  it("is not aborted once its call returned and the turn went on to its answer", async () => {
    const { app, signals } = probe(false);
    const host = createHost(app, {
      model: fakeModel().toolCall("reports_run", {}).toolCall("reports_run", {}).says("Done."),
    });
    try {
      const w = host.window("w", { user: ada });
      expect((await w.prompt("run it twice"))._tag).toBe("Answered");
      await w.settled();
      expect(signals).toHaveLength(2);
      expect(signals.map((s) => s.aborted)).toEqual([false, false]);
    } finally {
      await host.close();
    }
  });

  it("is aborted when the turn is stopped while the command runs", async () => {
    const { app, signals, finish } = probe(true);
    const host = createHost(app, { model: fakeModel().toolCall("reports_run", {}).says("never") });
    try {
      const w = host.window("w", { user: ada });
      const end = w.prompt("run the report");
      await vi.waitFor(() => expect(signals).toHaveLength(1));
      expect(signals[0]?.aborted).toBe(false);
      w.stop();
      expect((await end)._tag).toBe("Stopped");
      expect(signals[0]?.aborted).toBe(true);
      finish();
      await w.settled();
    } finally {
      await host.close();
    }
  });
});
