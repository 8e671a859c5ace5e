/**
 * The handler in Fastify 5, by the recipe docs/backend.md shows
 * (recipes/fastify.ts), over real HTTP on loopback: a turn with a
 * confirmation read off the event stream as it happens; Fastify's own body
 * parsers take the assistant's bodies unless the plugin leaves them unread;
 * the app's hooks before the handler run, its onSend hooks (where global
 * compression lives) do not; the heartbeat against `connectionTimeout`;
 * shutting down with streams open; the base path.
 */
import { toNodeListener } from "elyra-assistant/http";
import Fastify, { type FastifyInstance, type FastifyServerOptions } from "fastify";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type Assistant, assistantFor, clientOf, turnWithConfirmation } from "./fixture.ts";
import { assistantRoutes } from "./recipes/fastify.ts";

let fastify: FastifyInstance | undefined;
let assistant: Assistant | undefined;

afterEach(async () => {
  await assistant?.host.close();
  fastify?.server.closeAllConnections();
  await fastify?.close();
  fastify = undefined;
  assistant = undefined;
});

/** The assistant of this test, closed after it. */
const made = (...args: Parameters<typeof assistantFor>) => {
  assistant = assistantFor(...args);
  return assistant;
};

const started = (options: FastifyServerOptions = {}) => {
  fastify = Fastify(options);
  return fastify;
};

const listen = (app: FastifyInstance) => app.listen({ port: 0, host: "127.0.0.1" });

/** The app's own JSON route, read by Fastify's default parser. */
const notes = (app: FastifyInstance) =>
  app.post("/api/notes", async (request, reply) => reply.code(201).send({ saved: request.body }));

describe("Fastify 5: the recipe", () => {
  it("serves a turn with a confirmation, the event stream read as it happens, the app's JSON parser kept for its own routes", async () => {
    const t = made();
    const app = started();
    await app.register(assistantRoutes(t.handle));
    notes(app);
    const origin = await listen(app);

    await turnWithConfirmation(t, origin);

    const saved = await fetch(`${origin}/api/notes`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text: "hello" }),
    });
    expect(saved.status).toBe(201);
    expect(await saved.json()).toEqual({ saved: { text: "hello" } });
  });

  it("takes any body as the handler reads it: an empty one with a JSON content type, one of another type", async () => {
    const t = made();
    const app = started();
    await app.register(assistantRoutes(t.handle));
    const origin = await listen(app);
    const client = clientOf(origin);

    const stopped = await client.post("stop", undefined, { "content-type": "application/json" });
    expect(stopped.status).toBe(204);
    const text = await client.post("prompt", undefined, { "content-type": "text/plain" });
    expect(text.status).toBe(400);
    expect(await text.json()).toEqual({
      error: { type: "badRequest", message: "the body must be JSON" },
    });
  });

  it("runs the app's hooks before the handler, and not its onSend hooks (global compression's) on the hijacked reply", async () => {
    const t = made();
    const app = started();
    const seen = { onRequest: [] as string[], onSend: [] as string[] };
    app.addHook("onRequest", async (request) => {
      seen.onRequest.push(request.url);
    });
    app.addHook("onSend", async (request, _reply, payload) => {
      seen.onSend.push(request.url);
      return payload;
    });
    await app.register(assistantRoutes(t.handle));
    notes(app);
    const origin = await listen(app);

    await turnWithConfirmation(t, origin);
    expect(seen.onRequest).toEqual([
      "/__assistant/events",
      "/__assistant/prompt",
      "/__assistant/confirm",
    ]);
    expect(seen.onSend).toEqual([]);
    await fetch(`${origin}/api/notes`, { method: "POST" });
    expect(seen.onSend).toEqual(["/api/notes"]);
  });
});

describe("Fastify 5: without the plugin's parser", () => {
  /** The route alone, in the app's own scope, where Fastify's JSON parser runs. */
  const bare = (app: FastifyInstance, t: Assistant) => {
    const listener = toNodeListener(t.handle);
    app.all("/__assistant/*", (request, reply) => {
      reply.hijack();
      return listener(request.raw, reply.raw);
    });
  };

  it("Fastify's JSON parser reads the body first: the prompt is refused as no JSON, and an empty JSON body never reaches the handler", async () => {
    const t = made();
    const app = started();
    bare(app, t);
    const origin = await listen(app);
    const client = clientOf(origin);

    const prompted = await client.post("prompt", { text: "Delete customer 42" });
    expect(prompted.status).toBe(400);
    expect(await prompted.json()).toEqual({
      error: { type: "badRequest", message: "the body must be JSON" },
    });
    expect(t.window().lastSeq()).toBe(0);
    expect(t.errors).toEqual([]);
    const stopped = await client.post("stop", undefined, { "content-type": "application/json" });
    expect(stopped.status).toBe(400);
    expect(await stopped.json()).toMatchObject({ code: "FST_ERR_CTP_EMPTY_JSON_BODY" });
  });
});

describe("Fastify 5: timeouts and shutting down", () => {
  it("a quiet stream outlives connectionTimeout while the heartbeat is shorter", async () => {
    const t = made(undefined, { heartbeatMs: 50 });
    const app = started({ connectionTimeout: 300 });
    await app.register(assistantRoutes(t.handle));
    const origin = await listen(app);

    const leave = new AbortController();
    const { stream } = await clientOf(origin).events(leave.signal);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(stream.ended()).toBe(false);
    expect(stream.comments.length).toBeGreaterThanOrEqual(5);
    leave.abort();
  });

  it("a heartbeat longer than connectionTimeout: the socket is cut under the stream", async () => {
    const t = made(undefined, { heartbeatMs: 60_000 });
    const app = started({ connectionTimeout: 300 });
    await app.register(assistantRoutes(t.handle));
    const origin = await listen(app);

    const { stream } = await clientOf(origin).events(new AbortController().signal);
    const at = Date.now();
    await expect(stream.done).rejects.toThrow();
    expect(Date.now() - at).toBeLessThan(5_000);
    expect(stream.comments).toEqual([]);
  });

  it("fastify.close() first waits on an open stream (forceCloseConnections: 'idle' spares busy sockets)", async () => {
    const t = made();
    const app = started();
    await app.register(assistantRoutes(t.handle));
    const origin = await listen(app);
    const { stream } = await clientOf(origin).events(new AbortController().signal);

    const closing = vi.fn();
    const closed = app.close().then(closing);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(closing).not.toHaveBeenCalled();
    expect(stream.ended()).toBe(false);
    app.server.closeAllConnections();
    await closed;
    fastify = undefined;
  });

  it("forceCloseConnections: true cuts open streams on fastify.close()", async () => {
    const t = made();
    const app = started({ forceCloseConnections: true });
    await app.register(assistantRoutes(t.handle));
    const origin = await listen(app);
    const { stream } = await clientOf(origin).events(new AbortController().signal);

    await app.close();
    fastify = undefined;
    await expect(stream.done).rejects.toThrow();
  });

  it("host.close() ends the open streams, then fastify.close() returns", async () => {
    const t = made();
    const app = started();
    await app.register(assistantRoutes(t.handle));
    const origin = await listen(app);
    const client = clientOf(origin);
    const open = [
      await client.events(new AbortController().signal),
      await client.events(new AbortController().signal),
    ];

    await t.host.close();
    await Promise.all(open.map(({ stream }) => stream.done));
    expect(open.map(({ stream }) => stream.ended())).toEqual([true, true]);
    const closing = vi.fn();
    await Promise.race([
      app.close().then(closing),
      new Promise((resolve) => setTimeout(resolve, 2_000)),
    ]);
    expect(closing).toHaveBeenCalled();
    fastify = undefined;
  });
});

describe("Fastify 5: the base path", () => {
  it("serves the routes at another path given to both assistantHttp and the plugin", async () => {
    const t = made(undefined, { basePath: "/api/assistant" });
    const app = started();
    await app.register(assistantRoutes(t.handle, "/api/assistant"));
    const origin = await listen(app);

    await turnWithConfirmation(t, origin, "/api/assistant");
    expect((await clientOf(origin).post("tools")).status).toBe(404);
  });
});
