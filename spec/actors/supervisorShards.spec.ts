/**
 * Windows opened one after another share a supervisor, 256 to a block: a
 * host of a few hundred windows runs one or two supervisors (about 10 KB
 * each), not 64, and each supervisor's children are numbered densely. A
 * window's supervisor still rebuilds its crashed conversation.
 */
import { createApp, createHost } from "elyra-assistant";
import { fakeModel } from "elyra-assistant/testing";
import { describe, expect, it } from "vitest";

const app = createApp({ commands: [], userAbilities: () => [], assistant: { allow: [] } });
const ada = { name: "Ada" };

/** A host whose supervisors' starts are counted, from XState's inspection. */
const counted = () => {
  const started: string[] = [];
  const host = createHost(app, {
    model: fakeModel().says("Yes."),
    inspect: (event) => {
      if (event.type !== "@xstate.actor") return;
      const ref = event.actorRef as { logic?: { config?: { id?: string } }; id?: string };
      if (ref.logic?.config?.id === "supervisor") started.push(ref.id ?? "");
    },
  });
  return { host, started };
};

describe("the host's supervisors", () => {
  it("300 windows opened in a row are two supervisors' (256 and 44), not 64", async () => {
    const { host, started } = counted();
    try {
      const windows = Array.from({ length: 300 }, (_, i) => host.window(`w${i}`, { user: ada }));
      await Promise.all(windows.map((w) => w.ready));
      expect(started).toHaveLength(2);
      // Each still runs its conversation.
      const last = windows.at(-1);
      expect((await last?.prompt("still there?"))?._tag).toBe("Answered");
    } finally {
      await host.close();
    }
  });
});
