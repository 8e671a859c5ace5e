/**
 * Event streams written straight to Node's response when the handler is
 * served by toNodeListener: the same bytes as the web path, the heartbeat,
 * backpressure from the socket, the source let go when the client leaves,
 * the cut of a client too far behind, and startOver.
 */
import { createServer, get, type IncomingMessage, type Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { toNodeListener } from "elyra-assistant/http";
import { fakeModel } from "elyra-assistant/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { setup, TOKEN } from "./fixture.ts";

let server: Server | undefined;

afterEach(async () => {
  vi.restoreAllMocks();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

type Served = ReturnType<typeof setup>;

/** A client of the served handler: the raw text of a GET as it arrives, pausable. */
const serve = async (t: Served) => {
  server = createServer(toNodeListener(t.handle));
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return (path: string, headers: Record<string, string> = {}, paused = false) =>
    new Promise<{
      res: IncomingMessage;
      text: () => string;
      ended: () => boolean;
      close: () => void;
    }>((resolve, reject) => {
      const request = get(
        `http://127.0.0.1:${port}/__assistant/${path}`,
        {
          headers: {
            "x-elyra-token": TOKEN,
            "x-test-user": "ada",
            "x-elyra-client": "w1",
            ...headers,
          },
        },
        (res) => {
          let text = "";
          let ended = false;
          res.setEncoding("utf8");
          if (paused) res.pause();
          res.on("data", (chunk: string) => {
            text += chunk;
          });
          res.on("end", () => {
            ended = true;
          });
          res.on("error", () => undefined);
          resolve({ res, text: () => text, ended: () => ended, close: () => request.destroy() });
        },
      );
      request.on("error", reject);
    });
};

const idsOf = (text: string) => [...text.matchAll(/^id: (\S+)$/gm)].map((m) => m[1] as string);
const seqsOf = (text: string) =>
  [...text.matchAll(/^data: (.*)$/gm)].map(
    (m) => (JSON.parse(m[1] as string) as { seq: number }).seq,
  );

/** The web path's text of `/events` up to `length` characters. */
const webText = async (t: Served, length: number) => {
  const controller = new AbortController();
  const response = await t.call("events", { signal: controller.signal });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (text.length < length) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  controller.abort();
  await reader.cancel();
  return text;
};

/** Counts the feeds `follow` opens and has cancelled, and the events they give. */
/**
 * Every write says the response is full, and its drain is held back (loopback's buffers hold
 * far more than a test's log): the real socket's drain is told when the test lets go. The
 * length of each write of frames is noted.
 */
const backedUp = () => {
  const written: number[] = [];
  const drains: Array<() => void> = [];
  const write = ServerResponse.prototype.write;
  const once = ServerResponse.prototype.once;
  vi.spyOn(ServerResponse.prototype, "write").mockImplementation(function (
    this: ServerResponse,
    ...args: Parameters<typeof write>
  ) {
    const [chunk] = args;
    if (typeof chunk === "string" && chunk.includes("data:")) written.push(chunk.length);
    write.apply(this, args);
    return false;
  });
  vi.spyOn(ServerResponse.prototype, "once").mockImplementation(function (
    this: ServerResponse,
    event: string | symbol,
    listener: (...args: unknown[]) => void,
  ) {
    if (event !== "drain") return once.call(this, event, listener);
    drains.push(listener as () => void);
    return this;
  });
  return { written, drains };
};

const countFeeds = (t: Served) => {
  const counts = { open: 0, pulled: 0 };
  const follow = t.ada.follow.bind(t.ada);
  vi.spyOn(t.ada, "follow").mockImplementation(async (...args) => {
    const following = await follow(...args);
    counts.open++;
    const feed = following.feed;
    let cancelled = false;
    return {
      ...following,
      feed: {
        next: async () => {
          const values = await feed.next();
          counts.pulled += values?.length ?? 0;
          return values;
        },
        cancel: () => {
          if (!cancelled) counts.open--;
          cancelled = true;
          feed.cancel();
        },
      },
    };
  });
  return counts;
};

/** `n` events of selections (each under 1 KB once stored). */
const growBig = async (t: Served, n: number) => {
  const ids = Array.from({ length: 2_000 }, (_, i) => 10_000 + i);
  for (let i = 0; i < n; i++) await t.ada.select("customer", ids);
};

const settle = () => new Promise((resolve) => setTimeout(resolve, 150));

describe("event streams on node:http", () => {
  it("a turn's events arrive in order with the same bytes as the web path, as string writes", async () => {
    const t = setup(fakeModel().toolCall("customers_show", { id: 42 }).says("Her name is Ada."));
    await t.call("prompt", { body: "Who is 42?" });
    await vi.waitFor(() => expect(t.ada.lastSeq()).toBeGreaterThan(3));
    await t.ada.settled();
    const writes: unknown[] = [];
    const write = ServerResponse.prototype.write;
    vi.spyOn(ServerResponse.prototype, "write").mockImplementation(function (
      this: ServerResponse,
      ...args: Parameters<typeof write>
    ) {
      writes.push(args[0]);
      return write.apply(this, args);
    });
    const open = await serve(t);
    const client = await open("events");
    expect(client.res.statusCode).toBe(200);
    expect(client.res.headers["content-type"]).toBe("text/event-stream");
    expect(client.res.headers["cache-control"]).toBe("no-cache, no-transform");
    expect(client.res.headers["x-accel-buffering"]).toBe("no");
    await vi.waitFor(() => expect(seqsOf(client.text()).at(-1)).toBe(t.ada.lastSeq()));
    const onNode = client.text();
    expect(seqsOf(onNode)).toEqual(Array.from({ length: t.ada.lastSeq() }, (_, i) => i + 1));
    expect(idsOf(onNode)).toHaveLength(t.ada.lastSeq());
    // The Node path: the frames written as one string, no web stream's bytes.
    expect(writes).toContain(onNode);
    expect(writes.some((w) => w instanceof Uint8Array)).toBe(false);
    client.close();
    vi.restoreAllMocks();
    expect(await webText(t, onNode.length)).toBe(onNode);
  });

  it("sends the heartbeat while the client reads", async () => {
    const t = setup(fakeModel(), { heartbeatMs: 20 });
    const client = await (await serve(t))("events");
    await vi.waitFor(() => expect(client.text()).toContain(": ping\n\n"));
    client.close();
  });

  it("a response that is full is not pulled for again until it drains; then all arrive in order", async () => {
    const t = setup();
    for (let i = 0; i < 600; i++) await t.ada.select("customer", [i]);
    await t.ada.settled();
    const counts = countFeeds(t);
    const { drains } = backedUp();
    const client = await (await serve(t))("events");
    await settle();
    // One page pulled and written (the first: 16 events, before their size is known); none
    // more while the response is backed up.
    expect(counts.pulled).toBe(16);
    await settle();
    expect(counts.pulled).toBe(16);
    expect(drains).toHaveLength(1);
    vi.restoreAllMocks();
    for (const drained of drains.splice(0)) drained();
    await vi.waitFor(() => expect(seqsOf(client.text())).toHaveLength(600));
    expect(seqsOf(client.text())).toEqual(Array.from({ length: 600 }, (_, i) => i + 1));
    client.close();
  });

  it("a reader that stops reading holds a bounded number of bytes, not events: pages follow the events' size, and frames go out in pieces", async () => {
    const t = setup();
    // 40 events of about 20 KB each (100 ids of 200 characters, the most a selection keeps).
    for (let i = 0; i < 40; i++)
      await t.ada.select(
        "customer",
        Array.from({ length: 100 }, (_, n) => `${i}-${n}-`.padEnd(200, "x")),
      );
    await t.ada.settled();
    const pages: number[] = [];
    const follow = t.ada.follow.bind(t.ada);
    vi.spyOn(t.ada, "follow").mockImplementation(async (...args) => {
      const following = await follow(...args);
      const { feed } = following;
      return {
        ...following,
        feed: {
          next: async () => {
            const values = await feed.next();
            if (values !== undefined) pages.push(values.length);
            return values;
          },
          cancel: () => feed.cancel(),
        },
      };
    });
    const { written, drains } = backedUp();
    const client = await (await serve(t))("events");
    await settle();
    await settle();
    // Backed up after its first piece: one write of about 64 K characters (4 frames here),
    // though the first page read 16 events of the log (320 KB).
    expect(written).toHaveLength(1);
    expect(written[0]).toBeGreaterThan(60_000);
    expect(written[0]).toBeLessThan(64 * 1024 + 21_000);
    expect(pages).toEqual([16]);
    vi.restoreAllMocks();
    for (const drained of drains.splice(0)) drained();
    await vi.waitFor(() => expect(seqsOf(client.text())).toHaveLength(40), { timeout: 10_000 });
    expect(seqsOf(client.text())).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    // Every page after the first was sized by the bytes of the one before: about 256 KB.
    expect(pages.filter((n) => n > 0)).toEqual([16, 12, 12]);
    client.close();
  });

  it("a client that leaves has its feed cancelled", async () => {
    const t = setup();
    const counts = countFeeds(t);
    const client = await (await serve(t))("events");
    await t.ada.select("customer", [1]);
    await vi.waitFor(() => expect(seqsOf(client.text())).toHaveLength(1));
    expect(counts.open).toBe(1);
    client.close();
    await vi.waitFor(() => expect(counts.open).toBe(0));
  });

  it("a client too far behind is cut; resuming from its last id it misses nothing", async () => {
    const t = setup(fakeModel(), { maxEventsBehind: 50 });
    await growBig(t, 1_500);
    await t.ada.settled();
    const counts = countFeeds(t);
    const open = await serve(t);
    const client = await open("events", {}, true);
    await settle();
    // The socket is full: the new events wait in the feed, past what it keeps.
    for (let i = 0; i < 200; i++) await t.ada.select("customer", [i]);
    await t.ada.settled();
    client.res.resume();
    await vi.waitFor(() => expect(client.ended()).toBe(true), { timeout: 10_000 });
    await vi.waitFor(() => expect(counts.open).toBe(0));
    expect(t.errors).toEqual([]);
    const seen = seqsOf(client.text());
    expect(seen.length).toBeLessThan(1_700);
    const lastId = idsOf(client.text()).at(-1) as string;
    const rest = await open("events", { "last-event-id": lastId });
    await vi.waitFor(() => expect(seen.length + seqsOf(rest.text()).length).toBe(1_700), {
      timeout: 10_000,
    });
    expect([...seen, ...seqsOf(rest.text())]).toEqual(
      Array.from({ length: 1_700 }, (_, i) => i + 1),
    );
    rest.close();
  });

  it("a resume point past the log's end starts over: startOver first, then the whole log", async () => {
    const t = setup();
    await t.ada.select("customer", [1]);
    await t.ada.select("customer", [2]);
    await t.ada.settled();
    const client = await (await serve(t))("events", { "last-event-id": "7" });
    await vi.waitFor(() => expect(seqsOf(client.text()).slice(1)).toEqual([1, 2]));
    expect(client.text().startsWith("event: startOver\ndata: {}\n\n")).toBe(true);
    client.close();
  });
});
