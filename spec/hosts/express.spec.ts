/**
 * The handler in Express 5, by the recipe docs/backend.md shows
 * (recipes/express.ts), over real HTTP on loopback: a turn with a
 * confirmation read off the event stream as it happens; a body parser in
 * front takes the assistant's bodies, the recipe mounted ahead of it (or the
 * raw body kept for it) does not; a middleware after the recipe never sees
 * the assistant's requests (why compression there cannot hold the stream
 * back); Node's request, headers and keep-alive timeouts; the base path.
 */
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { toNodeListener } from "elyra-assistant/http";
import express, { type Express } from "express";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type Assistant, assistantFor, clientOf, turnWithConfirmation } from "./fixture.ts";
import { mountAssistant } from "./recipes/express.ts";

let server: Server | undefined;
let assistant: Assistant | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  await assistant?.host.close();
  server = undefined;
  assistant = undefined;
});

/** The assistant of this test, closed after it. */
const made = (...args: Parameters<typeof assistantFor>) => {
  assistant = assistantFor(...args);
  return assistant;
};

const listen = async (app: Express) => {
  server = app.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

/** The app's own JSON route, behind `express.json()`. */
const notes = (app: Express) =>
  app.post("/api/notes", (req, res) => {
    res.status(201).json({ saved: req.body as unknown });
  });

describe("Express 5: the recipe", () => {
  it("serves a turn with a confirmation, the event stream read as it happens, the app's parser kept for its own routes", async () => {
    const t = made();
    const app = express();
    mountAssistant(app, t.handle);
    app.use(express.json());
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

  it("answers the handler's own refusals and 404s through Express, and leaves other paths to the app", async () => {
    const t = made();
    const app = express();
    mountAssistant(app, t.handle);
    app.get("/page", (_req, res) => {
      res.send("the app");
    });
    const origin = await listen(app);

    const noToken = await fetch(`${origin}/__assistant/tools`, { method: "POST" });
    expect(noToken.status).toBe(403);
    expect(await noToken.json()).toMatchObject({ error: { type: "forbidden" } });
    const unknown = await clientOf(origin).post("nothing-here");
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { type: "notFound" } });
    expect(await (await fetch(`${origin}/page`)).text()).toBe("the app");
  });
});

describe("Express 5: body parsers", () => {
  it("express.json() in front takes the body: the prompt is refused as no JSON, and no turn starts", async () => {
    const t = made();
    const app = express();
    app.use(express.json());
    mountAssistant(app, t.handle);
    const origin = await listen(app);

    const prompted = await clientOf(origin).post("prompt", { text: "Delete customer 42" });
    expect(prompted.status).toBe(400);
    expect(await prompted.json()).toEqual({
      error: { type: "badRequest", message: "the body must be JSON" },
    });
    expect(t.window().lastSeq()).toBe(0);
    // A refusal, so nothing is told to onError.
    expect(t.errors).toEqual([]);
  });

  it("a parser that must stay in front can keep the raw body for it (verify → req.rawBody)", async () => {
    const t = made();
    const app = express();
    app.use(
      express.json({
        verify: (req, _res, body) => {
          // toNodeListener (on @hono/node-server) reads a Buffer left as `rawBody` as the body.
          Object.assign(req, { rawBody: body });
        },
      }),
    );
    mountAssistant(app, t.handle);
    const origin = await listen(app);

    await turnWithConfirmation(t, origin);
  });
});

describe("Express 5: what is mounted after the recipe", () => {
  it("never sees the assistant's requests: a response wrapper there (compression) cannot hold the stream back", async () => {
    const t = made();
    const app = express();
    mountAssistant(app, t.handle);
    const seen: string[] = [];
    app.use((req, res, next) => {
      // What compression() does to each response it gets: wrap its writes.
      seen.push(req.url);
      const write = res.write.bind(res);
      res.write = ((...args: Parameters<typeof write>) => write(...args)) as typeof res.write;
      next();
    });
    app.get("/page", (_req, res) => {
      res.send("the app");
    });
    const origin = await listen(app);

    await turnWithConfirmation(t, origin);
    expect(seen).toEqual([]);
    await fetch(`${origin}/page`);
    expect(seen).toEqual(["/page"]);
  });
});

describe("Express 5: Node's timeouts", () => {
  it("the request, headers and keep-alive timeouts never cut a stream being written", async () => {
    const t = made(undefined, { heartbeatMs: 60_000 });
    const app = express();
    mountAssistant(app, t.handle);
    server = createServer(
      {
        requestTimeout: 200,
        headersTimeout: 100,
        keepAliveTimeout: 100,
        connectionsCheckingInterval: 20,
      },
      app,
    );
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const leave = new AbortController();
    const { stream } = await clientOf(origin).events(leave.signal);
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(stream.ended()).toBe(false);
    // Still the same stream: the question of a turn started now arrives on it.
    await clientOf(origin).post("prompt", { text: "Delete customer 42" });
    await vi.waitFor(() =>
      expect(stream.events().some((e) => e._tag === "ConfirmRequested")).toBe(true),
    );
    leave.abort();
  });
});

describe("Express 5: the base path", () => {
  it("serves the routes at another path given to both assistantHttp and the recipe", async () => {
    const t = made(undefined, { basePath: "/api/assistant" });
    const app = express();
    mountAssistant(app, t.handle, "/api/assistant");
    const origin = await listen(app);

    await turnWithConfirmation(t, origin, "/api/assistant");
    expect((await clientOf(origin).post("tools")).status).toBe(404);
  });

  it("app.use(path, listener) cuts the path off req.url: every route is a 404", async () => {
    const t = made();
    const app = express();
    app.use("/__assistant", toNodeListener(t.handle));
    const origin = await listen(app);

    const tools = await clientOf(origin).post("tools");
    expect(tools.status).toBe(404);
    expect(await tools.json()).toMatchObject({ error: { type: "notFound" } });
  });
});
