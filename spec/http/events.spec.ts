/** GET /events: the log replayed, then live; resumed after Last-Event-ID with nothing missed or twice. */
import type { LogEvent } from "elyra-assistant/log";
import { fakeModel } from "elyra-assistant/testing";
import { describe, expect, it, vi } from "vitest";
import { readSse, setup } from "./fixture.ts";

const turnEnded = async (t: ReturnType<typeof setup>) => {
  await vi.waitFor(() => expect(t.ada.state()).toBe("idle"));
  await t.ada.settled();
};

/** Every event of Ada's log, as stored. */
const logOf = async (t: ReturnType<typeof setup>): Promise<LogEvent[]> => {
  const all: LogEvent[] = [];
  const s = t.ada.events$().subscribe((e) => all.push(e));
  await vi.waitFor(() => expect(all).toHaveLength(t.ada.lastSeq()));
  s.unsubscribe();
  return all;
};

describe("GET /events", () => {
  it("is an event stream with the headers proxies need", async () => {
    const t = setup();
    const controller = new AbortController();
    const response = await t.call("events", { signal: controller.signal });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("cache-control")).toBe("no-cache, no-transform");
    expect(response.headers.get("x-accel-buffering")).toBe("no");
    controller.abort();
    await readSse(response).done;
  });

  it("replays the log, then streams each new event live, each with its seq and the log's epoch as id", async () => {
    const t = setup(fakeModel().says("One.").toolCall("customers_show", { id: 42 }).says("Ada."));
    await t.call("prompt", { body: "First" });
    await turnEnded(t);
    const before = t.ada.lastSeq();
    expect(before).toBeGreaterThan(3);

    const controller = new AbortController();
    const stream = readSse(await t.call("events", { signal: controller.signal }));
    await vi.waitFor(() => expect(stream.messages).toHaveLength(before));

    await t.call("prompt", { body: "Who is 42?" });
    await turnEnded(t);
    await vi.waitFor(() => expect(stream.messages).toHaveLength(t.ada.lastSeq()));

    expect(stream.events()).toEqual(await logOf(t));
    const epoch = stream.messages[0]?.id?.split(".")[1];
    expect(epoch).toMatch(/^[0-9a-z]+$/);
    expect(stream.messages.map((m) => m.id)).toEqual(
      stream.events().map((e) => `${e.seq}.${epoch}`),
    );
    expect(stream.events().at(-1)).toMatchObject({ _tag: "Answered", turn: 2, text: "Ada." });
    controller.abort();
    await stream.done;
  });

  it.each([
    [
      "the Last-Event-ID header",
      (seq: number) => ({ path: "events", headers: { "last-event-id": String(seq) } }),
    ],
    ["?lastEventId=", (seq: number) => ({ path: `events?lastEventId=${seq}`, headers: {} })],
  ])("resumes after %s: nothing missed, nothing twice", async (_, resume) => {
    const t = setup(fakeModel().says("One.").hangs().says("Three."));
    const first = new AbortController();
    const a = readSse(await t.call("events", { signal: first.signal }));
    await t.call("prompt", { body: "First" });
    await turnEnded(t);
    // Mid-turn: the client drops while the second turn runs.
    await t.call("prompt", { body: "Second" });
    await t.ada.settled();
    await vi.waitFor(() => expect(a.messages).toHaveLength(t.ada.lastSeq()));
    first.abort();
    await a.done;
    const seen = a.events();
    const last = seen.at(-1)?.seq as number;

    // What happens while it is away.
    await t.call("stop");
    await turnEnded(t);
    await t.call("prompt", { body: "Third" });
    await turnEnded(t);
    expect(t.ada.lastSeq()).toBeGreaterThan(last);

    const second = new AbortController();
    const { path, headers } = resume(last);
    const b = readSse(await t.call(path, { headers, signal: second.signal }));
    await vi.waitFor(() => expect(b.events().at(-1)?.seq).toBe(t.ada.lastSeq()));
    // Events after it has reconnected arrive too.
    await t.call("selected", { body: { kind: "customer", ids: [1] } });
    await vi.waitFor(() => expect(b.events().at(-1)?._tag).toBe("SelectionChanged"));

    const together = [...seen, ...b.events()];
    expect(together).toEqual(await logOf(t));
    expect(b.events()[0]?.seq).toBe(last + 1);
    expect(new Set(together.map((e) => e.seq)).size).toBe(together.length);
    second.abort();
    await b.done;
  });

  it("a resume point past the log's end starts over: startOver first, then the whole log", async () => {
    const t = setup(fakeModel().says("One."));
    await t.call("prompt", { body: "First" });
    await turnEnded(t);
    const controller = new AbortController();
    const past = `${t.ada.lastSeq() + 5}`;
    const stream = readSse(
      await t.call("events", { headers: { "last-event-id": past }, signal: controller.signal }),
    );
    await vi.waitFor(() => expect(stream.events().at(-1)?._tag).toBe("Answered"));
    expect(stream.messages[0]).toMatchObject({ event: "startOver", data: "{}" });
    expect(stream.messages.slice(1).map((m) => (JSON.parse(m.data) as LogEvent).seq)).toEqual(
      Array.from({ length: t.ada.lastSeq() }, (_, i) => i + 1),
    );
    controller.abort();
    await stream.done;
  });

  it("an id of another epoch of the log starts over; one of this epoch resumes after it", async () => {
    const t = setup(fakeModel().says("One."));
    await t.call("prompt", { body: "First" });
    await turnEnded(t);
    const first = readSse(await t.call("events"));
    await vi.waitFor(() => expect(first.messages).toHaveLength(t.ada.lastSeq()));
    await first.cancel();
    const id = first.messages[1]?.id as string;
    const [seq, epoch] = id.split(".") as [string, string];

    const other = readSse(
      await t.call("events", { headers: { "last-event-id": `${seq}.zz${epoch}` } }),
    );
    await vi.waitFor(() => expect(other.messages).toHaveLength(t.ada.lastSeq() + 1));
    expect(other.messages[0]?.event).toBe("startOver");
    await other.cancel();

    const same = readSse(await t.call("events", { headers: { "last-event-id": id } }));
    await vi.waitFor(() => expect(same.messages).toHaveLength(t.ada.lastSeq() - 2));
    expect(same.messages[0]?.event).toBeUndefined();
    expect(same.events()[0]?.seq).toBe(3);
    await same.cancel();
  });

  it("sends a comment line every heartbeat while nothing else is said", async () => {
    const t = setup(fakeModel(), { heartbeatMs: 5 });
    const controller = new AbortController();
    const stream = readSse(await t.call("events", { signal: controller.signal }));
    await vi.waitFor(() => expect(stream.comments.length).toBeGreaterThanOrEqual(2));
    expect(stream.comments.every((c) => c.trim() === "ping")).toBe(true);
    expect(stream.messages).toEqual([]);
    controller.abort();
    await stream.done;
  });

  /** Counts the feeds of Ada's window open now. */
  const countFeeds = (t: ReturnType<typeof setup>) => {
    const count = { open: 0 };
    const follow = t.ada.follow.bind(t.ada);
    vi.spyOn(t.ada, "follow").mockImplementation(async (id, options) => {
      const following = await follow(id, options);
      count.open++;
      const feed = following.feed;
      return {
        ...following,
        feed: {
          next: () => feed.next(),
          cancel: () => {
            count.open--;
            feed.cancel();
          },
        },
      };
    });
    return count;
  };

  it("ends when the request's signal aborts, and lets go of the log", async () => {
    const t = setup(fakeModel().says("One."));
    const count = countFeeds(t);
    const controller = new AbortController();
    const stream = readSse(await t.call("events", { signal: controller.signal }));
    expect(count.open).toBe(1);
    controller.abort();
    await stream.done;
    expect(stream.ended()).toBe(true);
    expect(count.open).toBe(0);
  });

  it("ends when the client cancels the body, and lets go of the log", async () => {
    const t = setup();
    const count = countFeeds(t);
    const response = await t.call("events");
    expect(count.open).toBe(1);
    await response.body?.cancel();
    expect(count.open).toBe(0);
  });
});
