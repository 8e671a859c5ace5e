/**
 * A window whose log cannot be read (a damaged row, an I/O error, an event a
 * newer version wrote): whatever route asks for it first, the process goes
 * on, that window answers 500 where it needs its log, the host's `onError`
 * is told, the other windows keep working, and a later request reads again.
 */
import { createApp, createHost } from "elyra-assistant";
import { assistantHttp } from "elyra-assistant/http";
import type { EventStore } from "elyra-assistant/log";
import { fakeModel, memoryStore } from "elyra-assistant/testing";
import { describe, expect, it } from "vitest";
import { spyCommands, type TestUser } from "../fixtures/spyCommands.ts";

const ada: TestUser = { name: "Ada", abilities: ["customers.*", "invoices.view"] };

/** A memory store whose reads of `broken` reject while `failing` is set. */
const flakyStore = () => {
  const inner = memoryStore();
  const state = { failing: true, reads: 0 };
  const store: EventStore = {
    ...inner,
    append: (stream, events, expectedSeq) => inner.append(stream, events, expectedSeq),
    drop: (stream) => inner.drop(stream),
    read: async (stream, fromSeq) => {
      if (stream === "conversation/broken") {
        state.reads++;
        if (state.failing) throw new Error("disk I/O error");
      }
      return inner.read(stream, fromSeq);
    },
  };
  return { store, state };
};

const setup = () => {
  const spies = spyCommands();
  const app = createApp({
    commands: spies.commands,
    userAbilities: (u) => (u as TestUser).abilities,
    assistant: { allow: ["customers.*", "invoices.view"], confirm: ["customers.delete"] },
  });
  const { store, state } = flakyStore();
  const hostErrors: unknown[] = [];
  const routeErrors: unknown[] = [];
  const host = createHost(app, {
    model: fakeModel().says("One.").says("Two.").says("Three."),
    store,
    onError: (error) => hostErrors.push(error),
  });
  const handle = assistantHttp(host, {
    token: "token-0123456789abcdef",
    authenticate: () => ada,
    onError: (error) => routeErrors.push(error),
  });
  const call = (route: string, client: string, body?: unknown) =>
    handle(
      new Request(`http://app.test/__assistant/${route}`, {
        method: "POST",
        headers: { "x-elyra-token": "token-0123456789abcdef", "x-elyra-client": client },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
  return { host, state, hostErrors, routeErrors, call };
};

/** Lets the supervisor's recovery settle. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("a window whose log cannot be read", () => {
  it.each(["tools", "stop", "key", "source"])(
    "opened first by /%s: the process goes on and the host is told",
    async (route) => {
      const s = setup();
      const first = await s.call(route, "broken", route === "key" ? { key: null } : undefined);
      expect(first.status).toBeLessThan(500);
      await settle();
      expect(s.hostErrors).toEqual([new Error("disk I/O error")]);
      // Another window is untouched.
      const other = await s.call("prompt", "fine", { text: "hello" });
      expect(other.status).toBe(202);
    },
  );

  it("/prompt answers 500 and tells onError; other windows work; a later prompt reads again", async () => {
    const s = setup();
    const failed = await s.call("prompt", "broken", { text: "hello" });
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({ error: { type: "internal", message: "internal error" } });
    expect(s.routeErrors).toEqual([new Error("disk I/O error")]);
    expect(s.hostErrors).toEqual([new Error("disk I/O error")]);
    expect((await s.call("prompt", "fine", { text: "hello" })).status).toBe(202);
    // The store recovers: the next request opens the window again and reads its log again.
    s.state.failing = false;
    const reads = s.state.reads;
    const again = await s.call("prompt", "broken", { text: "hello again" });
    expect(again.status).toBe(202);
    expect(s.state.reads).toBeGreaterThan(reads);
    await s.host.close();
  });

  it("a prompt whose body is still arriving when the read fails answers 500", async () => {
    const s = setup();
    let push: (chunk: string) => void = () => {};
    let end: () => void = () => {};
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        const encoder = new TextEncoder();
        push = (chunk) => controller.enqueue(encoder.encode(chunk));
        end = () => controller.close();
      },
    });
    const request = new Request("http://app.test/__assistant/prompt", {
      method: "POST",
      headers: { "x-elyra-token": "token-0123456789abcdef", "x-elyra-client": "broken" },
      body,
      duplex: "half",
    } as RequestInit);
    const handle = assistantHttp(s.host, {
      token: "token-0123456789abcdef",
      authenticate: () => ada,
      onError: () => {},
    });
    const answer = handle(request);
    push('{"text":');
    await settle();
    await settle();
    push('"late"}');
    end();
    expect((await answer).status).toBe(500);
  });
});
