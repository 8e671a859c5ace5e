/**
 * The assistant's handler over a host of spy commands, and a client of it
 * over real HTTP: for the specs that mount the handler in Express, Fastify
 * and Hono. The model deletes a customer (a command that asks first), then
 * answers; the client follows the turn on the event stream as a browser tab
 * does, and answers the question as the user would.
 */

import { createApp, createHost } from "elyra-assistant";
import { type AssistantHttpOptions, assistantHttp, BASE_PATH } from "elyra-assistant/http";
import type { LogEvent } from "elyra-assistant/log";
import { type FakeModel, fakeModel, memoryStore } from "elyra-assistant/testing";
import { expect, vi } from "vitest";
import { spyCommands, type TestUser } from "../fixtures/spyCommands.ts";
import { readSse } from "../http/fixture.ts";

export const TOKEN = "host-token-0123456789";
export const CLIENT = "tab-1";
export const ada: TestUser = { name: "Ada", abilities: ["customers.*"] };

/** What the model says once the deletion ran. */
export const ANSWER = "Customer 42 is deleted.";

/** The model of the turn: delete customer 42 (asked first), then answer. */
export const confirmingModel = (): FakeModel =>
  fakeModel().toolCall("customers_delete", { id: 42 }).says(ANSWER);

/**
 * A host whose assistant may use the customer commands and asks before
 * `customers_delete`, served by `assistantHttp`. The user is named by an
 * `x-test-user` header (the app's session, in a real app).
 */
export const assistantFor = (
  model: FakeModel = confirmingModel(),
  options: Partial<AssistantHttpOptions> = {},
) => {
  const spies = spyCommands();
  const app = createApp({
    commands: spies.commands,
    userAbilities: (u) => (u as TestUser).abilities,
    assistant: { allow: ["customers.*"], confirm: ["customers.delete"] },
  });
  const host = createHost(app, { model, store: memoryStore() });
  const errors: unknown[] = [];
  const handle = assistantHttp(host, {
    token: TOKEN,
    authenticate: (request) => (request.headers.get("x-test-user") === "ada" ? ada : undefined),
    onError: (error) => errors.push(error),
    ...options,
  });
  const window = () => host.window(CLIENT, { user: ada });
  return { host, spies, handle, errors, window };
};

export type Assistant = ReturnType<typeof assistantFor>;

const signedIn = { "x-elyra-token": TOKEN, "x-elyra-client": CLIENT, "x-test-user": "ada" };

/**
 * A client of the routes at `origin` + `base`, over `fetch`: a body is sent
 * as JSON with its content type, as the browser client sends it (so a body
 * parser in front would take it).
 */
export const clientOf = (origin: string, base: string = BASE_PATH) => ({
  post: (route: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${origin}${base}/${route}`, {
      method: "POST",
      headers: {
        ...signedIn,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  /** `GET /events`, read as it arrives; aborting `signal` leaves. */
  events: async (signal: AbortSignal, headers: Record<string, string> = {}) => {
    const response = await fetch(`${origin}${base}/events`, {
      headers: { ...signedIn, ...headers },
      signal,
    });
    const stream = readSse(response);
    // A stream cut off rejects `done`: told to whoever awaits it, never unhandled.
    stream.done.catch(() => undefined);
    return { response, stream };
  },
});

type Confirm = Extract<LogEvent, { _tag: "ConfirmRequested" }>;

/** How long the stream may take to show an event the log has: far more than it needs. */
const ARRIVES_WITHIN_MS = 5_000;

/**
 * Counts the feeds of the window's log that event streams hold open: one
 * while a client reads `/events`, none once it left.
 */
export const countFeeds = (t: Assistant) => {
  const count = { open: 0 };
  const window = t.window();
  const follow = window.follow.bind(window);
  vi.spyOn(window, "follow").mockImplementation(async (...args) => {
    const following = await follow(...args);
    count.open++;
    const feed = following.feed;
    let cancelled = false;
    return {
      ...following,
      feed: {
        next: () => feed.next(),
        cancel: () => {
          if (!cancelled) count.open--;
          cancelled = true;
          feed.cancel();
        },
      },
    };
  });
  return count;
};

/**
 * A turn with a confirmation over real HTTP, as a tab runs it: the event
 * stream opened first, the prompt posted, the question read off the stream
 * while the turn waits on it (so a stream held back until the turn ends
 * would never show it: the turn cannot end before the answer), the answer
 * posted, the stream read to the turn's `Answered`, then left. Checks each
 * step, and that the command ran once.
 */
export const turnWithConfirmation = async (
  t: Assistant,
  origin: string,
  base: string = BASE_PATH,
) => {
  const client = clientOf(origin, base);
  const feeds = countFeeds(t);
  const leave = new AbortController();
  const { response, stream } = await client.events(leave.signal);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("text/event-stream");
  expect(response.headers.get("x-accel-buffering")).toBe("no");
  // Nothing in front compressed it (a compressor holds frames back to fill its window).
  expect(response.headers.get("content-encoding")).toBeNull();

  const prompted = await client.post("prompt", { text: "Delete customer 42", route: "/customers" });
  expect(prompted.status).toBe(202);
  expect(await prompted.json()).toEqual({ turn: 1 });

  await vi.waitFor(
    () => expect(stream.events().some((e) => e._tag === "ConfirmRequested")).toBe(true),
    { timeout: ARRIVES_WITHIN_MS, interval: 10 },
  );
  const question = stream.events().find((e) => e._tag === "ConfirmRequested") as Confirm;
  expect(question).toMatchObject({ tool: "customers_delete", args: { id: 42 } });
  // The turn is waiting on the question: nothing ran, nothing answered, the window busy.
  expect(stream.events().some((e) => e._tag === "Answered")).toBe(false);
  expect(t.spies.runs.get("customers_delete")).toBeUndefined();
  expect(t.window().state()).not.toBe("idle");

  const confirmed = await client.post("confirm", {
    confirmId: question.confirmId,
    accept: true,
    tool: question.tool,
    args: question.args,
  });
  expect(confirmed.status).toBe(200);
  expect(await confirmed.json()).toEqual({ result: { _tag: "Answered", answer: "accepted" } });

  await vi.waitFor(() => expect(stream.events().some((e) => e._tag === "Answered")).toBe(true), {
    timeout: ARRIVES_WITHIN_MS,
    interval: 10,
  });
  expect(stream.events().find((e) => e._tag === "Answered")).toMatchObject({
    turn: 1,
    text: ANSWER,
  });
  expect(t.spies.runs.get("customers_delete")).toBe(1);
  expect(t.spies.total()).toBe(1);
  // Every event once, in order, each with its seq.
  expect(stream.events().map((e) => e.seq)).toEqual(
    Array.from({ length: stream.messages.length }, (_, i) => i + 1),
  );

  // The tab leaves: through the framework, the handler sees it and lets go of the log.
  expect(feeds.open).toBe(1);
  leave.abort();
  await stream.done.catch(() => undefined);
  await vi.waitFor(() => expect(feeds.open).toBe(0), { timeout: ARRIVES_WITHIN_MS });
  expect(t.errors).toEqual([]);
  return stream;
};
