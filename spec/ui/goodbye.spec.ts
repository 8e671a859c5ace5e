// @vitest-environment happy-dom
/**
 * The page saying goodbye: the client's `close()` posts `/close` with the
 * token and the client id, sent with `keepalive` so it still goes as the page
 * is left; the store's `goodbye()` closes its event stream first (so it does
 * not open the window again) and then says it; an installed store says it
 * when the page is left for good (`pagehide`), not when it is kept in the
 * back-forward cache, and no more once uninstalled.
 */
import {
  assistantClient,
  createAssistantStore,
  HostError,
  installAssistant,
} from "elyra-assistant/ui";
import { afterEach, describe, expect, it } from "vitest";
import { until } from "./fixtures.ts";

const fast = { firstMs: 5, maxMs: 20 };

interface Sent {
  readonly url: string;
  readonly method: string;
  readonly headers: Headers;
  readonly keepalive: boolean | undefined;
  readonly body: unknown;
}

/**
 * A `fetch` that records what is sent and what happens, in order: `GET
 * /events` streams nothing and stays open until its signal aborts; every
 * POST answers 204, or `status` when given, or fails to connect when
 * `unreachable`.
 */
const recordingFetch = (options: { status?: number; unreachable?: boolean } = {}) => {
  const sent: Sent[] = [];
  const happened: string[] = [];
  let openStreams = 0;
  const fetch = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const url = String(input);
    const method = init.method ?? "GET";
    const route = url.split("?")[0]?.split("/").at(-1);
    sent.push({
      url,
      method,
      headers: new Headers(init.headers),
      keepalive: init.keepalive,
      body: init.body,
    });
    happened.push(`${method} ${route}`);
    if (method === "GET") {
      openStreams++;
      let self: ReadableStreamDefaultController<Uint8Array> | undefined;
      const body = new ReadableStream<Uint8Array>({
        start: (controller) => {
          self = controller;
        },
      });
      init.signal?.addEventListener("abort", () => {
        openStreams--;
        happened.push(`abort ${route}`);
        self?.error(new DOMException("aborted", "AbortError"));
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    }
    if (options.unreachable) throw new TypeError("Failed to fetch");
    if (options.status !== undefined)
      return Response.json(
        { error: { type: "notYourWindow", message: "this window belongs to another user" } },
        { status: options.status },
      );
    return new Response(null, { status: 204 });
  };
  return {
    fetch: fetch as typeof globalThis.fetch,
    sent,
    happened,
    closes: () => sent.filter((s) => s.url.endsWith("/close")),
    openStreams: () => openStreams,
  };
};

/** A `pagehide` as the browser sends it; `persisted` when the page goes into the back-forward cache. */
const pagehide = (persisted: boolean): Event => {
  const event = new Event("pagehide");
  Object.defineProperty(event, "persisted", { value: persisted });
  return event;
};

const settle = () => new Promise((resolve) => setTimeout(resolve, 60));

const uninstalls: Array<() => void> = [];
afterEach(() => {
  for (const uninstall of uninstalls.splice(0)) uninstall();
});

describe("the client's close()", () => {
  it("posts /close with the token and the client id, sent with keepalive and no body", async () => {
    const host = recordingFetch();
    const client = assistantClient({
      token: "t0k",
      clientId: "tab-1",
      baseUrl: "/api/assistant/",
      fetch: host.fetch,
    });
    await expect(client.close()).resolves.toBeUndefined();
    expect(host.sent).toHaveLength(1);
    const [close] = host.sent;
    expect(close?.url).toBe("/api/assistant/close");
    expect(close?.method).toBe("POST");
    expect(close?.keepalive).toBe(true);
    expect(close?.body).toBeUndefined();
    expect(close?.headers.get("x-elyra-token")).toBe("t0k");
    expect(close?.headers.get("x-elyra-client")).toBe("tab-1");

    // Only the goodbye is sent with keepalive: it has a small budget the page shares.
    await client.stop();
    expect(host.sent[1]).toMatchObject({ url: "/api/assistant/stop", method: "POST" });
    expect(host.sent[1]?.keepalive).toBeUndefined();
  });

  it("a close the host refuses rejects with the host's error", async () => {
    const host = recordingFetch({ status: 403 });
    const client = assistantClient({ token: "t0k", clientId: "tab-1", fetch: host.fetch });
    const refused = await client.close().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(HostError);
    expect(refused).toMatchObject({ status: 403, type: "notYourWindow" });
  });
});

describe("the store's goodbye()", () => {
  it("closes the event stream first, then posts /close with keepalive; the stream is not opened again", async () => {
    const host = recordingFetch();
    const client = assistantClient({
      token: "t0k",
      clientId: "tab-1",
      fetch: host.fetch,
      backoff: fast,
    });
    const store = createAssistantStore(client);
    store.subscribe(() => {});
    await until(() => store.getSnapshot().connected);
    expect(host.openStreams()).toBe(1);

    store.goodbye();
    await until(() => host.closes().length === 1);
    // Longer than the backoff: a stream that was only dropped would have been opened again.
    await settle();
    expect(host.happened).toEqual(["GET events", "abort events", "POST close"]);
    expect(host.openStreams()).toBe(0);
    expect(store.getSnapshot().connected).toBe(false);
    const [close] = host.closes();
    expect(close?.keepalive).toBe(true);
    expect(close?.headers.get("x-elyra-token")).toBe("t0k");
    expect(close?.headers.get("x-elyra-client")).toBe("tab-1");
  });

  it("says goodbye even when nothing listens, and a failure to reach the host is swallowed", async () => {
    const host = recordingFetch({ unreachable: true });
    const store = createAssistantStore(
      assistantClient({ token: "t0k", clientId: "tab-1", fetch: host.fetch }),
    );
    expect(store.goodbye()).toBeUndefined();
    await until(() => host.closes().length === 1);
    await settle();
    expect(host.happened).toEqual(["POST close"]);
    // Nothing is left to show it to: the snapshot is untouched (and nothing rejects unhandled).
    expect(store.getSnapshot().error).toBeNull();
  });
});

describe("installAssistant and pagehide", () => {
  const installed = () => {
    const host = recordingFetch();
    const client = assistantClient({
      token: "t0k",
      clientId: "tab-1",
      fetch: host.fetch,
      backoff: fast,
    });
    const store = createAssistantStore(client);
    const uninstall = installAssistant(store);
    uninstalls.push(uninstall);
    return { host, store, uninstall };
  };

  it("a page left for good says goodbye once, with keepalive, and its stream closes", async () => {
    const { host, store } = installed();
    store.subscribe(() => {});
    await until(() => store.getSnapshot().connected);

    window.dispatchEvent(pagehide(false));
    await until(() => host.closes().length > 0);
    await settle();
    expect(host.closes()).toHaveLength(1);
    expect(host.closes()[0]).toMatchObject({ method: "POST", keepalive: true });
    expect(host.closes()[0]?.headers.get("x-elyra-token")).toBe("t0k");
    expect(host.closes()[0]?.headers.get("x-elyra-client")).toBe("tab-1");
    expect(host.openStreams()).toBe(0);
    expect(host.happened).toEqual(["GET events", "abort events", "POST close"]);
  });

  it("a page kept in the back-forward cache does not say goodbye", async () => {
    const { host, store } = installed();
    store.subscribe(() => {});
    await until(() => store.getSnapshot().connected);
    window.dispatchEvent(pagehide(true));
    await settle();
    expect(host.closes()).toEqual([]);
    expect(host.openStreams()).toBe(1);
  });

  it("once uninstalled, the page leaving sends nothing", async () => {
    const { host, uninstall } = installed();
    uninstall();
    window.dispatchEvent(pagehide(false));
    await settle();
    expect(host.sent).toEqual([]);
  });

  it("each installed store's listener is its own: uninstalling one leaves the other's", async () => {
    const first = installed();
    const second = installed();
    first.uninstall();
    window.dispatchEvent(pagehide(false));
    await until(() => second.host.closes().length > 0);
    await settle();
    expect(first.host.sent).toEqual([]);
    expect(second.host.closes()).toHaveLength(1);
  });
});
