/** GET /events: the log replayed, then live; resumed after Last-Event-ID with nothing missed or twice. */
import type { LogEvent } from "elyra-assistant";
import { fakeModel } from "elyra-assistant/testing";
import { finalize } from "rxjs";
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
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(response.headers.get("x-accel-buffering")).toBe("no");
    controller.abort();
    await readSse(response).done;
  });

  it("replays the log, then streams each new event live, each with its seq as id", async () => {
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
    expect(stream.messages.map((m) => m.id)).toEqual(stream.events().map((e) => String(e.seq)));
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

  it("a resume point past the end waits for newer events", async () => {
    const t = setup(fakeModel().says("One."));
    const controller = new AbortController();
    const stream = readSse(
      await t.call("events", { headers: { "last-event-id": "2" }, signal: controller.signal }),
    );
    await t.call("prompt", { body: "First" });
    await turnEnded(t);
    await vi.waitFor(() => expect(stream.events().at(-1)?._tag).toBe("Answered"));
    expect(stream.events()[0]?.seq).toBe(3);
    controller.abort();
    await stream.done;
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

  it("ends when the request's signal aborts, and lets go of the log", async () => {
    const t = setup(fakeModel().says("One."));
    let open = 0;
    const events$ = t.ada.events$.bind(t.ada);
    vi.spyOn(t.ada, "events$").mockImplementation((fromSeq) => {
      open++;
      return events$(fromSeq).pipe(finalize(() => open--));
    });
    const controller = new AbortController();
    const stream = readSse(await t.call("events", { signal: controller.signal }));
    expect(open).toBe(1);
    controller.abort();
    await stream.done;
    expect(stream.ended()).toBe(true);
    expect(open).toBe(0);
  });

  it("ends when the client cancels the body, and lets go of the log", async () => {
    const t = setup();
    let open = 0;
    const events$ = t.ada.events$.bind(t.ada);
    vi.spyOn(t.ada, "events$").mockImplementation((fromSeq) => {
      open++;
      return events$(fromSeq).pipe(finalize(() => open--));
    });
    const response = await t.call("events");
    expect(open).toBe(1);
    await response.body?.cancel();
    expect(open).toBe(0);
  });
});
