/** The handler on a real loopback server through toNodeListener, reached with fetch. */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { MAX_BODY_BYTES, toNodeListener } from "elyra-assistant/http";
import { fakeModel } from "elyra-assistant/testing";
import { finalize } from "rxjs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { readSse, setup, TOKEN } from "./fixture.ts";

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

const serve = async (t: ReturnType<typeof setup>) => {
  server = createServer(toNodeListener(t.handle));
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return (path: string, init: RequestInit & { user?: string } = {}) =>
    fetch(`http://127.0.0.1:${port}/__assistant/${path}`, {
      ...init,
      headers: {
        "x-elyra-token": TOKEN,
        "x-test-user": init.user ?? "ada",
        "x-elyra-client": "w1",
        ...(init.headers as Record<string, string> | undefined),
      },
    });
};

describe("toNodeListener", () => {
  it("serves a turn: prompt, the event stream as it happens, and a disconnect that unsubscribes", async () => {
    const t = setup(fakeModel().toolCall("customers_show", { id: 42 }).says("Her name is Ada."));
    let open = 0;
    const events$ = t.ada.events$.bind(t.ada);
    vi.spyOn(t.ada, "events$").mockImplementation((fromSeq) => {
      open++;
      return events$(fromSeq).pipe(finalize(() => open--));
    });
    const get = await serve(t);

    const controller = new AbortController();
    const response = await get("events", { signal: controller.signal });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("x-accel-buffering")).toBe("no");
    const stream = readSse(response);

    const prompt = await get("prompt", {
      method: "POST",
      body: JSON.stringify({ text: "Who is 42?", route: "/customers/42" }),
    });
    expect(prompt.status).toBe(202);
    expect(await prompt.json()).toEqual({ turn: 1 });

    await vi.waitFor(() => expect(stream.events().at(-1)?._tag).toBe("Answered"));
    expect(stream.events().map((e) => e.seq)).toEqual(stream.events().map((_, i) => i + 1));
    expect(t.spies.runs.get("customers_show")).toBe(1);

    controller.abort();
    await stream.done.catch(() => undefined);
    await vi.waitFor(() => expect(open).toBe(0));
  });

  it("a client that goes away ends its live query", async () => {
    const t = setup();
    const get = await serve(t);
    const controller = new AbortController();
    const args = encodeURIComponent(JSON.stringify({ id: 42 }));
    const response = await get(`live?command=customers_show&args=${args}`, {
      signal: controller.signal,
    });
    const stream = readSse(response);
    await vi.waitFor(() => expect(stream.values()).toHaveLength(1));
    expect(t.host.live.queries("w1")).toHaveLength(1);
    controller.abort();
    await stream.done.catch(() => undefined);
    await vi.waitFor(() => expect(t.host.live.queries("w1")).toEqual([]));
  });

  it("refusals and limits hold over the wire", async () => {
    const t = setup(fakeModel().says("Never."));
    const get = await serve(t);
    const forbidden = await get("prompt", {
      method: "POST",
      body: '"Hi"',
      headers: { "x-elyra-token": "nope" },
    });
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toMatchObject({ error: { type: "forbidden" } });

    const big = await get("prompt", {
      method: "POST",
      body: JSON.stringify("x".repeat(MAX_BODY_BYTES * 4)),
    });
    expect(big.status).toBe(413);
    // The connection still serves the next request.
    expect((await get("tools", { method: "POST" })).status).toBe(200);
    expect(t.model.requests).toHaveLength(0);
  });

  it("streams a request body that comes in pieces", async () => {
    const t = setup(fakeModel().says("Hi."));
    const get = await serve(t);
    const pieces = ['{"text":', '"Hello"', "}"].map((p) => new TextEncoder().encode(p));
    const body = new ReadableStream<Uint8Array>({
      pull: (controller) => {
        const next = pieces.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(next);
      },
    });
    const response = await get("prompt", {
      method: "POST",
      body,
      duplex: "half",
    } as RequestInit);
    expect(response.status).toBe(202);
    await vi.waitFor(() => expect(t.ada.state()).toBe("idle"));
    await t.ada.settled();
    expect(t.ada.history().messages[0]).toEqual({ role: "user", content: "Hello" });
  });
});
