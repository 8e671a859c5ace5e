/**
 * `POST /key` keeps or forgets the user's own API key, write-only; `POST
 * /source` says where the user's steps go. Token, user, client header and
 * window owner are checked first, as on every route.
 */
import { memorySecrets, type Secrets } from "elyra-assistant";
import { modelSource } from "elyra-assistant/anthropic";
import { ROUTES } from "elyra-assistant/http";
import { fakeModel } from "elyra-assistant/testing";
import { describe, expect, it, vi } from "vitest";
import { type Call, setup } from "./fixture.ts";

const ADA_KEY = "sk-ant-api03-Ada0123456789abcdefABCDEF_-xyz";
const BOB_KEY = "sk-ant-api03-Bob0123456789abcdefABCDEF_-xyz";
const ENV_KEY = "sk-ant-api03-Env0123456789abcdefABCDEF_-xyz";

/** The fixture's host with a secrets store and a source reading it. */
const withKeys = (
  options: { env?: Record<string, string>; backend?: boolean; secrets?: Secrets } = {},
) => {
  const secrets = options.secrets ?? memorySecrets();
  const source = modelSource({
    secrets,
    env: options.env ?? {},
    ...(options.backend === true
      ? { backend: { baseURL: "http://backend.test", authToken: "t" } }
      : {}),
  });
  return { ...setup(fakeModel(), { secrets, source }), secrets, source };
};

const sourceOf = async (t: ReturnType<typeof withKeys>, call: Call = {}) => {
  const response = await t.call("source", call);
  expect(response.status).toBe(200);
  return ((await response.json()) as { source: string }).source;
};

describe("POST /key", () => {
  it("keeps the user's key: 204, nothing in the answer, the key in the store under the user", async () => {
    const t = withKeys();
    const response = await t.call("key", { body: { key: ADA_KEY } });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    expect(await t.secrets.get("name:Ada")).toBe(ADA_KEY);
    expect(await t.secrets.get("name:Bob")).toBeUndefined();
  });

  it("{key: null} forgets it; forgetting none is a 204 too", async () => {
    const t = withKeys();
    await t.call("key", { body: { key: ADA_KEY } });
    const response = await t.call("key", { body: { key: null } });
    expect(response.status).toBe(204);
    expect(await t.secrets.get("name:Ada")).toBeUndefined();
    expect((await t.call("key", { body: { key: null } })).status).toBe(204);
  });

  it.each([
    ["not an Anthropic key", { key: "sk-live-0123456789abcdefghijkl" }],
    ["too short", { key: "sk-ant-abc" }],
    ["with a space", { key: `${ADA_KEY} ` }],
    ["a newline inside", { key: `sk-ant-api03\n-0123456789abcdef` }],
    ["a number", { key: 1234567890123 }],
    ["no key field", { secret: ADA_KEY }],
    ["a bare string", ADA_KEY],
  ])("%s: 400 that does not repeat what was sent, and nothing is kept", async (_, body) => {
    const t = withKeys();
    await t.secrets.set("name:Ada", BOB_KEY);
    const response = await t.call("key", { body });
    expect(response.status).toBe(400);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({
      error: {
        type: "badRequest",
        message: "key: must be an Anthropic API key (sk-ant-…), or null to forget it",
      },
    });
    const sent = typeof body === "string" ? body : String(Object.values(body)[0]);
    expect(text).not.toContain(sent.trim());
    expect(await t.secrets.get("name:Ada")).toBe(BOB_KEY);
  });

  it("a body that is not JSON is refused without repeating it", async () => {
    const t = withKeys();
    const response = await t.call("key", { raw: `{"key": "${ADA_KEY}"` });
    expect(response.status).toBe(400);
    expect(await response.text()).not.toContain(ADA_KEY);
  });

  it("is write-only: no route's answer carries the key, and the window's log has none of it", async () => {
    const t = withKeys({ env: { ANTHROPIC_API_KEY: ENV_KEY } });
    await t.call("key", { body: { key: ADA_KEY } });
    for (const route of ROUTES) {
      // "close" answers 204 with no body, and would close the window this spec reads next.
      if (route === "events" || route === "live" || route === "prompt" || route === "close")
        continue;
      const response = await t.call(route, { body: {} });
      expect(await response.text(), route).not.toContain(ADA_KEY);
    }
    await t.ada.settled();
    const logged: unknown[] = [];
    t.ada.events$().subscribe((event) => logged.push(event));
    await vi.waitFor(() => expect(logged).toHaveLength(t.ada.lastSeq()));
    expect(JSON.stringify(logged)).not.toContain(ADA_KEY);
    // GET on the key route is not a way to read it either.
    const get = await t.call("key", { method: "GET" });
    expect(get.status).toBe(405);
    expect(await get.text()).not.toContain(ADA_KEY);
  });

  it("a store that fails is a 500 that says nothing, told to onError", async () => {
    const broken: Secrets = {
      get: async () => undefined,
      set: () => Promise.reject(new Error("disk full")),
      delete: async () => undefined,
    };
    const t = withKeys({ secrets: broken });
    const response = await t.call("key", { body: { key: ADA_KEY } });
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      error: { type: "internal", message: "internal error" },
    });
    expect(t.errors).toHaveLength(1);
  });
});

describe("POST /source", () => {
  it("follows the order: none, the environment, the user's own key, and back", async () => {
    const none = withKeys();
    expect(await sourceOf(none)).toBe("none");

    const t = withKeys({ env: { ANTHROPIC_API_KEY: ENV_KEY } });
    expect(await sourceOf(t)).toBe("environment");
    await t.call("key", { body: { key: ADA_KEY } });
    expect(await sourceOf(t)).toBe("userKey");
    // Per user: Bob, in his own window, has no key of his own.
    expect(await sourceOf(t, { user: "bob", client: "w2" })).toBe("environment");
    await t.call("key", { body: { key: null } });
    expect(await sourceOf(t)).toBe("environment");
  });

  it("a backend comes before any key", async () => {
    const t = withKeys({ backend: true, env: { ANTHROPIC_API_KEY: ENV_KEY } });
    await t.call("key", { body: { key: ADA_KEY } });
    expect(await sourceOf(t)).toBe("backend");
  });

  it("answers only {source, canSaveKey}: true with a secrets store", async () => {
    const t = withKeys();
    expect(await (await t.call("source")).json()).toEqual({ source: "none", canSaveKey: true });
  });

  it("a source but no secrets store: canSaveKey false, and /key stays notConfigured", async () => {
    const t = setup(fakeModel(), {
      source: modelSource({ env: { ANTHROPIC_API_KEY: ENV_KEY } }),
    });
    expect(await (await t.call("source")).json()).toEqual({
      source: "environment",
      canSaveKey: false,
    });
    const key = await t.call("key", { body: { key: ADA_KEY } });
    expect(key.status).toBe(404);
    expect(await key.json()).toMatchObject({ error: { type: "notConfigured" } });
  });
});

describe("a user with neither an id nor a name", () => {
  it("can keep no key: /source says so, /key is 404 notConfigured, and nothing is kept under their session", async () => {
    const kept = memorySecrets();
    const slots: string[] = [];
    const secrets: Secrets = {
      get: (slot) => {
        slots.push(slot);
        return kept.get(slot);
      },
      set: (slot, secret) => {
        slots.push(slot);
        return kept.set(slot, secret);
      },
      delete: (slot) => {
        slots.push(slot);
        return kept.delete(slot);
      },
    };
    const t = withKeys({ secrets });
    expect(await (await t.call("source", { user: "anon", client: "w9" })).json()).toEqual({
      source: "none",
      canSaveKey: false,
    });
    for (const body of [{ key: ADA_KEY }, { key: null }]) {
      const response = await t.call("key", { user: "anon", client: "w9", body });
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error: { type: "notConfigured" } });
    }
    // The store was never asked anything for them: no slot named after their session.
    expect(slots).toEqual([]);
    await t.call("key", { body: { key: ADA_KEY } });
    expect(slots).toEqual(["name:Ada"]);
  });
});

describe("the checks before", () => {
  it("a wrong token or no user: 403 / 401, and nothing is kept", async () => {
    const t = withKeys();
    expect((await t.call("key", { body: { key: ADA_KEY }, token: "wrong" })).status).toBe(403);
    expect((await t.call("key", { body: { key: ADA_KEY }, user: null })).status).toBe(401);
    expect((await t.call("source", { token: null })).status).toBe(403);
    expect((await t.call("source", { user: null })).status).toBe(401);
    expect(await t.secrets.get("name:Ada")).toBeUndefined();
    expect(t.authenticate).toHaveBeenCalledTimes(2);
  });

  it("another user's window: 403 notYourWindow, and neither user's key changes", async () => {
    const t = withKeys();
    await t.secrets.set("name:Ada", ADA_KEY);
    for (const body of [{ key: BOB_KEY }, { key: null }]) {
      const response = await t.call("key", { body, user: "bob", client: "w1" });
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ error: { type: "notYourWindow" } });
    }
    expect((await t.call("source", { user: "bob", client: "w1" })).status).toBe(403);
    expect(await t.secrets.get("name:Ada")).toBe(ADA_KEY);
    expect(await t.secrets.get("name:Bob")).toBeUndefined();
  });

  it("the client header before the body: a bad key with no header is a 400 naming the header", async () => {
    const t = withKeys();
    const response = await t.call("key", { body: { key: "nope" }, client: null });
    expect(await response.json()).toEqual({
      error: { type: "badRequest", message: "x-elyra-client: the header is missing" },
    });
  });

  it("a host given no secrets store or no source: 404 notConfigured, after the checks", async () => {
    const bare = setup();
    const key = await bare.call("key", { body: { key: ADA_KEY } });
    expect(key.status).toBe(404);
    expect(await key.json()).toEqual({
      error: { type: "notConfigured", message: "this host has no secrets store for this route" },
    });
    expect((await bare.call("source", { token: "wrong" })).status).toBe(403);

    const noSource = setup(fakeModel(), { secrets: memorySecrets() });
    expect(await (await noSource.call("key", { body: { key: ADA_KEY } })).json()).toMatchObject({
      error: { type: "notConfigured", message: "this host has no model source for this route" },
    });
  });
});

describe("POST /source on the minimal setup (issue 28)", () => {
  it("no model source: 200, the app's own model, no key to keep, and nothing for onError", async () => {
    const bare = setup();
    const source = await bare.call("source");
    expect(source.status).toBe(200);
    expect(await source.json()).toEqual({ source: "app", canSaveKey: false });
    expect(bare.errors).toEqual([]);
  });

  it("a secrets store without a source: still no key to keep (/key could not keep it)", async () => {
    const noSource = setup(fakeModel(), { secrets: memorySecrets() });
    expect(await (await noSource.call("source")).json()).toEqual({
      source: "app",
      canSaveKey: false,
    });
  });
});

describe("the banner, from POST /source", () => {
  it("a notice for all is sent with the source", async () => {
    const t = setup(fakeModel(), { notice: "Demo model: scripted answers." });
    expect(await (await t.call("source")).json()).toEqual({
      source: "app",
      canSaveKey: false,
      notice: "Demo model: scripted answers.",
    });
  });

  it("a notice per source follows the user's key: null (no banner) once they saved one", async () => {
    const secrets = memorySecrets();
    const source = modelSource({ secrets });
    const t = setup(fakeModel(), {
      secrets,
      source,
      notice: (_user: unknown, which: string) =>
        which === "userKey" ? undefined : "No Claude yet.",
    });
    expect(await (await t.call("source")).json()).toMatchObject({
      source: "none",
      notice: "No Claude yet.",
    });
    expect((await t.call("key", { body: { key: ADA_KEY } })).status).toBe(204);
    expect(await (await t.call("source")).json()).toEqual({
      source: "userKey",
      canSaveKey: true,
      notice: null,
    });
  });
});
