/**
 * The event names the host's machines see are a fixed few, whatever the
 * number of windows. XState keeps, for every state node, the transitions it
 * looked up for each event name it ever saw, for as long as the machine
 * lives: a name made per window (a recovery's or a confirmation's
 * `xstate.done.actor.<id>`) would hold memory for every window ever opened.
 */
import { createHost } from "elyra-assistant";
import { fakeModel } from "elyra-assistant/testing";
import { describe, expect, it } from "vitest";
import type * as xstate from "xstate";
import { spyApp, type TestUser } from "../fixtures/spyCommands.ts";

const ada: TestUser = { name: "Ada", abilities: ["customers.*"] };

/** The names of the events the host's machines received, over `windows` windows each asked once. */
const eventNamesOver = async (windows: number): Promise<Set<string>> => {
  const app = spyApp({ confirm: ["customers.delete"] });
  let model = fakeModel();
  for (let i = 0; i < windows; i++)
    model = model.toolCall("customers_delete", { id: 1 }).says("Kept.");
  const names = new Set<string>();
  const host = createHost(app, {
    model,
    inspect: (inspected) => {
      if (inspected.type !== "@xstate.event") return;
      const { actorRef, event } = inspected as unknown as xstate.InspectedEventEvent;
      const machine = (actorRef.getSnapshot() as { machine?: { id: string } }).machine?.id;
      if (machine === "supervisor" || machine === "conversation") names.add(event.type);
    },
  });
  for (let i = 0; i < windows; i++) {
    const w = host.window(`w${i}`, { user: ada });
    const s = w.events$().subscribe((e) => {
      if (e._tag === "ConfirmRequested") void w.confirm(e.confirmId, false);
    });
    await w.prompt("Delete customer 1");
    s.unsubscribe();
    await host.closeWindow(`w${i}`, { user: ada });
  }
  await host.close();
  return names;
};

describe("the event names the host's machines see", () => {
  it("do not grow with the windows opened: recoveries and confirmations report under fixed names", async () => {
    const few = await eventNamesOver(2);
    const many = await eventNamesOver(12);
    expect([...many].filter((name) => !few.has(name))).toEqual([]);
    expect(few.has("RECOVERED")).toBe(true);
  });
});
