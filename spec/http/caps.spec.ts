/**
 * What one host serves at most, refused in words with 429: a new window
 * while `maxWindows` are open and none is idle (busy windows no longer
 * escape the cap), an event stream past `maxStreamsPerWindow` on one window
 * or past `maxStreamsPerUser` across a user's windows. What is refused
 * opens nothing; a place given back can be taken again.
 */
import { createApp, createHost, type HostOptions } from "elyra-assistant";
import { assistantHttp } from "elyra-assistant/http";
import { fakeModel, memoryStore } from "elyra-assistant/testing";
import { afterEach, describe, expect, it, vi } from "vitest";

const TOKEN = "host-token-0123456789";
const streams: AbortController[] = [];
afterEach(() => {
  for (const stream of streams.splice(0)) stream.abort();
});

const served = (options: Partial<HostOptions>) => {
  const app = createApp({ commands: [], userAbilities: () => [], assistant: { allow: [] } });
  const host = createHost(app, { model: fakeModel(), store: memoryStore(), ...options });
  const handle = assistantHttp(host, {
    token: TOKEN,
    heartbeatMs: 60_000,
    authenticate: (request) => ({ id: request.headers.get("x-test-user") ?? "ada" }),
  });
  const events = async (client: string, user = "ada") => {
    const stream = new AbortController();
    streams.push(stream);
    const response = await handle(
      new Request("http://app.test/__assistant/events", {
        headers: { "x-elyra-token": TOKEN, "x-elyra-client": client, "x-test-user": user },
        signal: stream.signal,
      }),
    );
    return { response, close: () => stream.abort() };
  };
  return { host, events };
};

const refusalOf = async (response: Response) => ({
  status: response.status,
  retryAfter: response.headers.get("retry-after"),
  body: await response.json(),
});

describe("maxWindows counts busy windows too", () => {
  it("a new window while every open one is busy is a 429 hostFull; an idle one makes room", async () => {
    const { host, events } = served({ maxWindows: 3 });
    const open = [];
    for (const client of ["w1", "w2", "w3"]) {
      const stream = await events(client);
      expect(stream.response.status).toBe(200);
      open.push(stream);
    }
    const refused = await events("w4");
    expect(await refusalOf(refused.response)).toEqual({
      status: 429,
      retryAfter: "5",
      body: {
        error: {
          type: "hostFull",
          message: "this host has too many conversations open just now; try again shortly",
        },
      },
    });
    expect(host.openWindows()).toBe(3);
    // An open window is still served.
    expect((await events("w1")).response.status).toBe(200);
    // One goes idle (its only stream ends): the new window takes its place.
    open[1]?.close();
    await vi.waitFor(async () => expect((await events("w4")).response.status).toBe(200));
    expect(host.openWindows()).toBe(3);
  });
});

describe("event streams", () => {
  it("past maxStreamsPerWindow on one window: 429 tooManyStreams; a stream closed gives its place back", async () => {
    const { events } = served({ maxStreamsPerWindow: 2 });
    const first = await events("w1");
    expect(first.response.status).toBe(200);
    expect((await events("w1")).response.status).toBe(200);
    const refused = await events("w1");
    expect(await refusalOf(refused.response)).toEqual({
      status: 429,
      retryAfter: null,
      body: {
        error: {
          type: "tooManyStreams",
          message: "this conversation is open in 2 places already: close one, then try again",
        },
      },
    });
    first.close();
    await vi.waitFor(async () => expect((await events("w1")).response.status).toBe(200));
  });

  it("past maxStreamsPerUser across a user's windows: 429; another user is not counted with them", async () => {
    const { events } = served({ maxStreamsPerUser: 3 });
    for (const client of ["a1", "a2", "a3"])
      expect((await events(client)).response.status).toBe(200);
    const refused = await events("a4");
    expect(refused.response.status).toBe(429);
    expect((await refused.response.json()).error).toEqual({
      type: "tooManyStreams",
      message: "you have 3 conversations streaming already: close one, then try again",
    });
    expect((await events("b1", "bob")).response.status).toBe(200);
  });

  it("400 streams on one window from one user are not served: 16 are, by default", async () => {
    const { events } = served({});
    const statuses: number[] = [];
    for (let i = 0; i < 400; i++) statuses.push((await events("w1")).response.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(16);
    expect(statuses.filter((s) => s === 429)).toHaveLength(384);
  });
});
