/**
 * POST /close: a page saying goodbye. The caller's window is closed (its event
 * streams end after what was stored, its memory is freed), another user's is
 * refused and left open, an unknown one is not opened to be closed, and the
 * next request opens the window again, on a durable log as it was.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp, createHost } from "elyra-assistant";
import { assistantHttp } from "elyra-assistant/http";
import type { EventStore, LogEvent } from "elyra-assistant/log";
import { sqliteStore } from "elyra-assistant/sqlite";
import { fakeModel, memoryStore } from "elyra-assistant/testing";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { spyCommands, type TestUser } from "../fixtures/spyCommands.ts";
import { readSse, setup, TOKEN, users } from "./fixture.ts";

type Setup = ReturnType<typeof setup>;

const turnEnded = async (t: Setup) => {
  await vi.waitFor(() => expect(t.ada.state()).toBe("idle"));
  await t.ada.settled();
};

/** Every event of Ada's log, as stored. */
const logOf = async (t: Setup): Promise<LogEvent[]> => {
  const all: LogEvent[] = [];
  const s = t.ada.events$().subscribe((e) => all.push(e));
  await vi.waitFor(() => expect(all).toHaveLength(t.ada.lastSeq()));
  s.unsubscribe();
  return all;
};

/** Lets queued work (appends, stream frames) run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

/** Ada's open event stream, read as it arrives, once it has replayed the log. */
const adaStream = async (t: Setup) => {
  const controller = new AbortController();
  const response = await t.call("events", { signal: controller.signal });
  expect(response.status).toBe(200);
  const stream = readSse(response);
  await vi.waitFor(() => expect(stream.messages).toHaveLength(t.ada.lastSeq()));
  return { stream, controller };
};

/** A fresh directory for each test of the describe it is called in, removed after it. */
const tempDirs = () => {
  let dir = "";
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "elyra-close-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  return () => dir;
};

/** A host over a SQLite store on a file of `dir`; `dispose` closes both. */
const durableHost = (dir: string, model = fakeModel()) => {
  const store = sqliteStore(join(dir, "events.db"));
  const h = hostOver(store, model);
  const dispose = async () => {
    await h.host.close();
    await store.close();
  };
  return { ...h, store, dispose };
};

/** A host over `store`, its HTTP handler, and requests to it as Ada (or `user`) in window w1 (or `client`). */
const hostOver = (store: EventStore, model = fakeModel()) => {
  const app = createApp({
    commands: spyCommands().commands,
    userAbilities: (u) => (u as TestUser).abilities,
    assistant: { allow: ["customers.*", "invoices.view"], confirm: ["customers.delete"] },
  });
  const host = createHost(app, { model, store });
  const errors: unknown[] = [];
  const handle = assistantHttp(host, {
    token: TOKEN,
    authenticate: (request) => users[request.headers.get("x-test-user") ?? ""],
    heartbeatMs: 60_000,
    onError: (error) => errors.push(error),
  });
  const call = (
    route: string,
    init: {
      method?: string;
      body?: unknown;
      user?: string;
      client?: string;
      signal?: AbortSignal;
    } = {},
  ) =>
    handle(
      new Request(`http://app.test/__assistant/${route}`, {
        method: init.method ?? (route === "events" ? "GET" : "POST"),
        headers: {
          "x-elyra-token": TOKEN,
          "x-test-user": init.user ?? "ada",
          "x-elyra-client": init.client ?? "w1",
        },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
        ...(init.signal === undefined ? {} : { signal: init.signal }),
      }),
    );
  /** Ada's window w1, once its turn has ended and its log is stored. */
  const idle = async () => {
    const w = host.window("w1", { user: users.ada });
    await vi.waitFor(() => expect(w.state()).toBe("idle"));
    await w.settled();
    return w;
  };
  return { host, model, call, errors, idle };
};

describe("POST /close of the caller's own window", () => {
  it("answers 204, frees the window, and ends its open event stream after the stored events", async () => {
    const t = setup(fakeModel().says("Hi."));
    await t.call("prompt", { body: "Hello" });
    await turnEnded(t);
    const stored = await logOf(t);
    expect(stored.at(-1)).toMatchObject({ _tag: "Answered", text: "Hi." });
    const { stream } = await adaStream(t);
    expect(t.host.openWindows()).toBe(1);

    const response = await t.call("close");
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    expect(t.host.openWindows()).toBe(0);

    // The stream's body finishes by itself: nobody aborted the request.
    await vi.waitFor(() => expect(stream.ended()).toBe(true));
    await stream.done;
    expect(stream.events()).toEqual(stored);
    // The window the host hands out next is a new one, not the closed one.
    expect(t.host.window("w1", { user: users.ada })).not.toBe(t.ada);
  });

  it("ends every open stream of the window, and no other window's", async () => {
    const t = setup(fakeModel().says("Hi.").says("Still here."));
    await t.call("prompt", { body: "Hello" });
    await turnEnded(t);
    const a = await adaStream(t);
    const b = await adaStream(t);
    const bob = new AbortController();
    const bobs = readSse(await t.call("events", { user: "bob", client: "w2", signal: bob.signal }));
    expect(t.host.openWindows()).toBe(2);

    expect((await t.call("close")).status).toBe(204);
    await vi.waitFor(() => expect(a.stream.ended() && b.stream.ended()).toBe(true));
    expect(a.stream.events()).toEqual(b.stream.events());
    expect(t.host.openWindows()).toBe(1);

    // Bob's stream is still open and still told what his window does.
    await settle();
    expect(bobs.ended()).toBe(false);
    expect((await t.call("prompt", { user: "bob", client: "w2", body: "Hi" })).status).toBe(202);
    await vi.waitFor(() => expect(bobs.events().at(-1)?._tag).toBe("Answered"));
    bob.abort();
    await bobs.done;
  });

  it("a stream the close comes right after still gets the stored events, then ends", async () => {
    const t = setup(fakeModel().says("Hi."));
    await t.call("prompt", { body: "Hello" });
    await turnEnded(t);
    const stored = await logOf(t);
    const controller = new AbortController();
    // Not waited on: nothing of the stream has been read when the close is sent.
    const stream = readSse(await t.call("events", { signal: controller.signal }));
    expect((await t.call("close")).status).toBe(204);
    await vi.waitFor(() => expect(stream.ended()).toBe(true));
    expect(stream.events()).toEqual(stored);
    expect(t.host.openWindows()).toBe(0);
  });

  it("a close while the stream is still reading the log: what was stored is sent, then it ends", async () => {
    // Reads of w1's log wait for the gate, so the close comes in the middle of the replay.
    const inner = memoryStore();
    let open = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let gated = false;
    const store: EventStore = {
      ...inner,
      read: async (stream, fromSeq) => {
        const events = await inner.read(stream, fromSeq);
        if (gated) await gate;
        return events;
      },
    };
    const h = hostOver(store, fakeModel().says("Hi."));
    expect((await h.call("prompt", { body: "Hello" })).status).toBe(202);
    await h.idle();
    const stored = await inner.read("conversation/w1");
    expect(stored.at(-1)).toMatchObject({ _tag: "Answered", text: "Hi." });

    gated = true;
    const stream = readSse(await h.call("events"));
    expect((await h.call("close")).status).toBe(204);
    expect(h.host.openWindows()).toBe(0);
    await settle();
    expect(stream.messages).toEqual([]);
    open();
    await vi.waitFor(() => expect(stream.ended()).toBe(true));
    expect(stream.events()).toEqual(stored);
    expect(h.errors).toEqual([]);
  });

  it("during a turn: the turn ends Stopped, and the stream delivers that end before it ends", async () => {
    const t = setup(fakeModel().hangs());
    const { stream } = await adaStream(t);
    expect((await t.call("prompt", { body: "Hello" })).status).toBe(202);
    await vi.waitFor(() => expect(stream.events().map((e) => e._tag)).toContain("TurnStarted"));

    expect((await t.call("close")).status).toBe(204);
    await vi.waitFor(() => expect(stream.ended()).toBe(true));
    expect(t.host.openWindows()).toBe(0);
    expect(stream.events().at(-1)).toMatchObject({ _tag: "Stopped", turn: 1 });
  });

  it("closing again, or a window never opened, answers 204 and opens nothing", async () => {
    const t = setup();
    expect((await t.call("close")).status).toBe(204);
    expect(t.host.openWindows()).toBe(0);

    const again = await t.call("close");
    expect(again.status).toBe(204);
    expect(await again.text()).toBe("");
    expect(t.host.openWindows()).toBe(0);

    for (const [user, client] of [
      ["ada", "never-opened"],
      ["bob", "never-opened-either"],
    ] as const) {
      const response = await t.call("close", { user, client });
      expect(response.status, client).toBe(204);
      expect(t.host.openWindows(), client).toBe(0);
    }
  });

  it("an unknown window's close leaves the windows that are open as they are", async () => {
    const t = setup();
    expect(t.host.openWindows()).toBe(1);
    expect((await t.call("close", { client: "w9" })).status).toBe(204);
    // Still only Ada's w1: w9 was not opened to be closed.
    expect(t.host.openWindows()).toBe(1);
    expect(t.host.window("w1", { user: users.ada })).toBe(t.ada);
  });
});

describe("POST /close of a window that is not open", () => {
  /** A memory store that counts what is asked of each stream. */
  const countingStore = () => {
    const inner = memoryStore();
    const touched: string[] = [];
    const store: EventStore = {
      ...inner,
      append: (stream, events, expectedSeq) => {
        touched.push(`append ${stream}`);
        return inner.append(stream, events, expectedSeq);
      },
      read: (stream, fromSeq) => {
        touched.push(`read ${stream}`);
        return inner.read(stream, fromSeq);
      },
      lastSeq: (stream) => {
        touched.push(`lastSeq ${stream}`);
        return inner.lastSeq(stream);
      },
      drop: (stream) => {
        touched.push(`drop ${stream}`);
        return inner.drop(stream);
      },
    };
    return { store, touched };
  };

  it("is not opened to be closed: nothing of its log is read, written or dropped", async () => {
    const { store, touched } = countingStore();
    const h = hostOver(store);
    const response = await h.call("close", { client: "never-opened" });
    expect(response.status).toBe(204);
    await settle();
    expect(h.host.openWindows()).toBe(0);
    expect(touched.filter((op) => op.includes("never-opened"))).toEqual([]);
    expect(h.errors).toEqual([]);
    await h.host.close();
  });
});

describe("POST /close of another user's window", () => {
  it("answers 403 notYourWindow, and the window, its stream and its turn go on", async () => {
    const t = setup(fakeModel().says("Hi.").says("Again."));
    await t.call("prompt", { body: "Hello" });
    await turnEnded(t);
    const { stream, controller } = await adaStream(t);
    const seq = t.ada.lastSeq();
    expect(t.host.openWindows()).toBe(1);

    const response = await t.call("close", { user: "bob", client: "w1" });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      error: { type: "notYourWindow", message: "this window belongs to another user" },
    });

    expect(t.host.openWindows()).toBe(1);
    expect(t.host.window("w1", { user: users.ada })).toBe(t.ada);
    await settle();
    expect(stream.ended()).toBe(false);
    expect(t.ada.lastSeq()).toBe(seq);

    // The same stream is still told what Ada does next.
    expect((await t.call("prompt", { body: "And again" })).status).toBe(202);
    await turnEnded(t);
    await vi.waitFor(() => expect(stream.events().at(-1)).toMatchObject({ text: "Again." }));
    expect(stream.ended()).toBe(false);
    controller.abort();
    await stream.done;
  });
});

describe("POST /close refused before anything is read", () => {
  it("no token: 403 forbidden; no user: 401; the window stays open", async () => {
    const t = setup();
    const { stream, controller } = await adaStream(t);
    const noToken = await t.call("close", { token: null });
    expect(noToken.status).toBe(403);
    expect(await noToken.json()).toEqual({
      error: { type: "forbidden", message: "the host's token is missing or wrong" },
    });
    const noUser = await t.call("close", { user: null });
    expect(noUser.status).toBe(401);
    expect(await noUser.json()).toEqual({
      error: { type: "unauthenticated", message: "no signed-in user" },
    });
    const noClient = await t.call("close", { client: null });
    expect(noClient.status).toBe(400);
    expect(await noClient.json()).toEqual({
      error: { type: "badRequest", message: "x-elyra-client: the header is missing" },
    });

    await settle();
    expect(t.host.openWindows()).toBe(1);
    expect(t.host.window("w1", { user: users.ada })).toBe(t.ada);
    expect(stream.ended()).toBe(false);
    controller.abort();
    await stream.done;
  });

  it("GET /close is a 405 that takes POST, and closes nothing", async () => {
    const t = setup();
    const { stream, controller } = await adaStream(t);
    const response = await t.call("close", { method: "GET" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    expect(await response.json()).toEqual({
      error: { type: "methodNotAllowed", message: "this route takes POST" },
    });
    await settle();
    expect(t.host.openWindows()).toBe(1);
    expect(stream.ended()).toBe(false);
    controller.abort();
    await stream.done;
  });
});

describe("after POST /close, the next request opens the window again", () => {
  it("on the memory store the log went with the window: it opens again empty", async () => {
    const t = setup(fakeModel().says("Hi."));
    await t.call("prompt", { body: "Hello" });
    await turnEnded(t);
    expect((await t.call("close")).status).toBe(204);
    expect(t.host.openWindows()).toBe(0);

    expect((await t.call("tools")).status).toBe(200);
    expect(t.host.openWindows()).toBe(1);
    const reopened = t.host.window("w1", { user: users.ada });
    expect(reopened).not.toBe(t.ada);
    await reopened.settled();
    expect(reopened.history().messages).toEqual([]);
  });

  describe("on a durable store (SQLite on a file)", () => {
    const dir = tempDirs();
    const durable = () => durableHost(dir(), fakeModel().says("Hi.").says("Welcome back."));

    it("its events are all there on GET /events, and the conversation goes on from them", async () => {
      const d = durable();
      try {
        expect((await d.call("prompt", { body: "Hello" })).status).toBe(202);
        const before = await d.idle();
        const lastSeq = before.lastSeq();
        expect(lastSeq).toBeGreaterThan(2);

        const first = readSse(await d.call("events"));
        await vi.waitFor(() => expect(first.messages).toHaveLength(lastSeq));
        expect((await d.call("close")).status).toBe(204);
        expect(d.host.openWindows()).toBe(0);
        await vi.waitFor(() => expect(first.ended()).toBe(true));
        const seen = first.events();
        expect(seen.at(-1)).toMatchObject({ _tag: "Answered", turn: 1, text: "Hi." });

        // The next request opens the window again, on the same log.
        const controller = new AbortController();
        const second = readSse(await d.call("events", { signal: controller.signal }));
        expect(d.host.openWindows()).toBe(1);
        await vi.waitFor(() => expect(second.messages).toHaveLength(seen.length));
        expect(second.events()).toEqual(seen);
        expect(d.host.window("w1", { user: users.ada })).not.toBe(before);

        // The conversation goes on as turn 2, and the model is sent turn 1 with it.
        expect(await (await d.call("prompt", { body: "Again" })).json()).toEqual({ turn: 2 });
        const after = await d.idle();
        expect(after.history().messages.map((m) => m.content)).toEqual([
          "Hello",
          "Hi.",
          "Again",
          "Welcome back.",
        ]);
        expect(d.model.requests.at(-1)?.messages.length).toBeGreaterThanOrEqual(3);
        expect(JSON.stringify(d.model.requests.at(-1)?.messages[0])).toContain("Hello");
        await vi.waitFor(() => expect(second.events().at(-1)?.seq).toBe(after.lastSeq()));
        expect(second.events().slice(0, seen.length)).toEqual(seen);
        controller.abort();
        await second.done;
        expect(d.errors).toEqual([]);
      } finally {
        await d.dispose();
      }
    });

    it("another user still cannot close or read it once it was closed and opened again", async () => {
      const d = durable();
      try {
        expect((await d.call("prompt", { body: "Hello" })).status).toBe(202);
        await d.idle();
        expect((await d.call("close")).status).toBe(204);
        // Ada opens it again; then Bob tries.
        expect((await d.call("tools")).status).toBe(200);
        expect(d.host.openWindows()).toBe(1);
        const bob = await d.call("close", { user: "bob" });
        expect(bob.status).toBe(403);
        expect(await bob.json()).toMatchObject({ error: { type: "notYourWindow" } });
        expect((await d.call("events", { user: "bob" })).status).toBe(403);
        expect(d.host.openWindows()).toBe(1);
      } finally {
        await d.dispose();
      }
    });
  });
});

/**
 * BUGS (these fail today; reported, not fixed here). The host forgets a
 * closing window at once, but the window goes on writing to (and, on a memory
 * store, dropping) its stream after that: a request for the same client id
 * that comes meanwhile opens a second window on the same stream, and the
 * closed window's last writes land after what its streams were sent.
 */
describe("a close and what the closing window still does", () => {
  const dir = tempDirs();

  /** Ada's w1 waiting on her answer to delete customer 42, with her event stream open. */
  const waitingOnDelete = async () => {
    const d = durableHost(
      dir(),
      fakeModel().toolCall("customers_delete", { id: 42 }).says("Deleted.").says("Again."),
    );
    const stream = readSse(await d.call("events"));
    expect((await d.call("prompt", { body: "Delete customer 42" })).status).toBe(202);
    await vi.waitFor(() =>
      expect(stream.events().map((e) => e._tag)).toContain("ConfirmRequested"),
    );
    return { d, stream };
  };

  // The tool call waiting on the confirmation is cancelled by the close; a closed window writes
  // nothing more, so the log ends where its streams did (it used to log ToolFinished after).
  it("with a confirmation waiting: nothing is stored after the stream was sent its last event", async () => {
    const { d, stream } = await waitingOnDelete();
    try {
      expect((await d.call("close")).status).toBe(204);
      await vi.waitFor(() => expect(stream.ended()).toBe(true));
      await settle();
      expect(stream.events()).toEqual(await d.store.read("conversation/w1"));
    } finally {
      await d.dispose();
    }
  });

  // The window opened by the second request reads the log once the closing one is done with it
  // (it used to read first, and the closing window's late append made its next one conflict).
  it("with a confirmation waiting, a request for the window during the close: the next prompt is taken", async () => {
    const { d } = await waitingOnDelete();
    try {
      const [closed, reopened] = await Promise.all([d.call("close"), d.call("tools")]);
      expect([closed.status, reopened.status]).toEqual([204, 200]);
      await settle();
      expect(d.host.openWindows()).toBe(1);
      const prompt = await d.call("prompt", { body: "Again" });
      expect(prompt.status).toBe(202);
      expect(d.errors).toEqual([]);
    } finally {
      await d.dispose();
    }
  });

  // The closing window drops conversation/w1 from the memory store before the new window reads
  // it (it used to drop it after, and the new window's next append conflicted: a 500).
  it("on the memory store, a request for the window during the close: the next prompt is taken", async () => {
    const t = setup(fakeModel().says("Hi.").says("Again."));
    await t.call("prompt", { body: "Hello" });
    await turnEnded(t);
    const [closed, reopened] = await Promise.all([t.call("close"), t.call("tools")]);
    expect([closed.status, reopened.status]).toEqual([204, 200]);
    await settle();
    expect(t.host.openWindows()).toBe(1);
    const prompt = await t.call("prompt", { body: "Again" });
    expect(prompt.status).toBe(202);
    expect(t.errors).toEqual([]);
  });
});
