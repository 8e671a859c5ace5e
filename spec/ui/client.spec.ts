// @vitest-environment happy-dom
/** The client speaks the wire contract: headers, routes, bodies, errors, and an event stream that resumes. */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { LogEvent } from "elyra-assistant/log";
import { assistantClient, ConnectionError, HostError } from "elyra-assistant/ui";
import { describe, expect, it } from "vitest";
import * as contract from "../../src/adapters/http/contract.ts";
import { answeredTurn, fakeHost, numbered, until } from "./fixtures.ts";

const fast = { firstMs: 5, maxMs: 20 };

describe("assistantClient", () => {
  it("takes the contract's names from the one wire module, never a copy of its own", () => {
    const ui = join(import.meta.dirname, "..", "..", "src", "adapters", "ui");
    const names = [
      contract.BASE_PATH,
      contract.TOKEN_HEADER,
      contract.CLIENT_HEADER,
      contract.LAST_EVENT_ID_HEADER,
    ];
    for (const file of readdirSync(ui)) {
      const text = readFileSync(join(ui, file), "utf8");
      for (const name of names) expect(text, `${file} spells ${name}`).not.toContain(`"${name}"`);
    }
  });

  it("posts each route with the token and the client id, and reads the answers", async () => {
    const host = fakeHost();
    const client = assistantClient({ token: "t0k", clientId: "tab-1", fetch: host.fetch });
    expect(await client.prompt("Hi", "/customers/42")).toEqual({ turn: 1 });
    expect(await client.confirm("c1", true, { tool: "customers_delete", args: { id: 4 } })).toEqual(
      {
        result: "Accepted",
      },
    );
    await client.stop();
    await client.reset();
    expect(await client.tools()).toEqual([]);
    await client.selected("customers", [42, "43"], "/customers");
    expect(host.requests.map((r) => [r.method, r.url, r.body])).toEqual([
      ["POST", "/__assistant/prompt", { text: "Hi", route: "/customers/42" }],
      [
        "POST",
        "/__assistant/confirm",
        { confirmId: "c1", accept: true, tool: "customers_delete", args: { id: 4 } },
      ],
      ["POST", "/__assistant/stop", undefined],
      ["POST", "/__assistant/reset", undefined],
      ["POST", "/__assistant/tools", undefined],
      [
        "POST",
        "/__assistant/selected",
        { kind: "customers", ids: [42, "43"], route: "/customers" },
      ],
    ]);
    for (const request of host.requests) {
      expect(request.headers.get("x-elyra-token")).toBe("t0k");
      expect(request.headers.get("x-elyra-client")).toBe("tab-1");
    }
  });

  it("mounts where told and makes up a client id when given none", async () => {
    const host = fakeHost();
    const client = assistantClient({ baseUrl: "/api/assistant/", token: "t", fetch: host.fetch });
    await client.prompt("Hi");
    expect(host.requests[0]?.url).toBe("/api/assistant/prompt");
    expect(host.requests[0]?.body).toEqual({ text: "Hi" });
    expect(client.clientId).toMatch(/^[A-Za-z0-9_-]{1,128}$/);
  });

  it("fails with the host's error type and message, or a connection error", async () => {
    const refusing = assistantClient({
      token: "t",
      fetch: async () =>
        Response.json(
          { error: { type: "TurnRunning", message: "a turn is running" } },
          { status: 409 },
        ),
    });
    const refused = await refusing.prompt("Hi").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(HostError);
    expect(refused).toMatchObject({
      _tag: "HostError",
      status: 409,
      type: "TurnRunning",
      message: "a turn is running",
      isRetryable: false,
    });

    const garbled = assistantClient({
      token: "t",
      fetch: async () => new Response("<html>Bad gateway</html>", { status: 502 }),
    });
    expect(await garbled.stop().catch((e: unknown) => e)).toMatchObject({
      _tag: "HostError",
      type: "HttpStatus",
      isRetryable: true,
    });

    const unreachable = assistantClient({
      token: "t",
      fetch: async () => {
        throw new TypeError("Failed to fetch");
      },
    });
    const lost = await unreachable.reset().catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(ConnectionError);
    expect(lost).toMatchObject({ _tag: "ConnectionError", message: "Failed to fetch" });
  });

  it("streams events and, after a drop, resumes from Last-Event-ID with nothing twice", async () => {
    const host = fakeHost({ overlap: 2 });
    const events = numbered([
      ...answeredTurn(1, "Hi", ["Hel", "lo"]),
      ...answeredTurn(2, "More", ["A", "B", "C"]),
    ]);
    const first = events.slice(0, 4);
    const rest = events.slice(4);
    host.append(...first);
    const seen: LogEvent[] = [];
    const errors: unknown[] = [];
    const client = assistantClient({ token: "t", clientId: "w", fetch: host.fetch, backoff: fast });
    const close = client.events(
      0,
      (event) => seen.push(event),
      (error) => errors.push(error),
    );
    await until(() => seen.length === first.length);
    expect(host.requests[0]?.headers.get("last-event-id")).toBeNull();
    expect(host.requests[0]?.headers.get("accept")).toBe("text/event-stream");

    host.drop();
    await until(() => host.openStreams() === 1);
    expect(errors).toEqual([expect.objectContaining({ _tag: "ConnectionError" })]);
    const resumed = host.requests.at(-1);
    expect(resumed?.url).toBe("/__assistant/events");
    expect(resumed?.headers.get("last-event-id")).toBe(String(first.at(-1)?.seq));
    expect(resumed?.headers.get("x-elyra-token")).toBe("t");

    host.append(...rest);
    await until(() => seen.length >= events.length);
    await new Promise((resolve) => setTimeout(resolve, 20));
    // The host repeated two events on reconnecting; the client passed each on once.
    expect(seen.map((e) => e.seq)).toEqual(events.map((e) => e.seq));
    expect(seen).toEqual(events);
    close();
    expect(host.openStreams()).toBe(0);
  });

  it("starts after fromSeq", async () => {
    const host = fakeHost();
    host.append(...numbered(answeredTurn(1, "Hi", ["Hi"])));
    const seen: number[] = [];
    const close = assistantClient({ token: "t", fetch: host.fetch }).events(3, (e) =>
      seen.push(e.seq),
    );
    await until(() => seen.length > 0);
    expect(host.requests[0]?.headers.get("last-event-id")).toBe("3");
    expect(seen).toEqual([4]);
    close();
  });

  it("waits longer after each failed attempt, from 0.5 s up to 5 s", async () => {
    const attempts: number[] = [];
    const start = Date.now();
    const client = assistantClient({
      token: "t",
      backoff: { firstMs: 10, maxMs: 40 },
      fetch: async () => {
        attempts.push(Date.now() - start);
        throw new TypeError("offline");
      },
    });
    const close = client.events(0, () => {});
    await until(() => attempts.length >= 5);
    close();
    const gaps = attempts.slice(1).map((at, i) => at - (attempts[i] ?? 0));
    // 10, 20, 40, 40 (timers may run late, never early)
    expect(gaps[0]).toBeGreaterThanOrEqual(9);
    expect(gaps[1]).toBeGreaterThanOrEqual(19);
    expect(gaps[2]).toBeGreaterThanOrEqual(39);
    expect(gaps[3]).toBeGreaterThanOrEqual(39);
    expect(gaps[3]).toBeLessThan(80);
    const count = attempts.length;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(attempts.length).toBe(count);
  });

  it("gives up on a refusal that asking again will not change", async () => {
    const host = fakeHost({ status: 401 });
    const errors: unknown[] = [];
    const close = assistantClient({ token: "bad", fetch: host.fetch, backoff: fast }).events(
      0,
      () => {},
      (error) => errors.push(error),
    );
    await until(() => errors.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(host.requests).toHaveLength(1);
    expect(errors).toEqual([
      expect.objectContaining({ _tag: "HostError", status: 401, type: "Unauthorized" }),
    ]);
    close();
  });

  it("streams a live query's results from GET /live", async () => {
    let asked: { url: string; headers: Headers } | undefined;
    const body = [
      { _tag: "Result", value: { id: 42, name: "Ada" } },
      { _tag: "Failed", error: "gone" },
    ]
      .map((r) => `data: ${JSON.stringify(r)}\n\n`)
      .join("");
    const client = assistantClient({
      token: "t",
      clientId: "w",
      fetch: async (input, init) => {
        asked = { url: String(input), headers: new Headers(init?.headers) };
        return new Response(body, { headers: { "content-type": "text/event-stream" } });
      },
      backoff: { firstMs: 10_000, maxMs: 10_000 },
    });
    const results: unknown[] = [];
    const close = client.live("customers_show", { id: 42 }, (result) => results.push(result));
    await until(() => results.length === 2);
    close();
    const url = new URL(asked?.url ?? "", "https://app.example");
    expect(url.pathname).toBe("/__assistant/live");
    expect(url.searchParams.get("command")).toBe("customers_show");
    expect(JSON.parse(url.searchParams.get("args") ?? "")).toEqual({ id: 42 });
    expect(asked?.headers.get("x-elyra-token")).toBe("t");
    expect(results).toEqual([
      { _tag: "Result", value: { id: 42, name: "Ada" } },
      { _tag: "Failed", error: "gone" },
    ]);
  });
});
