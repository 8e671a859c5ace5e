/**
 * Notices that join a queued catch-up are read, every one of them. While one
 * catch-up of a window's log reads, the notice of the next seq queues
 * another, and the notices after it join that one (a burst makes one read).
 * The first catch-up's read may already reach the queued one's own seq: the
 * queued one must still read to the last seq that joined it. (Found by the
 * multi-host property, spec/properties/multiHost.spec.ts: the queued
 * catch-up looked only at the first notice's seq, found it read, and read
 * nothing, so the events only its joiners told were never kept nor told to
 * the window's readers, though the store had told their seqs.)
 */
import type { EventStore, LogEvent } from "elyra-assistant/log";
import { memoryStore, simulatedClock } from "elyra-assistant/testing";
import { describe, expect, it } from "vitest";
import { windowLog } from "../../src/actors/log/windowLog.ts";

const STREAM = "conversation/w";
const OWNER = "ada";

/** A store whose next read takes its rows at once and gives them back when released. */
const slowRead = () => {
  const inner = memoryStore();
  let hold: { readonly started: () => void; readonly release: Promise<void> } | undefined;
  const store: EventStore = {
    ...inner,
    read: async (stream, fromSeq, toSeq) => {
      const rows = await inner.read(stream, fromSeq, toSeq);
      const held = hold;
      hold = undefined;
      if (held !== undefined) {
        held.started();
        await held.release;
      }
      return rows;
    },
  };
  /** Holds the next read; resolves once it has read, with the function that lets it go. */
  const holdNextRead = () => {
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    return new Promise<() => void>((started) => {
      hold = { started: () => started(release), release: released };
    });
  };
  /** Another host's append of seq `seq`. */
  const other = (seq: number) =>
    inner.append(STREAM, [{ _tag: "Reset", turn: 0, at: seq }], seq - 1);
  return { store, holdNextRead, other };
};

describe("notices that join a catch-up queued behind one that is reading", () => {
  const opened = async () => {
    const { store, holdNextRead, other } = slowRead();
    await other(1);
    const log = windowLog(store, STREAM, simulatedClock(0), () => undefined);
    await log.reload();
    const seen: number[] = [];
    log.appended$.subscribe((event: LogEvent) => seen.push(event.seq));
    return { log, seen, holdNextRead, other, store };
  };

  it("are read to the last seq told, though the catch-up reading reached the first one's", async () => {
    const { log, seen, holdNextRead, other } = await opened();
    await other(2);
    await other(3);
    const reading = holdNextRead();
    const first = log.catchUp(2, OWNER);
    const release = await reading; // it reads seqs 2 and 3
    // Seq 3's notice queues the next catch-up; seq 4's joins it.
    const second = log.catchUp(3, OWNER);
    await other(4);
    const joined = log.catchUp(4, OWNER);
    release();
    await Promise.all([first, second, joined]);
    await log.idle();
    expect(seen).toEqual([2, 3, 4]);
    expect(log.lastSeq()).toBe(4);
  });

  it("after a Resync's catch-up read past the queued one's first seq", async () => {
    const { log, seen, holdNextRead, other } = await opened();
    await other(2);
    await other(3);
    const reading = holdNextRead();
    const resync = log.catchUp(undefined, OWNER);
    const release = await reading; // it reads to seq 3, the store's last when it asked
    const queued = log.catchUp(2, OWNER);
    const joined3 = log.catchUp(3, OWNER);
    await other(4);
    const joined4 = log.catchUp(4, OWNER);
    release();
    await Promise.all([resync, queued, joined3, joined4]);
    await log.idle();
    expect(seen).toEqual([2, 3, 4]);
    expect(log.lastSeq()).toBe(4);
  });
});
