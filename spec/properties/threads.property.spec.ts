/**
 * T1: threads under random use, model-based (issue 33). Two users, four
 * thread ids, one shared memory store, hosts restarted at random. Random
 * operations: a prompt in a thread (a prompt naming "write" makes the model
 * call a write command first), rename, archive or bring back, delete a
 * thread, erase a user, restart the host. Checked after every operation,
 * against a model of what each user has:
 * 1. each user's list (both archived and not) is exactly their live threads,
 *    with the model's titles, turns and archive flags;
 * 2. each live thread's own words find it, and only it, by search; another
 *    user's search finds nothing of it;
 * 3. every request the model was sent for a thread holds that thread's
 *    words only (no turn of another thread, nor of the same id before it
 *    was erased);
 * 4. an erased thread's log is one tombstone, and its words are in no
 *    stream, list, search or export;
 * 5. the write command ran exactly once per prompt that asked for it:
 *    never again after a restart, an erasure or a rename.
 */
import { Schema } from "effect";
import { createApp, createHost, defineCommand, type Host, type Model } from "elyra-assistant";
import { memoryStore } from "elyra-assistant/testing";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { ownerStream } from "../../src/actors/log/userUsage.ts";
import { streamOf } from "../../src/actors/log/windowLog.ts";
import type { Message } from "../../src/runtime/prompt/model.ts";
import { runs, timeoutFor } from "./runs.ts";

const USERS = [{ id: "ada" }, { id: "bob" }] as const;
const IDS = ["t0", "t1", "t2", "t3"] as const;

type Op =
  | { op: "prompt"; user: number; thread: number; write: boolean }
  | { op: "rename"; user: number; thread: number; name: number }
  | { op: "archive"; user: number; thread: number; archived: boolean }
  | { op: "delete"; user: number; thread: number }
  | { op: "eraseUser"; user: number }
  | { op: "restart" };

const user = fc.nat({ max: USERS.length - 1 });
const thread = fc.nat({ max: IDS.length - 1 });
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ op: fc.constant("prompt" as const), user, thread, write: fc.boolean() }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("rename" as const),
      user,
      thread,
      name: fc.nat({ max: 9 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("archive" as const),
      user,
      thread,
      archived: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("delete" as const), user, thread }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("eraseUser" as const), user }) },
  { weight: 1, arbitrary: fc.constant({ op: "restart" as const }) },
);

/** The text of a message, its blocks' text joined. */
const textOf = (message: Message): string =>
  typeof message.content === "string"
    ? message.content
    : message.content
        .map((b) => ("text" in b ? b.text : "content" in b ? String(b.content) : ""))
        .join(" ");

/** The words a prompt is made of: the thread's generation (its id and how often it was erased), and a count. */
const WORD = /\bg[a-z0-9]+q\d+\b/g;

interface Held {
  owner: number;
  generation: string;
  title: string;
  turns: number;
  archived: boolean;
  words: string[];
}

const runOps = async (ops: ReadonlyArray<Op>) => {
  const store = memoryStore({ shared: {} });
  const writes: string[] = [];
  /** For each model request: the thread generation it was for, and every generation word it held. */
  const sent: Array<{ readonly words: string[] }> = [];
  const model: Model = {
    step: async (request) => {
      const text = request.messages.map(textOf).join("\n");
      sent.push({ words: text.match(WORD) ?? [] });
      const last = request.messages.at(-1);
      const lastText = last === undefined ? "" : textOf(last);
      const answered =
        last?.role === "user" &&
        typeof last.content !== "string" &&
        last.content.some((b) => b.type === "tool_result");
      const prompt = (lastText.match(WORD) ?? []).at(-1) ?? "none";
      if (lastText.includes("please write") && !answered)
        return {
          content: [
            {
              type: "tool_use",
              id: `toolu_${writes.length}_${sent.length}`,
              name: "notes_write",
              input: { text: prompt },
            },
          ],
          stopReason: "tool_use",
          usage: { inputTokens: 10, outputTokens: 5 },
        };
      return {
        content: [{ type: "text", text: `noted ${prompt}` }],
        stopReason: "end_turn",
        usage: { inputTokens: 10, outputTokens: 5 },
      };
    },
  };
  const app = createApp({
    commands: [
      defineCommand({
        name: "notes_write",
        description: "Write a note.",
        can: "notes.write",
        args: { text: Schema.String },
        run: ({ text }) => {
          writes.push(text);
          return { ok: true };
        },
      }),
    ],
    userAbilities: () => ["notes.write"],
    assistant: { allow: ["notes.*"] },
  });
  const start = () => createHost(app, { model, store, onError: () => undefined });
  let host: Host = start();
  const held = new Map<string, Held>();
  const erasedTimes = new Map<string, number>();
  const expectedWrites: string[] = [];
  const erasedWords: string[] = [];
  let count = 0;
  const generationOf = (id: string) => `g${id}e${erasedTimes.get(id) ?? 0}`;
  const eraseModel = (id: string) => {
    const h = held.get(id);
    if (h !== undefined) erasedWords.push(...h.words);
    held.delete(id);
    erasedTimes.set(id, (erasedTimes.get(id) ?? 0) + 1);
  };
  try {
    for (const o of ops) {
      if (o.op === "restart") {
        await host.close();
        host = start();
      } else if (o.op === "prompt") {
        const id = IDS[o.thread]!;
        const h = held.get(id);
        const erased = (erasedTimes.get(id) ?? 0) > 0 && h === undefined;
        const word = `${generationOf(id)}q${count++}`;
        const text = `about ${word}${o.write ? " please write" : ""}`;
        const user = USERS[o.user];
        const ended = await Promise.resolve()
          .then(() => host.window(id, { user }).prompt(text))
          .then(
            (end) => end._tag,
            (error: unknown) => (error as { _tag?: string })._tag,
          );
        if (erased || (h !== undefined && h.owner !== o.user)) {
          // An erased id, or another user's thread: refused, nothing written.
          expect(ended).toMatch(/ThreadNotFound|WindowOwnerMismatch/);
          continue;
        }
        expect(ended).toBe("Answered");
        const w = host.window(id, { user });
        await w.settled();
        await (w as unknown as { indexed: () => Promise<void> }).indexed();
        if (o.write) expectedWrites.push(word);
        const now = h ?? {
          owner: o.user,
          generation: generationOf(id),
          title: text,
          turns: 0,
          archived: false,
          words: [],
        };
        now.turns++;
        now.words.push(word);
        held.set(id, now);
      } else if (o.op === "rename" || o.op === "archive" || o.op === "delete") {
        const id = IDS[o.thread]!;
        const h = held.get(id);
        const mine = h !== undefined && h.owner === o.user;
        const user = USERS[o.user];
        const done =
          o.op === "rename"
            ? host.threads.rename({ user, id, title: `name${o.name}` })
            : o.op === "archive"
              ? host.threads.archive({ user, id, archived: o.archived })
              : host.threads.delete({ user, id });
        const outcome = await done.then(
          () => "done",
          (error: unknown) => (error as { _tag?: string })._tag,
        );
        expect(outcome).toBe(mine ? "done" : "ThreadNotFound");
        if (!mine || h === undefined) continue;
        if (o.op === "rename") h.title = `name${o.name}`;
        else if (o.op === "archive") h.archived = o.archived;
        else eraseModel(id);
      } else {
        const user = USERS[o.user];
        const theirs = [...held].filter(([, h]) => h.owner === o.user).map(([id]) => id);
        expect(await host.erase({ user })).toEqual({ threads: theirs.length });
        for (const id of theirs) eraseModel(id);
      }

      // 1. The lists.
      for (const [u, user] of USERS.entries())
        for (const archived of [false, true]) {
          const listed = (await host.threads.list({ user, archived, limit: 100 })).threads;
          const expected = [...held]
            .filter(([, h]) => h.owner === u && h.archived === archived)
            .map(([id, h]) => ({ id, title: h.title, turns: h.turns, archived }));
          expect(
            listed
              .map((t) => ({ id: t.id, title: t.title, turns: t.turns, archived: t.archived }))
              .sort((a, b) => a.id.localeCompare(b.id)),
          ).toEqual(expected.sort((a, b) => a.id.localeCompare(b.id)));
        }
      // 2. Search by a thread's own words.
      for (const [id, h] of held) {
        const word = h.words.at(-1)!;
        expect(
          (await host.threads.search({ user: USERS[h.owner], text: word })).map((t) => t.id),
        ).toEqual([id]);
        expect(await host.threads.search({ user: USERS[1 - h.owner], text: word })).toEqual([]);
      }
      // 4. Nothing of an erased thread is readable.
      if (erasedWords.length > 0) {
        const readable: string[] = [];
        for (const id of IDS) readable.push(JSON.stringify(await store.read(streamOf(id), 0)));
        for (const [, user] of USERS.entries()) {
          readable.push(JSON.stringify(await store.read(ownerStream(`id:${user.id}`), 0)));
          for (const archived of [false, true])
            readable.push(JSON.stringify(await host.threads.list({ user, archived, limit: 100 })));
          let exported = "";
          for await (const piece of host.export({ user })) exported += piece;
          readable.push(exported);
        }
        const all = readable.join("\n");
        for (const word of erasedWords) {
          expect(all).not.toContain(word);
          for (const user of USERS)
            expect(await host.threads.search({ user, text: word })).toEqual([]);
        }
        for (const id of IDS)
          if (!held.has(id) && (erasedTimes.get(id) ?? 0) > 0) {
            const log = await store.read(streamOf(id), 0);
            expect(log.filter((e) => e._tag !== "Erased")).toEqual([]);
          }
      }
    }
    // 3. Each request held one thread generation's words only.
    for (const request of sent) {
      const generations = new Set(request.words.map((w) => w.replace(/q\d+$/, "")));
      expect(generations.size).toBeLessThanOrEqual(1);
    }
    // 5. Each write ran once, for the prompt that asked.
    expect(writes).toEqual(expectedWrites);
  } finally {
    await host.close();
  }
};

describe("T1: threads under random use (model-based)", () => {
  afterAll(() => undefined);
  it(
    "lists, searches, erasures and the model's requests agree with the model of each user's threads",
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(op, { maxLength: 12 }), async (ops) => runOps(ops)),
        { numRuns: runs(1_000) },
      );
    },
    timeoutFor(120_000),
  );
});
