/**
 * The HTTP handler over a host of spy commands, called with `Request`s: no
 * sockets. Users are named by an `x-test-user` header the app's
 * `authenticate` reads.
 */
import { createApp, createHost } from "elyra-assistant";
import { type AssistantHttpOptions, assistantHttp, ROUTE_METHODS } from "elyra-assistant/http";
import type { LogEvent } from "elyra-assistant/log";
import { type FakeModel, fakeModel, memoryStore } from "elyra-assistant/testing";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { vi } from "vitest";
import { spyCommands, type TestUser } from "../fixtures/spyCommands.ts";

export const TOKEN = "host-token-0123456789";

export const users: Readonly<Record<string, TestUser>> = {
  ada: { name: "Ada", abilities: ["customers.*", "invoices.view"] },
  bob: { name: "Bob", abilities: ["customers.*", "invoices.view"] },
  eve: { name: "Eve", abilities: ["customers.view"] },
  /** Signed in by a session alone: neither an id nor a name to keep anything under. */
  anon: {
    session: "session-token-0123456789",
    abilities: ["customers.view"],
  } as unknown as TestUser,
};

export interface Call {
  readonly method?: string;
  /** JSON-encoded unless a string given as `raw`. */
  readonly body?: unknown;
  readonly raw?: string;
  readonly user?: string | null;
  readonly client?: string | null;
  readonly token?: string | null;
  readonly headers?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
}

/** The method each route takes. */
export const METHOD: Readonly<Record<string, "GET" | "POST">> = ROUTE_METHODS;

export const setup = (
  model: FakeModel = fakeModel(),
  options: Partial<AssistantHttpOptions> = {},
) => {
  const spies = spyCommands();
  const app = createApp({
    commands: spies.commands,
    userAbilities: (u) => (u as TestUser).abilities,
    assistant: { allow: ["customers.*", "invoices.view"], confirm: ["customers.delete"] },
  });
  const host = createHost(app, { model, store: memoryStore() });
  const errors: unknown[] = [];
  const authenticate = vi.fn((request: Request) => {
    const name = request.headers.get("x-test-user");
    return name === null ? undefined : users[name];
  });
  const handle = assistantHttp(host, {
    token: TOKEN,
    authenticate,
    heartbeatMs: 60_000,
    onError: (error) => errors.push(error),
    ...options,
  });
  const request = (path: string, call: Call = {}): Request => {
    const route = path.split("?")[0] as string;
    const method = call.method ?? METHOD[route] ?? "POST";
    const headers = new Headers(call.headers);
    if (call.token !== null) headers.set("x-elyra-token", call.token ?? TOKEN);
    if (call.user !== null) headers.set("x-test-user", call.user ?? "ada");
    if (call.client !== null) headers.set("x-elyra-client", call.client ?? "w1");
    const body =
      call.raw ??
      (call.body === undefined || method === "GET" ? undefined : JSON.stringify(call.body));
    return new Request(`http://app.test/__assistant/${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body }),
      ...(call.signal === undefined ? {} : { signal: call.signal }),
    });
  };
  const call = (path: string, c: Call = {}) => handle(request(path, c));
  const ada = host.window("w1", { user: users.ada });
  return { app, host, spies, model, handle, call, request, errors, authenticate, ada };
};

/** An SSE response read as it arrives: its messages, its comments, whether it ended. */
export const readSse = (response: Response) => {
  const messages: EventSourceMessage[] = [];
  const comments: string[] = [];
  const parser = createParser({
    onEvent: (message) => messages.push(message),
    onComment: (comment) => comments.push(comment),
  });
  let ended = false;
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const done = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
    ended = true;
  })();
  return {
    messages,
    comments,
    /** The log events received so far. */
    events: () => messages.map((m) => JSON.parse(m.data) as LogEvent),
    values: () => messages.map((m) => JSON.parse(m.data) as unknown),
    ended: () => ended,
    done,
    cancel: () => reader.cancel(),
  };
};
