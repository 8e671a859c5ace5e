// @vitest-environment happy-dom
/**
 * `AssistantProvider` and `useAssistant()` over the store: one render per
 * change of the snapshot and none between (the render count), the actions,
 * the stream open while a component listens, a store given or made, and a
 * clear error outside a provider.
 */
import { act, cleanup, render, renderHook, screen } from "@testing-library/react";
import {
  type AssistantClient,
  AssistantProvider,
  type AssistantSnapshot,
  createAssistantStore,
  type UseAssistant,
  useAssistant,
} from "elyra-assistant/react";
import { type ReactNode, StrictMode, useState } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { answeredTurn, askedToDelete, fakeClient, numbered } from "../ui/fixtures.ts";

afterEach(cleanup);

/** Records each snapshot it renders with. */
function Probe({ seen }: { seen: AssistantSnapshot[] }) {
  const { snapshot } = useAssistant();
  seen.push(snapshot);
  return <p>{snapshot.items.length}</p>;
}

/** A parent that can render again for its own reasons (its own state). */
function Parent(props: {
  client: AssistantClient;
  seen: AssistantSnapshot[];
  onRerender: (rerender: () => void) => void;
}) {
  const [, setCount] = useState(0);
  props.onRerender(() => setCount((n) => n + 1));
  return (
    <AssistantProvider client={props.client}>
      <Probe seen={props.seen} />
    </AssistantProvider>
  );
}

function Busy() {
  return <p>{useAssistant().snapshot.busy ? "busy" : "idle"}</p>;
}

/** The answered confirmations a component reads from `useAssistant()`: what ran, and what changed. */
function Answers() {
  const { snapshot } = useAssistant();
  return (
    <ul>
      {snapshot.items.flatMap((item) =>
        item.kind === "confirm" && item.answer !== undefined
          ? [<li key={item.confirmId}>{JSON.stringify([item.editedArgs, item.changes])}</li>]
          : [],
      )}
    </ul>
  );
}

describe("useAssistant", () => {
  it("renders once per change of the snapshot, and not between events", () => {
    const fake = fakeClient();
    const errors = vi.spyOn(console, "error");
    const seen: AssistantSnapshot[] = [];
    let rerenderParent = () => {};
    render(
      <Parent
        client={fake.client}
        seen={seen}
        onRerender={(rerender) => {
          rerenderParent = rerender;
        }}
      />,
    );
    // The first render, then the stream opened (connected: true) as it subscribed.
    expect(seen.map((s) => s.connected)).toEqual([false, true]);

    const turn = numbered(answeredTurn(1, "Hi", ["Hel", "lo", "!"]));
    act(() => fake.emit(...turn.slice(0, 3)));
    act(() => fake.emit(...turn.slice(3)));
    // Each act batches what it saw: one render per act that changed something.
    expect(seen).toHaveLength(4);
    const afterTurn = seen.at(-1);
    expect(afterTurn?.items.at(-1)).toMatchObject({ kind: "answer", text: "Hello!" });

    // Events that change nothing shown: the same seqs again, a selection the panel does not show.
    act(() => fake.emit(...turn));
    act(() =>
      fake.emit(
        ...numbered(
          [{ _tag: "SelectionChanged", turn: 1, kind: "customers", ids: [42], route: null }],
          turn.length + 1,
        ),
      ),
    );
    expect(seen).toHaveLength(4);

    // The parent renders again for its own reasons: the snapshot is the same object.
    act(() => rerenderParent());
    expect(seen).toHaveLength(5);
    expect(seen[4]).toBe(afterTurn);
    expect(new Set(seen).size).toBe(4);
    // React never said that getSnapshot should be cached.
    expect(errors).not.toHaveBeenCalled();
    errors.mockRestore();
  });

  it("keeps the waiting questions and the actions the same between changes", () => {
    const fake = fakeClient();
    const wrapper = ({ children }: { children: ReactNode }) => (
      <AssistantProvider client={fake.client}>{children}</AssistantProvider>
    );
    const { result } = renderHook(() => useAssistant(), { wrapper });
    const before: UseAssistant = result.current;
    act(() =>
      fake.emit(
        ...numbered([
          { _tag: "TurnStarted", turn: 1, text: "Delete 42", route: null, note: null },
          askedToDelete(42),
        ]),
      ),
    );
    const asked = result.current;
    expect(asked.snapshot.waiting.map((q) => q.confirmId)).toEqual(["c42"]);
    act(() =>
      fake.emit(
        ...numbered(
          [
            { _tag: "StepStarted", turn: 1, step: 0 },
            { _tag: "TextDelta", turn: 1, step: 0, text: "Asking you first." },
          ],
          3,
        ),
      ),
    );
    expect(result.current.snapshot).not.toBe(asked.snapshot);
    expect(result.current.snapshot.waiting).toBe(asked.snapshot.waiting);
    for (const action of ["prompt", "confirm", "stop", "reset", "select", "open"] as const)
      expect(result.current[action]).toBe(before[action]);
  });

  it("sends each action through the store", async () => {
    const fake = fakeClient();
    const wrapper = ({ children }: { children: ReactNode }) => (
      <AssistantProvider client={fake.client}>{children}</AssistantProvider>
    );
    const { result } = renderHook(() => useAssistant(), { wrapper });
    act(() =>
      fake.emit(
        ...numbered([
          { _tag: "TurnStarted", turn: 1, text: "Delete 42", route: null, note: null },
          askedToDelete(42),
        ]),
      ),
    );
    await act(async () => {
      expect(await result.current.prompt("Hi")).toBe(true);
      expect(await result.current.prompt("  ")).toBe(false);
      expect(await result.current.confirm("c42", false)).toEqual({
        _tag: "Answered",
        answer: "declined",
      });
      await result.current.confirm("c42", true, { id: 43 });
      // A question this store never showed: the edit goes alone, for the host to judge.
      await result.current.confirm("c9", true, { id: 9 });
      await result.current.select("customers", [42, 43]);
      await result.current.stop();
      await result.current.reset();
    });
    expect(fake.calls).toEqual([
      { method: "prompt", args: ["Hi", "/"] },
      {
        method: "confirm",
        args: ["c42", false, { tool: "customers_destroy", args: { id: 42 } }],
      },
      {
        method: "confirm",
        args: ["c42", true, { tool: "customers_destroy", args: { id: 42 }, edited: { id: 43 } }],
      },
      { method: "confirm", args: ["c9", true, { edited: { id: 9 } }] },
      { method: "selected", args: ["customers", [42, 43], "/"] },
      { method: "stop", args: [] },
      { method: "reset", args: [] },
    ]);

    await act(async () => {
      await result.current.open("Which invoices are overdue?");
    });
    expect(result.current.snapshot.open).toBe(true);
    expect(fake.calls.at(-1)).toEqual({
      method: "prompt",
      args: ["Which invoices are overdue?", "/"],
    });
    act(() => result.current.toggle());
    expect(result.current.snapshot.open).toBe(false);
  });

  it("keeps the stream open while a component listens, and closes it after the last", () => {
    const fake = fakeClient();
    const view = render(
      <AssistantProvider client={fake.client}>
        <Busy />
        <Busy />
      </AssistantProvider>,
    );
    expect(fake.streams.map((s) => s.open)).toEqual([true]);
    view.unmount();
    expect(fake.streams.map((s) => s.open)).toEqual([false]);
  });

  it("under StrictMode, ends with one open stream and follows it", () => {
    const fake = fakeClient();
    render(
      <StrictMode>
        <AssistantProvider client={fake.client}>
          <Busy />
        </AssistantProvider>
      </StrictMode>,
    );
    // StrictMode subscribes, unsubscribes and subscribes again: the first stream is closed.
    expect(fake.streams.filter((s) => s.open)).toHaveLength(1);
    const [started] = numbered(answeredTurn(1, "Hi", ["Hello"]));
    act(() => fake.emit(started!));
    expect(screen.getByText("busy")).toBeTruthy();
  });

  it("shares a store it is given with code outside React", () => {
    const fake = fakeClient();
    const store = createAssistantStore(fake.client, { open: true });
    const wrapper = ({ children }: { children: ReactNode }) => (
      <AssistantProvider client={fake.client} store={store}>
        {children}
      </AssistantProvider>
    );
    const { result } = renderHook(() => useAssistant(), { wrapper });
    expect(result.current.snapshot).toBe(store.getSnapshot());
    expect(result.current.snapshot.open).toBe(true);
    act(() => store.close());
    expect(result.current.snapshot.open).toBe(false);
  });

  it("makes one store per client, and a new one for another client", () => {
    const first = fakeClient();
    const second = fakeClient();
    let client = first.client;
    const wrapper = ({ children }: { children: ReactNode }) => (
      <AssistantProvider client={client}>{children}</AssistantProvider>
    );
    const { result, rerender } = renderHook(() => useAssistant(), { wrapper });
    act(() => first.emit(...numbered(answeredTurn(1, "Hi", ["Hello"]))));
    const prompt = result.current.prompt;
    rerender();
    expect(result.current.prompt).toBe(prompt);
    expect(result.current.snapshot.items).toHaveLength(2);

    client = second.client;
    rerender();
    expect(result.current.prompt).not.toBe(prompt);
    expect(result.current.snapshot.items).toEqual([]);
    expect(first.streams.map((s) => s.open)).toEqual([false]);
    expect(second.streams.map((s) => s.open)).toEqual([true]);
  });

  it("an answered confirmation the user changed carries the arguments approved and each change", () => {
    const fake = fakeClient();
    render(
      <AssistantProvider client={fake.client}>
        <Answers />
      </AssistantProvider>,
    );
    act(() =>
      fake.emit(
        ...numbered([
          { _tag: "TurnStarted", turn: 1, text: "Bill her 500", route: null, note: null },
          {
            _tag: "ConfirmRequested",
            turn: 1,
            confirmId: "c1",
            callId: "k1",
            tool: "invoices_store",
            description: "Create an invoice.",
            args: { customer_id: 7, amount: 500 },
            editable: [{ name: "amount", schema: { type: "number" } }],
          },
          {
            _tag: "ConfirmAnswered",
            turn: 1,
            confirmId: "c1",
            answer: "accepted",
            edited: true,
            args: { customer_id: 7, amount: 750 },
          },
        ]),
      ),
    );
    expect(JSON.parse(screen.getByRole("listitem").textContent ?? "null")).toEqual([
      { customer_id: 7, amount: 750 },
      [{ name: "amount", was: 500, now: 750 }],
    ]);
  });

  it("outside a provider, throws saying what to wrap it in", () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    expect(() => renderHook(() => useAssistant())).toThrow(
      "useAssistant() was called outside an <AssistantProvider>: wrap the components that use it in <AssistantProvider client={…}> (elyra-assistant/react).",
    );
    vi.restoreAllMocks();
  });
});
