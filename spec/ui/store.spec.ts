// @vitest-environment happy-dom
/** The store folds the log like the host does, keeps snapshots stable between changes, and resumes without repeats. */
import { panelItems } from "elyra-assistant/log";
import {
  assistant,
  assistantClient,
  createAssistantStore,
  installAssistant,
  openAssistant,
} from "elyra-assistant/ui";
import { describe, expect, it } from "vitest";
import { answeredTurn, askedToDelete, fakeClient, fakeHost, numbered, until } from "./fixtures.ts";

describe("createAssistantStore", () => {
  it("folds the events with panelItems, as the host does", () => {
    const fake = fakeClient();
    const store = createAssistantStore(fake.client);
    const events = numbered([
      ...answeredTurn(1, "Hi", ["Hel", "lo"]),
      { _tag: "TurnStarted", turn: 2, text: "Delete her", route: "/customers/42", note: null },
      {
        _tag: "ToolStarted",
        turn: 2,
        callId: "k1",
        tool: "customers_show",
        caller: { type: "direct" },
      },
      {
        _tag: "ToolFinished",
        turn: 2,
        callId: "k1",
        ok: true,
        outcome: "ok",
        link: "/customers/42",
      },
      {
        _tag: "ConfirmRequested",
        turn: 2,
        confirmId: "c1",
        callId: "k2",
        tool: "customers_delete",
        description: "Delete a customer.",
        args: { id: 42 },
      },
    ]);
    const unsubscribe = store.subscribe(() => {});
    fake.emit(...events);
    const expected = panelItems.fold(events);
    expect(store.getSnapshot()).toEqual({
      open: false,
      busy: true,
      items: expected.items,
      connected: true,
      error: null,
      // The question still waiting, for a launcher or an app to show.
      waiting: [
        expect.objectContaining({ kind: "confirm", confirmId: "c1", tool: "customers_delete" }),
      ],
    });
    unsubscribe();
  });

  it("exposes the questions waiting, the same array until they change, and none once answered", () => {
    const fake = fakeClient();
    const store = createAssistantStore(fake.client);
    const unsubscribe = store.subscribe(() => {});
    const events = numbered([
      { _tag: "TurnStarted", turn: 1, text: "Delete her", route: null, note: null },
      {
        _tag: "ToolStarted",
        turn: 1,
        callId: "k42",
        tool: "customers_destroy",
        caller: { type: "direct" },
      },
      askedToDelete(42),
      { _tag: "TextDelta", turn: 1, step: 1, text: "…" },
      { _tag: "ConfirmAnswered", turn: 1, confirmId: "c42", answer: "declined" },
    ]);
    expect(store.getSnapshot().waiting).toEqual([]);
    fake.emit(...events.slice(0, 3));
    const waiting = store.getSnapshot().waiting;
    expect(waiting.map((q) => q.confirmId)).toEqual(["c42"]);
    fake.emit(events[3]!);
    expect(store.getSnapshot().waiting).toBe(waiting);
    fake.emit(events[4]!);
    expect(store.getSnapshot().waiting).toEqual([]);
    unsubscribe();
  });

  it("installAssistant(store, { openOnQuestion }) opens the closed panel when a question arrives; without it, it stays closed", () => {
    for (const openOnQuestion of [true, false]) {
      const fake = fakeClient();
      const store = createAssistantStore(fake.client);
      const uninstall = installAssistant(store, { openOnQuestion });
      const unsubscribe = store.subscribe(() => {});
      fake.emit(
        ...numbered([
          { _tag: "TurnStarted", turn: 1, text: "Delete her", route: null, note: null },
          askedToDelete(42),
        ]),
      );
      expect(store.getSnapshot().open).toBe(openOnQuestion);
      unsubscribe();
      uninstall();
    }
  });

  it("keeps the same snapshot object until something changes, as useSyncExternalStore needs", () => {
    const fake = fakeClient();
    const store = createAssistantStore(fake.client);
    const seen: unknown[] = [];
    const unsubscribe = store.subscribe((snapshot) => seen.push(snapshot));
    // Svelte's contract: the listener hears the current value at once (then the stream opened).
    expect(seen).toHaveLength(2);
    expect(seen[0]).toMatchObject({ connected: false });
    const before = store.getSnapshot();
    expect(seen[1]).toBe(before);
    expect(store.getSnapshot()).toBe(before);
    expect(Object.isFrozen(before)).toBe(true);

    const [started, step, delta] = numbered(answeredTurn(1, "Hi", ["Hel"]));
    fake.emit(started!);
    const afterTurn = store.getSnapshot();
    expect(afterTurn).not.toBe(before);
    expect(seen).toHaveLength(3);
    expect(seen[2]).toBe(afterTurn);

    // An event that changes nothing the panel shows: no notification, the same object.
    fake.emit(step!);
    expect(store.getSnapshot()).toBe(afterTurn);
    expect(seen).toHaveLength(3);

    fake.emit(delta!);
    const afterDelta = store.getSnapshot();
    expect(afterDelta).not.toBe(afterTurn);
    expect(afterDelta.items[0]).toBe(afterTurn.items[0]); // unchanged items keep their identity
    expect(store.getSnapshot()).toBe(afterDelta);

    store.close(); // already closed: no change
    expect(store.getSnapshot()).toBe(afterDelta);
    store.toggle();
    expect(store.getSnapshot().open).toBe(true);
    store.toggle();
    expect(store.getSnapshot().open).toBe(false);
    unsubscribe();
  });

  it("opens the stream while someone listens and resumes from the last seq seen", () => {
    const fake = fakeClient();
    const store = createAssistantStore(fake.client);
    expect(fake.streams).toHaveLength(0);
    const a = store.subscribe(() => {});
    const b = store.subscribe(() => {});
    expect(fake.streams).toHaveLength(1);
    const events = numbered(answeredTurn(1, "Hi", ["Hi"]));
    fake.emit(...events);
    a();
    expect(fake.streams[0]?.open).toBe(true);
    b();
    expect(fake.streams[0]?.open).toBe(false);
    expect(store.getSnapshot().connected).toBe(false);
    store.subscribe(() => {});
    expect(fake.streams[1]?.fromSeq).toBe(events.at(-1)?.seq);
    // Repeats are dropped even if a stream sends them again.
    fake.emit(...events);
    expect(store.getSnapshot().items).toHaveLength(2);
  });

  it("over a stream that drops once, shows each event once", async () => {
    const host = fakeHost({ overlap: 3 });
    const events = numbered([
      ...answeredTurn(1, "One", ["O", "n", "e"]),
      ...answeredTurn(2, "Two", ["T", "w", "o"]),
    ]);
    host.append(...events.slice(0, 5));
    const client = assistantClient({
      token: "t",
      fetch: host.fetch,
      backoff: { firstMs: 5, maxMs: 20 },
    });
    const store = createAssistantStore(client);
    const connected: boolean[] = [];
    const unsubscribe = store.subscribe((s) => connected.push(s.connected));
    await until(() => store.getSnapshot().items.length === 2);
    host.drop();
    await until(() => !store.getSnapshot().connected);
    await until(() => store.getSnapshot().connected);
    host.append(...events.slice(5));
    await until(() => !store.getSnapshot().busy && store.getSnapshot().items.length === 4);
    expect(store.getSnapshot().items).toEqual(panelItems.fold(events).items);
    expect(store.getSnapshot().items.map((i) => (i.kind === "answer" ? i.text : i.kind))).toEqual([
      "user",
      "One",
      "user",
      "Two",
    ]);
    expect(
      host.requests.filter((r) => r.url.endsWith("/events"))[1]?.headers.get("last-event-id"),
    ).toBe("5");
    expect(connected).toContain(false);
    unsubscribe();
  });

  it("sends prompts with the route, and shows a refusal as its error without rejecting", async () => {
    const fake = fakeClient({ refuse: new Set(["stop"]) });
    const store = createAssistantStore(fake.client, { route: () => "/invoices" });
    expect(await store.open("Which are overdue?")).toBe(true);
    expect(store.getSnapshot().open).toBe(true);
    expect(await store.prompt("   ")).toBe(false);
    expect(await store.stop()).toBe(false);
    expect(store.getSnapshot().error).toMatchObject({ _tag: "HostError", type: "Refused" });
    expect(await store.selected("invoices", [7])).toBe(true);
    expect(store.getSnapshot().error).toBeNull();
    expect(fake.calls).toEqual([
      { method: "prompt", args: ["Which are overdue?", "/invoices"] },
      { method: "stop", args: [] },
      { method: "selected", args: ["invoices", [7], "/invoices"] },
    ]);
  });

  it("takes the route from the hash when the app routes by hash", async () => {
    const fake = fakeClient();
    const store = createAssistantStore(fake.client);
    location.hash = "#/customers/42";
    await store.prompt("Who is she?");
    expect(fake.calls[0]?.args).toEqual(["Who is she?", "/customers/42"]);
    location.hash = "";
  });

  it("answers a confirmation echoing the tool and arguments its dialog shows", async () => {
    const fake = fakeClient();
    const store = createAssistantStore(fake.client);
    const unsubscribe = store.subscribe(() => {});
    fake.emit(
      ...numbered([
        { _tag: "TurnStarted", turn: 1, text: "Delete 42", route: null, note: null },
        {
          _tag: "ConfirmRequested",
          turn: 1,
          confirmId: "c9",
          callId: "k1",
          tool: "customers_delete",
          description: "Delete a customer.",
          args: { id: 42 },
        },
      ]),
    );
    await store.confirm("c9", false);
    expect(fake.calls).toEqual([
      { method: "confirm", args: ["c9", false, { tool: "customers_delete", args: { id: 42 } }] },
    ]);
    unsubscribe();
  });
});

describe("the installed assistant", () => {
  it("does nothing when no assistant is installed", async () => {
    expect(await assistant.selected("customers", [1])).toBe(false);
    expect(await openAssistant("Hi")).toBe(false);
  });

  it("opens and tells selections to the installed store", async () => {
    const fake = fakeClient();
    const store = createAssistantStore(fake.client, { route: () => "/customers" });
    const uninstall = installAssistant(store);
    await assistant.selected("customers", [42, 43]);
    await openAssistant();
    expect(store.getSnapshot().open).toBe(true);
    await openAssistant("Summarise them");
    expect(fake.calls).toEqual([
      { method: "selected", args: ["customers", [42, 43], "/customers"] },
      { method: "prompt", args: ["Summarise them", "/customers"] },
    ]);
    uninstall();
    expect(await assistant.selected("customers", [])).toBe(false);
    expect(fake.calls).toHaveLength(2);
  });
});
