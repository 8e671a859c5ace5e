/** The token first, then the user, then the client header: nothing runs for a request refused. */
import { ROUTES } from "elyra-assistant/http";
import { fakeModel } from "elyra-assistant/testing";
import { describe, expect, it, vi } from "vitest";
import { type Call, setup, TOKEN } from "./fixture.ts";

/** A request to each route that would do something if let through. */
const EVERY_ROUTE: ReadonlyArray<readonly [string, Call]> = [
  ["prompt", { body: { text: "Delete customer 42", route: "/customers/42" } }],
  ["confirm", { body: { confirmId: "c1", accept: true } }],
  ["stop", {}],
  ["reset", {}],
  ["close", {}],
  ["tools", {}],
  ["selected", { body: { kind: "customer", ids: [42] } }],
  ["key", { body: { key: null } }],
  ["source", {}],
  ["usage", {}],
  ["events", {}],
  ["live?command=customers_show&args=%7B%22id%22%3A42%7D", {}],
  ["threads", { body: {} }],
  ["threads/search", { body: { text: "customer" } }],
  ["threads/get", { body: { id: "w1" } }],
  ["threads/rename", { body: { id: "w1", title: "mine" } }],
  ["threads/archive", { body: { id: "w1" } }],
  ["threads/delete", { body: { id: "w1" } }],
];

/** The routes of one window, which the client header names (a thread's routes name it in the body). */
const WINDOW_ROUTES = EVERY_ROUTE.filter(([path]) => !path.startsWith("threads"));

const nothingRan = async (t: ReturnType<typeof setup>) => {
  await t.ada.settled();
  expect(t.spies.total()).toBe(0);
  expect(t.model.requests).toHaveLength(0);
  expect(t.ada.lastSeq()).toBe(0);
  expect(t.host.live.queries("w1")).toEqual([]);
};

describe("the host's token", () => {
  it("covers every route of the contract", () => {
    expect(EVERY_ROUTE.map(([path]) => path.split("?")[0])).toEqual([...ROUTES]);
  });

  it.each([
    ["missing", null],
    ["wrong, same length", `${TOKEN.slice(0, -1)}x`],
    ["wrong, shorter", TOKEN.slice(0, 5)],
    ["wrong, longer", `${TOKEN}0`],
    ["empty", ""],
  ])("%s: every route answers 403 forbidden and runs nothing", async (_, token) => {
    const t = setup(fakeModel().toolCall("customers_delete", { id: 42 }).says("Done."));
    for (const [path, call] of EVERY_ROUTE) {
      const response = await t.call(path, { ...call, token });
      expect(response.status, path).toBe(403);
      expect(await response.json()).toEqual({
        error: { type: "forbidden", message: "the host's token is missing or wrong" },
      });
    }
    // The token is checked before the user is asked for.
    expect(t.authenticate).not.toHaveBeenCalled();
    await nothingRan(t);
  });

  it("is checked before anything else, even an unknown route under the base path", async () => {
    const t = setup();
    expect((await t.call("nowhere", { token: null })).status).toBe(403);
    expect((await t.call("nowhere")).status).toBe(404);
  });

  it("may be read per request, and a host with an empty token lets nobody in", async () => {
    const read = vi.fn(async () => TOKEN);
    const t = setup(fakeModel(), { token: read });
    expect((await t.call("tools")).status).toBe(200);
    expect(read).toHaveBeenCalledWith(expect.any(Request));

    const closed = setup(fakeModel(), { token: "" });
    expect((await closed.call("tools", { token: "" })).status).toBe(403);
  });
});

describe("the user", () => {
  it("none: every route answers 401 unauthenticated and runs nothing", async () => {
    const t = setup(fakeModel().toolCall("customers_delete", { id: 42 }).says("Done."));
    for (const [path, call] of EVERY_ROUTE) {
      const response = await t.call(path, { ...call, user: null });
      expect(response.status, path).toBe(401);
      expect(await response.json()).toEqual({
        error: { type: "unauthenticated", message: "no signed-in user" },
      });
    }
    await nothingRan(t);
  });

  it("a null user is no user", async () => {
    const t = setup(fakeModel(), { authenticate: () => null });
    expect((await t.call("tools")).status).toBe(401);
  });
});

describe("the client header", () => {
  it.each([
    ["missing", null, "x-elyra-client: the header is missing"],
    ["empty", "", "x-elyra-client: must be 1 to 128 letters, digits, _ or -"],
    ["with a slash", "w/1", "x-elyra-client: must be 1 to 128 letters, digits, _ or -"],
    ["too long", "w".repeat(129), "x-elyra-client: must be 1 to 128 letters, digits, _ or -"],
  ])("%s: 400 naming the header, and nothing runs", async (_, client, message) => {
    const t = setup(fakeModel().says("Hello."));
    for (const [path, call] of WINDOW_ROUTES) {
      const response = await t.call(path, { ...call, client });
      expect(response.status, path).toBe(400);
      expect(await response.json()).toEqual({ error: { type: "badRequest", message } });
    }
    await nothingRan(t);
  });
});

describe("routes that are not there", () => {
  it("an unknown route is a 404 in JSON; a path outside the base path too", async () => {
    const t = setup();
    const unknown = await t.call("nowhere");
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("content-type")).toContain("application/json");
    expect(await unknown.json()).toEqual({ error: { type: "notFound", message: "no such route" } });
    const outside = await t.handle(new Request("http://app.test/elsewhere"));
    expect(outside.status).toBe(404);
    expect(await outside.json()).toMatchObject({ error: { type: "notFound" } });
  });

  it("a known route with the wrong method is a 405 naming the method it takes", async () => {
    const t = setup();
    const response = await t.call("prompt", { method: "GET" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    expect(await response.json()).toEqual({
      error: { type: "methodNotAllowed", message: "this route takes POST" },
    });
    expect((await t.call("events", { method: "POST" })).headers.get("allow")).toBe("GET");
  });

  it("a custom base path moves every route", async () => {
    const t = setup(fakeModel(), { basePath: "/api/assistant/" });
    const response = await t.handle(
      new Request("http://app.test/api/assistant/tools", {
        method: "POST",
        headers: { "x-elyra-token": TOKEN, "x-test-user": "ada", "x-elyra-client": "w1" },
      }),
    );
    expect(response.status).toBe(200);
    expect((await t.call("tools")).status).toBe(404);
  });
});
