// @vitest-environment happy-dom
/**
 * Issue 33, item 6: `useThreads()` and `useThread(id)` over the provider's
 * client: the list a page at a time, archived ones apart, a search's
 * results, rename, archive and remove (the list read again), failures as
 * `error`, an older answer never shown for a newer list, one thread by id,
 * and opening one in the store. A clear error outside a provider.
 */
import { act, cleanup, render, renderHook, waitFor } from "@testing-library/react";
import {
  type AssistantClient,
  AssistantProvider,
  createAssistantStore,
  useThread,
  useThreads,
} from "elyra-assistant/react";
import type { ReactNode } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fakeClient } from "../ui/fixtures.ts";
import { MINUTE, memoryThreads, thread, withThreads } from "../ui/threadFixtures.ts";

afterEach(cleanup);

/** The titles of the list, and of one thread. */
function Titles() {
  const { threads } = useThreads();
  const { thread } = useThread("t2");
  return (
    <p>
      {threads.map((t) => t.title).join(", ")} / {thread?.title ?? "…"}
    </p>
  );
}

const setup = (pageSize = 20) => {
  const memory = memoryThreads(
    [
      thread("t1", "Ada's limit", MINUTE),
      thread("t2", "Invoices", 2 * MINUTE),
      thread("t3", "Old one", 3 * MINUTE, { archived: true }),
    ],
    pageSize,
  );
  const fake = fakeClient();
  const { client, switched } = withThreads(fake.client, memory.threads);
  const store = createAssistantStore(client);
  const wrapper = ({ children }: { children: ReactNode }) => (
    <AssistantProvider client={client} store={store}>
      {children}
    </AssistantProvider>
  );
  return { memory, client, store, switched, fake, wrapper };
};

const ids = (threads: ReadonlyArray<{ id: string }>) => threads.map((t) => t.id);

describe("useThreads", () => {
  it("reads the list when it mounts, a page at a time, and the archived ones apart", async () => {
    const s = setup(1);
    const { result } = renderHook(() => useThreads(), { wrapper: s.wrapper });
    expect(result.current.loading).toBe(true);
    expect(result.current.threads).toEqual([]);
    await waitFor(() => expect(result.current.loading).toBe(false));
    expect(ids(result.current.threads)).toEqual(["t1"]);
    expect(result.current.hasMore).toBe(true);
    await act(() => result.current.more());
    expect(ids(result.current.threads)).toEqual(["t1", "t2"]);
    expect(result.current.hasMore).toBe(false);
    await act(() => result.current.more());
    expect(s.memory.asked.filter(([m]) => m === "list")).toHaveLength(2);

    const archived = renderHook(() => useThreads({ archived: true }), { wrapper: s.wrapper });
    await waitFor(() => expect(ids(archived.result.current.threads)).toEqual(["t3"]));
  });

  it("searches: the results with their snippets, and back to the list when the words are blank", async () => {
    const s = setup();
    const { result, rerender } = renderHook(
      ({ search }: { search: string }) => useThreads({ search }),
      { wrapper: s.wrapper, initialProps: { search: "ada" } },
    );
    await waitFor(() => expect(ids(result.current.threads)).toEqual(["t1"]));
    expect(result.current.threads[0]).toMatchObject({ snippet: "…The answer about Ada's limit.…" });
    expect(result.current.hasMore).toBe(false);
    rerender({ search: "  " });
    // Another list: the search's results are not shown for it while it loads.
    expect(result.current.threads).toEqual([]);
    await waitFor(() => expect(ids(result.current.threads)).toEqual(["t1", "t2"]));
  });

  it("renames, archives and removes, reading the list again; a refusal is the error", async () => {
    const s = setup();
    const { result } = renderHook(() => useThreads(), { wrapper: s.wrapper });
    await waitFor(() => expect(result.current.loading).toBe(false));
    expect(await act(() => result.current.rename("t2", "Overdue"))).toBe(true);
    expect(result.current.threads.find((t) => t.id === "t2")?.title).toBe("Overdue");
    expect(await act(() => result.current.archive("t1"))).toBe(true);
    expect(ids(result.current.threads)).toEqual(["t2"]);
    expect(await act(() => result.current.remove("t2"))).toBe(true);
    expect(result.current.threads).toEqual([]);
    expect(await act(() => result.current.remove("t2"))).toBe(false);
    expect(result.current.error).toMatchObject({ _tag: "HostError", type: "threadNotFound" });
    await act(() => result.current.refresh());
    expect(result.current.error).toBeUndefined();
  });

  it("drops the answer of a list no longer asked for", async () => {
    const s = setup();
    let release: () => void = () => {};
    const slow = vi.fn(
      () =>
        new Promise<{ threads: never[] }>((resolve) => {
          release = () => resolve({ threads: [] });
        }),
    );
    const threads = { ...s.memory.threads, search: slow };
    const client: AssistantClient = { ...s.client, threads };
    const wrapper = ({ children }: { children: ReactNode }) => (
      <AssistantProvider client={client}>{children}</AssistantProvider>
    );
    const { result, rerender } = renderHook(
      ({ search }: { search: string }) => useThreads({ search }),
      { wrapper, initialProps: { search: "slow" } },
    );
    rerender({ search: "" });
    await waitFor(() => expect(ids(result.current.threads)).toEqual(["t1", "t2"]));
    await act(async () => release());
    expect(ids(result.current.threads)).toEqual(["t1", "t2"]);
  });

  it("opens a thread, or a new conversation, in the provider's store", async () => {
    const s = setup();
    const { result } = renderHook(() => useThreads(), { wrapper: s.wrapper });
    await waitFor(() => expect(result.current.loading).toBe(false));
    act(() => result.current.open("t2"));
    expect(s.store.thread?.()).toBe("t2");
    act(() => result.current.open());
    expect(s.switched).toEqual(["t2", undefined]);
    expect(s.store.thread?.()).toBe("fresh1");
  });

  it("says what is missing: outside a provider, or a client without threads", () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    expect(() => renderHook(() => useThreads())).toThrow(/useThreads\(\) was called outside/);
    const plain = fakeClient().client;
    const wrapper = ({ children }: { children: ReactNode }) => (
      <AssistantProvider client={plain}>{children}</AssistantProvider>
    );
    expect(() => renderHook(() => useThread("t1"), { wrapper })).toThrow(/thread routes/);
    errors.mockRestore();
  });
});

describe("useThread", () => {
  it("reads one thread by id, again when the id changes; a thread not found is the error", async () => {
    const s = setup();
    const { result, rerender } = renderHook(({ id }: { id: string | undefined }) => useThread(id), {
      wrapper: s.wrapper,
      initialProps: { id: "t1" } as { id: string | undefined },
    });
    expect(result.current).toEqual({ thread: undefined, loading: true, error: undefined });
    await waitFor(() => expect(result.current.thread?.title).toBe("Ada's limit"));
    rerender({ id: "t2" });
    expect(result.current.thread).toBeUndefined();
    await waitFor(() => expect(result.current.thread?.title).toBe("Invoices"));
    rerender({ id: "gone" });
    await waitFor(() => expect(result.current.error).toMatchObject({ type: "threadNotFound" }));
    expect(result.current.thread).toBeUndefined();
    rerender({ id: undefined });
    expect(result.current).toEqual({ thread: undefined, loading: false, error: undefined });
  });

  it("renders a list component from the hooks", async () => {
    const s = setup();
    const view = render(<Titles />, { wrapper: s.wrapper });
    await waitFor(() =>
      expect(view.container.textContent).toBe("Ada's limit, Invoices / Invoices"),
    );
  });
});
