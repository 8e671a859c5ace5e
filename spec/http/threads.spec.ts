/**
 * Issue 33, items 1 and 4: the thread routes. A user lists, searches, gets,
 * renames, archives and deletes their own threads; another user's thread is
 * the same 404 as one that never was, nothing of it is written, and no
 * answer carries its words.
 */
import { fakeModel } from "elyra-assistant/testing";
import { describe, expect, it } from "vitest";
import { setup } from "./fixture.ts";

/** Ada asks in threads t1 and t2, Bob in t3: each turn's end stored and indexed. */
const threeThreads = async () => {
  const t = setup(
    fakeModel()
      .says("Her credit limit is 20 000.")
      .says("Three invoices are overdue.")
      .says("Bob's secret answer."),
  );
  for (const [client, user, text] of [
    ["t1", "ada", "What is Ada Lovelace's credit limit?"],
    ["t2", "ada", "Which invoices are overdue?"],
    ["t3", "bob", "Bob's secret question"],
  ] as const) {
    const response = await t.call("prompt", { client, user, body: { text } });
    expect(response.status).toBe(202);
    const w = t.host.window(client, { user: { name: user === "ada" ? "Ada" : "Bob" } });
    await w.settled();
    await (w as unknown as { indexed: () => Promise<void> }).indexed();
  }
  return t;
};

const json = async (response: Response) => ({
  status: response.status,
  body: (await response.json()) as Record<string, unknown>,
});

const NOT_FOUND = { error: { type: "threadNotFound", message: "no such conversation" } };

describe("the thread routes", () => {
  it("POST /threads lists the user's threads, most recent first, without owner or seq", async () => {
    const t = await threeThreads();
    const { status, body } = await json(await t.call("threads", { body: {} }));
    expect(status).toBe(200);
    const threads = body.threads as Array<Record<string, unknown>>;
    expect(threads.map((x) => x.id)).toEqual(["t2", "t1"]);
    expect(threads[1]).toMatchObject({
      title: "What is Ada Lovelace's credit limit?",
      preview: "Her credit limit is 20 000.",
      turns: 1,
      archived: false,
    });
    expect(Object.keys(threads[0] ?? {}).sort()).toEqual(
      ["archived", "createdAt", "id", "lastAt", "preview", "title", "turns"].sort(),
    );
    expect(body.next).toBeUndefined();
    const bob = await json(await t.call("threads", { user: "bob", body: {} }));
    expect((bob.body.threads as Array<{ id: string }>).map((x) => x.id)).toEqual(["t3"]);
  });

  it("pages: limit and next; a next no page gave is a 400", async () => {
    const t = await threeThreads();
    const first = await json(await t.call("threads", { body: { limit: 1 } }));
    expect((first.body.threads as Array<{ id: string }>).map((x) => x.id)).toEqual(["t2"]);
    expect(typeof first.body.next).toBe("string");
    const second = await json(
      await t.call("threads", { body: { limit: 1, after: first.body.next } }),
    );
    expect((second.body.threads as Array<{ id: string }>).map((x) => x.id)).toEqual(["t1"]);
    expect(second.body.next).toBeUndefined();
    const bad = await json(await t.call("threads", { body: { after: "forged" } }));
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { type: "badRequest" } });
  });

  it("POST /threads/search finds the user's own words only, a hostile query as plain words", async () => {
    const t = await threeThreads();
    const found = await json(await t.call("threads/search", { body: { text: "lovelace credit" } }));
    expect(found.status).toBe(200);
    const [hit] = found.body.threads as Array<{ id: string; snippet: string }>;
    expect(hit?.id).toBe("t1");
    expect(hit?.snippet).toContain("Lovelace");
    const theirs = await json(await t.call("threads/search", { body: { text: "secret" } }));
    expect(theirs.body.threads).toEqual([]);
    for (const text of [
      '"',
      "*",
      "NEAR(a b)",
      "'); DROP TABLE x; --",
      "(a|b)+$",
      "x".repeat(60_000),
    ]) {
      const response = await t.call("threads/search", { body: { text } });
      expect(response.status, text.slice(0, 20)).toBe(200);
      expect(JSON.stringify(await response.json())).not.toContain("secret");
    }
  });

  it("get, rename, archive and delete the user's own thread", async () => {
    const t = await threeThreads();
    expect(
      (await t.call("threads/rename", { body: { id: "t1", title: "Ada's limit" } })).status,
    ).toBe(204);
    const got = await json(await t.call("threads/get", { body: { id: "t1" } }));
    expect(got).toMatchObject({ status: 200, body: { id: "t1", title: "Ada's limit" } });
    expect((await t.call("threads/archive", { body: { id: "t1" } })).status).toBe(204);
    const listed = await json(await t.call("threads", { body: {} }));
    expect((listed.body.threads as Array<{ id: string }>).map((x) => x.id)).toEqual(["t2"]);
    const archived = await json(await t.call("threads", { body: { archived: true } }));
    expect((archived.body.threads as Array<{ id: string }>).map((x) => x.id)).toEqual(["t1"]);
    expect((await t.call("threads/delete", { body: { id: "t1" } })).status).toBe(204);
    expect(await json(await t.call("threads/get", { body: { id: "t1" } }))).toEqual({
      status: 404,
      body: NOT_FOUND,
    });
    expect(await json(await t.call("threads", { body: { archived: true } }))).toMatchObject({
      body: { threads: [] },
    });
  });

  it("another user's thread is the same 404 as one that never was, and nothing of it is written", async () => {
    const t = await threeThreads();
    const bobs = t.host.window("t3", { user: { name: "Bob" } });
    const before = bobs.lastSeq();
    for (const id of ["t3", "never-was"]) {
      for (const [route, body] of [
        ["threads/get", { id }],
        ["threads/rename", { id, title: "Ada's now" }],
        ["threads/archive", { id }],
        ["threads/delete", { id }],
      ] as const) {
        const answer = await json(await t.call(route, { body }));
        expect(answer, `${route} ${id}`).toEqual({ status: 404, body: NOT_FOUND });
      }
    }
    await bobs.settled();
    expect(bobs.lastSeq()).toBe(before);
    const bob = await json(await t.call("threads", { user: "bob", body: {} }));
    expect(bob.body.threads).toMatchObject([{ id: "t3", title: "Bob's secret question" }]);
  });

  it("bad bodies are 400s naming the field", async () => {
    const t = await threeThreads();
    for (const [route, body] of [
      ["threads/get", {}],
      ["threads/get", { id: "t/1" }],
      ["threads/rename", { id: "t1" }],
      ["threads/search", {}],
      ["threads", { limit: "ten" }],
      ["threads/archive", { id: "t1", archived: "yes" }],
    ] as const) {
      const answer = await json(await t.call(route, { body }));
      expect(answer.status, route).toBe(400);
    }
  });
});
