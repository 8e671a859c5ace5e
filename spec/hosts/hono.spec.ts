/**
 * The handler in a plain Hono app served by @hono/node-server, by the recipe
 * docs/backend.md shows (recipes/hono.ts), over real HTTP on loopback: a
 * turn with a confirmation read off the event stream as it happens, with
 * Hono's compress() in front (it leaves event streams alone; told to
 * compress them, it holds them back); a middleware that reads the body
 * first; where each way of mounting puts the base path.
 */
import type { Server } from "node:http";
import { serve } from "@hono/node-server";
import type { FetchHandler } from "elyra-assistant/http";
import { Hono } from "hono";
import { compress } from "hono/compress";
import { mount } from "hono/mount";
import { cloneRawRequest } from "hono/request";
import { afterEach, describe, expect, it } from "vitest";
import {
  type Assistant,
  assistantFor,
  clientOf,
  confirmingModel,
  turnWithConfirmation,
} from "./fixture.ts";
import { mountAssistant } from "./recipes/hono.ts";

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

/** Serves `app` on @hono/node-server, on a free loopback port. */
const listen = (app: Hono) =>
  new Promise<string>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) =>
      resolve(`http://127.0.0.1:${info.port}`),
    ) as Server;
  });

/** A JSON answer over compress()'s threshold (1 KB). */
const bigJson = (app: Hono) => app.get("/api/report", (c) => c.json({ rows: "x".repeat(4_096) }));

describe("Hono: the recipe", () => {
  it("serves a turn with a confirmation, the event stream read as it happens, behind compress()", async () => {
    const t = made();
    const app = new Hono();
    app.use(compress());
    mountAssistant(app, t.handle);
    bigJson(app);
    const origin = await listen(app);

    await turnWithConfirmation(t, origin);

    // compress() is at work for the app's own answers.
    const report = await fetch(`${origin}/api/report`);
    expect(report.headers.get("content-encoding")).toBe("gzip");
    expect(((await report.json()) as { rows: string }).rows).toHaveLength(4_096);
  });

  it("compress() told to compress event streams too leaves them alone: they say no-transform", async () => {
    const t = made();
    const app = new Hono();
    app.use(compress({ contentTypeFilter: () => true }));
    mountAssistant(app, t.handle);
    const origin = await listen(app);
    // Before the event streams said `no-transform`, this compressor gzipped them and held the
    // question back until it had a window's worth: the turn never got its answer.
    await turnWithConfirmation(t, origin);
  });
});

describe("Hono: a middleware that reads the body first", () => {
  /** Reads every JSON body before the routes, as a validator or an audit log does. */
  const readsBodies = (app: Hono) =>
    app.use(async (c, next) => {
      if (c.req.header("content-type") === "application/json") await c.req.json();
      await next();
    });

  it("leaves the handler a used body: the prompt fails, and no turn starts", async () => {
    const t = made();
    const app = new Hono();
    readsBodies(app);
    mountAssistant(app, t.handle);
    const origin = await listen(app);

    const prompted = await clientOf(origin).post("prompt", { text: "Delete customer 42" });
    expect(prompted.status).toBe(500);
    expect(await prompted.json()).toEqual({
      error: { type: "internal", message: "internal error" },
    });
    // A bug of the setup, not the client's: answered 500 and told to onError.
    expect(t.errors).toHaveLength(1);
    expect(t.errors[0]).toBeInstanceOf(TypeError);
    expect(t.window().lastSeq()).toBe(0);
    t.errors.length = 0;
  });

  it("handing over cloneRawRequest(c.req) instead serves the turn, and the stream still ends when the client leaves", async () => {
    const t = made();
    const app = new Hono();
    readsBodies(app);
    app.all("/__assistant/*", async (c) => t.handle(await cloneRawRequest(c.req)));
    const origin = await listen(app);

    await turnWithConfirmation(t, origin);
  });
});

describe("Hono: the base path", () => {
  /** Each way of mounting, and whether the handler, with its default basePath, sees its routes. */
  const ways: ReadonlyArray<[string, (app: Hono, handle: FetchHandler) => void, number]> = [
    ["the recipe: app.all('/__assistant/*', (c) => handle(c.req.raw))", mountAssistant, 200],
    [
      "app.route('/__assistant', sub): the request keeps its full path",
      (app, handle) => {
        const sub = new Hono();
        sub.all("/*", (c) => handle(c.req.raw));
        app.route("/__assistant", sub);
      },
      200,
    ],
    [
      "mount() from hono/mount with replaceRequest: false",
      (app, handle) => {
        app.all("/__assistant/*", mount(handle, { replaceRequest: false }));
      },
      200,
    ],
    [
      "mount() from hono/mount as it comes: the prefix is cut off the URL",
      (app, handle) => {
        app.all("/__assistant/*", mount(handle));
      },
      404,
    ],
    [
      "app.mount('/__assistant', handle) (deprecated in Hono 4.13): the prefix is cut off the URL",
      (app, handle) => {
        app.mount("/__assistant", handle);
      },
      404,
    ],
  ];

  it.each(ways)("%s", async (_, mountWith, status) => {
    const t = made();
    const app = new Hono();
    mountWith(app, t.handle);
    const origin = await listen(app);

    const tools = await clientOf(origin).post("tools");
    expect(tools.status).toBe(status);
    if (status === 404) expect(await tools.json()).toMatchObject({ error: { type: "notFound" } });
    else expect(await tools.json()).toMatchObject({ tools: expect.any(Array) });
  });

  it("nested with app.route('/api', sub): the handler's basePath is the full path the requests arrive at", async () => {
    const t = made(confirmingModel(), { basePath: "/api/assistant" });
    const api = new Hono();
    mountAssistant(api, t.handle, "/assistant");
    const app = new Hono();
    app.route("/api", api);
    const origin = await listen(app);

    await turnWithConfirmation(t, origin, "/api/assistant");
  });
});
