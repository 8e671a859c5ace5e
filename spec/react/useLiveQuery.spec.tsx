// @vitest-environment happy-dom
/**
 * `useLiveQuery(command, args)` over the client's `/live` stream: each result
 * rendered, a refusal shown, the query closed on unmount, and reopened only
 * when the command or the arguments (by canonical JSON) change.
 */
import { act, cleanup, render, screen } from "@testing-library/react";
import {
  type AssistantClient,
  type AssistantError,
  AssistantProvider,
  assistantClient,
  HostError,
  type LiveResult,
  useLiveQuery,
} from "elyra-assistant/react";
import { afterEach, describe, expect, it } from "vitest";
import { fakeClient } from "../ui/fixtures.ts";

afterEach(cleanup);

interface Query {
  readonly command: string;
  readonly args: unknown;
  readonly result: (result: LiveResult) => void;
  readonly error: (error: AssistantError) => void;
  open: boolean;
}

/** The fake client with live queries the spec answers. */
const liveClient = () => {
  const queries: Query[] = [];
  const client: AssistantClient = {
    ...fakeClient().client,
    live: (command, args, onResult, onError) => {
      const query: Query = {
        command,
        args,
        result: (r) => act(() => onResult(r)),
        error: (e) => act(() => onError?.(e)),
        open: true,
      };
      queries.push(query);
      return () => {
        query.open = false;
      };
    },
  };
  return { client, queries, open: () => queries.filter((q) => q.open) };
};

function Customer({ id, note }: { id: number; note?: string }) {
  const { result, error } = useLiveQuery("customers_show", { id, ...(note ? { note } : {}) });
  if (error !== undefined) return <p role="alert">{error.message}</p>;
  if (result === undefined) return <p>Loading…</p>;
  if (result._tag === "Failed") return <p role="alert">{result.error}</p>;
  return <p>{(result.value as { name: string }).name}</p>;
}

/** The same arguments, their keys in one order or the other. */
function Invoices({ flip }: { flip: boolean }) {
  const args = flip ? { page: 1, customer_id: 42 } : { customer_id: 42, page: 1 };
  const { result } = useLiveQuery("invoices_index", args);
  return <p>{result === undefined ? "…" : "ready"}</p>;
}

describe("useLiveQuery", () => {
  it("renders each result as it comes, and closes the query on unmount", () => {
    const live = liveClient();
    const view = render(
      <AssistantProvider client={live.client}>
        <Customer id={42} />
      </AssistantProvider>,
    );
    expect(screen.getByText("Loading…")).toBeTruthy();
    expect(live.open().map((q) => [q.command, q.args])).toEqual([["customers_show", { id: 42 }]]);
    const [query] = live.queries;
    query?.result({ _tag: "Result", value: { name: "Ada Lovelace" } });
    expect(screen.getByText("Ada Lovelace")).toBeTruthy();
    query?.result({ _tag: "Result", value: { name: "Ada King" } });
    expect(screen.getByText("Ada King")).toBeTruthy();
    query?.result({ _tag: "Failed", error: "customer 42 was not found" });
    expect(screen.getByRole("alert").textContent).toBe("customer 42 was not found");

    view.unmount();
    expect(live.open()).toEqual([]);
    expect(live.queries).toHaveLength(1);
  });

  it("shows a refusal until a result comes", () => {
    const live = liveClient();
    render(
      <AssistantProvider client={live.client}>
        <Customer id={42} />
      </AssistantProvider>,
    );
    live.queries[0]?.error(
      new HostError({ status: 403, type: "LiveQueryRefused", message: "not allowed" }),
    );
    expect(screen.getByRole("alert").textContent).toBe("not allowed");
    live.queries[0]?.result({ _tag: "Result", value: { name: "Ada Lovelace" } });
    expect(screen.getByText("Ada Lovelace")).toBeTruthy();
  });

  it("reopens only when the arguments change, compared by canonical JSON", () => {
    const live = liveClient();
    const customer = (id: number, note?: string) => (
      <AssistantProvider client={live.client}>
        <Customer id={id} {...(note ? { note } : {})} />
      </AssistantProvider>
    );
    const view = render(customer(42));
    live.queries[0]?.result({ _tag: "Result", value: { name: "Ada Lovelace" } });
    // A new args object of the same JSON at each render: the query stays.
    view.rerender(customer(42));
    expect(live.queries).toHaveLength(1);
    expect(screen.getByText("Ada Lovelace")).toBeTruthy();

    view.rerender(customer(7));
    expect(live.queries.map((q) => q.open)).toEqual([false, true]);
    expect(live.queries[1]?.args).toEqual({ id: 7 });
    // What customer 42 had is not shown for customer 7, and its late news is dropped.
    expect(screen.getByText("Loading…")).toBeTruthy();
    live.queries[0]?.result({ _tag: "Result", value: { name: "Ada Lovelace" } });
    expect(screen.getByText("Loading…")).toBeTruthy();
    live.queries[1]?.result({ _tag: "Result", value: { name: "Grace Hopper" } });
    expect(screen.getByText("Grace Hopper")).toBeTruthy();

    view.rerender(customer(7, "vip"));
    expect(live.open().map((q) => q.args)).toEqual([{ id: 7, note: "vip" }]);
  });

  it("reopens on another client, showing nothing of the first one's", () => {
    const first = liveClient();
    const second = liveClient();
    const view = render(
      <AssistantProvider client={first.client}>
        <Customer id={42} />
      </AssistantProvider>,
    );
    first.queries[0]?.result({ _tag: "Result", value: { name: "Ada Lovelace" } });
    view.rerender(
      <AssistantProvider client={second.client}>
        <Customer id={42} />
      </AssistantProvider>,
    );
    expect(first.open()).toEqual([]);
    expect(second.open()).toHaveLength(1);
    expect(screen.getByText("Loading…")).toBeTruthy();
  });

  it("opens one query per component, keyed the same whatever the order of the keys", () => {
    const live = liveClient();
    const view = render(
      <AssistantProvider client={live.client}>
        <Invoices flip={false} />
      </AssistantProvider>,
    );
    view.rerender(
      <AssistantProvider client={live.client}>
        <Invoices flip={true} />
      </AssistantProvider>,
    );
    expect(live.queries).toHaveLength(1);
  });

  it("reads GET /live through the real client, and aborts it on unmount", async () => {
    const requests: Array<{ url: string; signal: AbortSignal | undefined }> = [];
    const fetch = async (input: RequestInfo | URL, init: RequestInit = {}) => {
      requests.push({ url: String(input), signal: init.signal ?? undefined });
      const frame = `data: ${JSON.stringify({ _tag: "Result", value: { name: "Ada Lovelace" } })}\n\n`;
      const body = new ReadableStream<Uint8Array>({
        start: (controller) => controller.enqueue(new TextEncoder().encode(frame)),
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    };
    const client = assistantClient({ token: "t", clientId: "tab-1", fetch });
    const view = render(
      <AssistantProvider client={client}>
        <Customer id={42} note="vip" />
      </AssistantProvider>,
    );
    expect(await screen.findByText("Ada Lovelace")).toBeTruthy();
    const url = new URL(requests[0]?.url ?? "", "http://app.test");
    expect(url.pathname).toBe("/__assistant/live");
    expect(url.searchParams.get("command")).toBe("customers_show");
    expect(url.searchParams.get("args")).toBe('{"id":42,"note":"vip"}');
    expect(requests[0]?.signal?.aborted).toBe(false);
    view.unmount();
    expect(requests[0]?.signal?.aborted).toBe(true);
  });
});
