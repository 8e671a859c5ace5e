/** The real SDK through the proxy to the stand-in: streams pass as they arrive, whole and byte for byte. */
import { says, toolCall } from "elyra-assistant/testing";
import { afterEach, describe, expect, it } from "vitest";
import { ask, MODEL, proxied, USER_TOKEN, until } from "./fixture.ts";

type Setup = Awaited<ReturnType<typeof proxied>>;
let setup: Setup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

/** A `fetch` that counts upstream's chunks as the proxy reads them, and keeps their bytes. */
const countingFetch = () => {
  const seen = { chunks: 0, ended: false, bytes: [] as Uint8Array[] };
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const response = await globalThis.fetch(input, init);
    if (response.body === null) return response;
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      pull: async (out) => {
        const next = await reader.read();
        if (next.done) {
          seen.ended = true;
          out.close();
          return;
        }
        seen.chunks++;
        seen.bytes.push(next.value);
        out.enqueue(next.value);
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
  return { seen, fetch };
};

const joined = (chunks: ReadonlyArray<Uint8Array>) => Buffer.concat(chunks).toString("utf8");

describe("streams through the proxy (P3)", () => {
  it("a turn with a tool step arrives whole, the first words before the rest is written", async () => {
    const upstream = countingFetch();
    setup = await proxied(
      [
        toolCall(
          "customers_find",
          { name: "Ada" },
          { text: "Let me look that up for you.", pieces: 6, paceMs: 150 },
        ),
        says("Ada Lovelace is a customer.", { usage: { inputTokens: 120, outputTokens: 40 } }),
      ],
      { fetch: upstream.fetch },
    );
    const tools = [
      {
        name: "customers_find",
        description: "Finds customers by name",
        input_schema: { type: "object" as const, properties: { name: { type: "string" } } },
      },
    ];
    const stream = setup.sdk.messages.stream({ ...ask("Who is Ada?"), tools });
    let chunksAtFirstText: number | undefined;
    stream.on("text", () => {
      chunksAtFirstText ??= upstream.seen.chunks;
    });
    const first = await stream.finalMessage();
    expect(first.stop_reason).toBe("tool_use");
    expect(first.content).toEqual([
      expect.objectContaining({ type: "text", text: "Let me look that up for you." }),
      expect.objectContaining({ type: "tool_use", name: "customers_find", input: { name: "Ada" } }),
    ]);
    // The stand-in writes its ~13 events 150 ms apart; the first words (the 3rd event, which
    // the SDK yields once the 4th begins) reached the client while most were still unwritten.
    expect(upstream.seen.chunks).toBeGreaterThan(10);
    expect(chunksAtFirstText).toBeGreaterThanOrEqual(3);
    expect(chunksAtFirstText).toBeLessThanOrEqual(4);

    const toolUse = first.content[1] as { id: string };
    const second = await setup.sdk.messages.create({
      ...ask("Who is Ada?"),
      tools,
      messages: [
        { role: "user", content: "Who is Ada?" },
        { role: "assistant", content: first.content },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: toolUse.id, content: "[]" }],
        },
      ],
      stream: true,
    });
    let text = "";
    for await (const event of second) {
      if (event.type === "content_block_delta" && event.delta.type === "text_delta") {
        text += event.delta.text;
      }
    }
    expect(text).toBe("Ada Lovelace is a customer.");
    expect(setup.api.requests).toHaveLength(2);
    await until(() => setup?.reports.length === 2);
    expect(setup.reports.map((r) => r.usage)).toEqual([
      // The stand-in sends the API's cache_creation too: none of the writes had the hour's TTL.
      {
        inputTokens: 10,
        outputTokens: 5,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        cacheWrite1hTokens: 0,
      },
      {
        inputTokens: 120,
        outputTokens: 40,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        cacheWrite1hTokens: 0,
      },
    ]);
    expect(setup.reports.every((r) => r.user.id === "ada" && r.model === MODEL)).toBe(true);
    expect(setup.usage.read("id:ada")).toEqual({ inputTokens: 130, outputTokens: 45, requests: 2 });
  });

  it("passes the event stream byte for byte, with no-buffering headers", async () => {
    const upstream = countingFetch();
    setup = await proxied([says("Straße, 東京 and 🎉 in pieces.", { chunkBytes: [1, 3, 7, 2] })], {
      fetch: upstream.fetch,
    });
    const response = await fetch(`${setup.url}/v1/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${USER_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ ...ask("Hi"), stream: true }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(response.headers.get("x-accel-buffering")).toBe("no");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    const received = Buffer.from(await response.arrayBuffer());
    expect(upstream.seen.ended).toBe(true);
    expect(received.equals(Buffer.concat(upstream.seen.bytes))).toBe(true);
    expect(joined(upstream.seen.bytes)).toContain("event: message_stop");
  });

  it("a request the client aborts mid-stream is reported once, with what was seen", async () => {
    setup = await proxied([
      says("Hello there, this never ends.", { stallAfter: 5, usage: { inputTokens: 77 } }),
    ]);
    const controller = new AbortController();
    const stream = await setup.sdk.messages.create(
      { ...ask("Hi"), stream: true },
      { signal: controller.signal },
    );
    const seen: string[] = [];
    try {
      for await (const event of stream) {
        seen.push(event.type);
        if (event.type === "content_block_delta") controller.abort();
      }
    } catch {
      // The SDK ends or throws on abort, by version; either way the client left.
    }
    expect(seen).toContain("message_start");
    await until(() => setup?.api.abandoned.length === 1);
    await until(() => setup?.reports.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(setup.reports).toHaveLength(1);
    expect(setup.reports[0]?.usage.inputTokens).toBe(77);
    expect(setup.usage.read("id:ada").requests).toBe(1);
  });

  it("a JSON answer is passed whole with its usage", async () => {
    setup = await proxied([says("Whole.", { usage: { inputTokens: 3, outputTokens: 2 } })]);
    const message = await setup.sdk.messages.create(ask("Hi"));
    expect(message.content).toEqual([expect.objectContaining({ type: "text", text: "Whole." })]);
    await until(() => setup?.reports.length === 1);
    expect(setup.usage.read("id:ada")).toEqual({ inputTokens: 3, outputTokens: 2, requests: 1 });
  });
});
