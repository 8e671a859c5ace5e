/**
 * `modelSource()` with the real SDK against the stand-in Messages API: the
 * order (backend, then the user's key, then `ANTHROPIC_API_KEY`, then none)
 * as the headers the stand-in received show it, per user, through the host.
 */
import { createApp, createHost, memorySecrets, type Secrets } from "elyra-assistant";
import {
  type BackendSource,
  type ModelSourceOptions,
  modelSource,
  NoKeySlot,
} from "elyra-assistant/anthropic";
import { fails, type StandInMessagesApi, says, standInMessagesApi } from "elyra-assistant/testing";
import { afterEach, describe, expect, it } from "vitest";
import { spyCommands, type TestUser } from "../fixtures/spyCommands.ts";

type Person = TestUser & { readonly id: number };
const ada: Person = { id: 1, name: "Ada", abilities: ["customers.view"] };
const bob: Person = { id: 2, name: "Bob", abilities: ["customers.view"] };

const ADA_KEY = "sk-ant-api03-ada-0123456789abcdef";
const ENV_KEY = "sk-ant-api03-env-0123456789abcdef";

const request = {
  model: "claude-sonnet-5-5",
  system: "You help.",
  tools: [],
  maxTokens: 100,
  messages: [{ role: "user" as const, content: "Hi" }],
};
const signal = () => new AbortController().signal;

let api: StandInMessagesApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

/** A source whose every client (the backend's too) talks to a fresh stand-in answering "Hello.". */
const sourceOver = async (
  options: Omit<ModelSourceOptions, "client" | "backend"> & {
    readonly backend?: Omit<BackendSource, "baseURL">;
  },
) => {
  api = await standInMessagesApi(() => says("Hello."));
  const url = api.url;
  const { backend, ...rest } = options;
  return modelSource({
    ...rest,
    ...(backend === undefined ? {} : { backend: { ...backend, baseURL: url } }),
    client: { baseURL: url, maxRetries: 0 },
  });
};

/** The credentials the stand-in saw on its last request. */
const lastHeaders = () => {
  const headers = api?.requests.at(-1)?.headers ?? {};
  return { authorization: headers.authorization, apiKey: headers["x-api-key"] };
};

const secretsWith = async (entries: Record<string, string>): Promise<Secrets> => {
  const secrets = memorySecrets();
  for (const [user, key] of Object.entries(entries)) await secrets.set(user, key);
  return secrets;
};

describe("modelSource: the order", () => {
  it("backend first, whatever else is set: a bearer token, no API key", async () => {
    const source = await sourceOver({
      backend: { authToken: (user) => `session-${(user as Person).id}` },
      secrets: await secretsWith({ "id:1": ADA_KEY }),
      env: { ANTHROPIC_API_KEY: ENV_KEY },
    });
    expect(await source.which(ada)).toBe("backend");
    const response = await source.forUser(ada).step(request, { signal: signal() });
    expect(response.stopReason).toBe("end_turn");
    expect(lastHeaders()).toEqual({ authorization: "Bearer session-1", apiKey: undefined });
    await source.forUser(bob).step(request, { signal: signal() });
    expect(lastHeaders()).toEqual({ authorization: "Bearer session-2", apiKey: undefined });
  });

  it("a backend token for all serves callers with no user too", async () => {
    const source = await sourceOver({ backend: { authToken: "one-for-all" } });
    await source.step(request, { signal: signal() });
    expect(lastHeaders()).toEqual({ authorization: "Bearer one-for-all", apiKey: undefined });
  });

  it("then the user's own key, before the environment's", async () => {
    const source = await sourceOver({
      secrets: await secretsWith({ "id:1": ADA_KEY }),
      env: { ANTHROPIC_API_KEY: ENV_KEY },
    });
    expect(await source.which(ada)).toBe("userKey");
    await source.forUser(ada).step(request, { signal: signal() });
    // SDK 1.14 sends an API key as a bearer token, not as x-api-key.
    expect(lastHeaders()).toEqual({ authorization: `Bearer ${ADA_KEY}`, apiKey: undefined });

    expect(await source.which(bob)).toBe("environment");
    await source.forUser(bob).step(request, { signal: signal() });
    expect(lastHeaders()).toEqual({ authorization: `Bearer ${ENV_KEY}`, apiKey: undefined });
  });

  it("a key kept or forgotten counts from the next step on", async () => {
    const secrets = memorySecrets();
    const source = await sourceOver({ secrets, env: { ANTHROPIC_API_KEY: ENV_KEY } });
    const model = source.forUser(ada);
    await model.step(request, { signal: signal() });
    expect(lastHeaders().authorization).toBe(`Bearer ${ENV_KEY}`);
    await secrets.set("id:1", ADA_KEY);
    await model.step(request, { signal: signal() });
    expect(lastHeaders().authorization).toBe(`Bearer ${ADA_KEY}`);
    await secrets.delete("id:1");
    expect(await source.which(ada)).toBe("environment");
    await model.step(request, { signal: signal() });
    expect(lastHeaders().authorization).toBe(`Bearer ${ENV_KEY}`);
  });

  it("none: which says so, and a step fails as auth before any request", async () => {
    const source = await sourceOver({
      secrets: memorySecrets(),
      env: { ANTHROPIC_API_KEY: "  " },
    });
    expect(await source.which(ada)).toBe("none");
    await expect(source.forUser(ada).step(request, { signal: signal() })).rejects.toMatchObject({
      _tag: "ModelError",
      kind: "auth",
      message: expect.stringMatching(/^No model is set up/),
    });
    await expect(source.step(request, { signal: signal() })).rejects.toMatchObject({
      kind: "auth",
    });
    expect(api?.requests).toEqual([]);
  });

  it("reads no variable of the process: only the env it is given", async () => {
    const before = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = ENV_KEY;
    try {
      const source = await sourceOver({});
      expect(await source.which(ada)).toBe("none");
    } finally {
      if (before === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = before;
    }
  });

  it("a secrets store that fails is an auth failure that says nothing of why", async () => {
    const broken: Secrets = {
      get: () => Promise.reject(new Error(`disk error near ${ADA_KEY}`)),
      set: () => Promise.resolve(),
      delete: () => Promise.resolve(),
    };
    const source = await sourceOver({ secrets: broken });
    const error = await source
      .forUser(ada)
      .step(request, { signal: signal() })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      kind: "auth",
      message: "the model's credentials could not be read",
    });
  });

  it("the user's key is the host's userKey unless given", async () => {
    const source = await sourceOver({
      secrets: await secretsWith({ "name:Ada": ADA_KEY, "team-1": ENV_KEY }),
      userKey: (user) => `team-${(user as Person).id}`,
    });
    expect(source.userKey(ada)).toBe("team-1");
    expect(await source.which(ada)).toBe("userKey");
    expect(modelSource({}).userKey(ada)).toBe("id:1");
    expect(modelSource({}).userKey({ name: "Ada" })).toBe("name:Ada");
  });

  it("an id that is a number and one that is a string spelling it are two users, each with their own key", async () => {
    const source = await sourceOver({ secrets: await secretsWith({}) });
    expect(source.userKey({ id: 1 })).not.toBe(source.userKey({ id: "1" }));
    const secrets = await secretsWith({ [source.userKey({ id: 1 })]: ADA_KEY });
    const keyed = await sourceOver({ secrets, env: { ANTHROPIC_API_KEY: ENV_KEY } });
    expect(await keyed.which({ id: 1 })).toBe("userKey");
    expect(await keyed.which({ id: "1" })).toBe("environment");
  });

  it("a user with neither id nor name has no key of their own: NoKeySlot, and their steps go to the next source", async () => {
    const secrets = await secretsWith({});
    const source = await sourceOver({ secrets, env: { ANTHROPIC_API_KEY: ENV_KEY } });
    const visitor = { session: "session-token-0123456789" };
    expect(() => source.userKey(visitor)).toThrow(NoKeySlot);
    expect(() => source.userKey(visitor)).toThrow(/neither an id nor a name/);
    expect(await source.which(visitor)).toBe("environment");
  });
});

describe("modelSource through the host (modelFor)", () => {
  it("each window's steps go to its own user's source", async () => {
    const spies = spyCommands();
    const app = createApp({
      commands: spies.commands,
      userAbilities: (u) => (u as TestUser).abilities,
      assistant: { allow: ["customers.*"] },
    });
    const source = await sourceOver({
      secrets: await secretsWith({ "id:1": ADA_KEY }),
      env: { ANTHROPIC_API_KEY: ENV_KEY },
    });
    const host = createHost(app, { model: source, modelFor: source.forUser });
    expect(await host.window("w-ada", { user: ada }).prompt("Hi")).toMatchObject({
      _tag: "Answered",
      text: "Hello.",
    });
    expect(lastHeaders().authorization).toBe(`Bearer ${ADA_KEY}`);
    await host.window("w-bob", { user: bob }).prompt("Hi");
    expect(lastHeaders().authorization).toBe(`Bearer ${ENV_KEY}`);
    await host.close();
  });

  it("a backend that refuses code mode: the turn fails saying so, in words", async () => {
    const spies = spyCommands();
    const app = createApp({
      commands: spies.commands,
      userAbilities: (u) => (u as TestUser).abilities,
      assistant: { allow: ["customers.*"] },
    });
    api = await standInMessagesApi([
      fails(422, "invalid_request_error", "code_execution_20260120 is not allowed here"),
    ]);
    const source = modelSource({
      backend: { baseURL: api.url, authToken: "session" },
      client: { maxRetries: 0 },
    });
    const host = createHost(app, { model: source, modelFor: source.forUser });
    const w = host.window("w1", { user: ada });
    const message =
      "This server doesn't allow code mode (code_execution_20260120 is refused by the backend).";
    expect(await w.prompt("Sum the invoices")).toMatchObject({ _tag: "Failed", error: message });
    await w.settled();
    expect(w.panel().items.at(-1)).toMatchObject({ kind: "error", error: message });
    await host.close();
  });
});
