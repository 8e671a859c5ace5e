/**
 * A window's owner outlives the process: the log records whose window it is,
 * and a host opened again on the same file refuses anyone else, over every
 * route that reads the conversation, while its owner carries on.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHost, WindowOwnerMismatch } from "elyra-assistant";
import { assistantHttp } from "elyra-assistant/http";
import type { EventStore } from "elyra-assistant/log";
import { sqliteStore } from "elyra-assistant/sqlite";
import { fakeModel } from "elyra-assistant/testing";
import { afterEach, describe, expect, it } from "vitest";
import { spyApp } from "../fixtures/spyCommands.ts";
import { readSse, TOKEN, users } from "./fixture.ts";

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const appOf = () => spyApp({ allow: ["customers.*", "invoices.view"] });

/** A file with Ada's conversation in window w1, written by a host that is gone. */
const adasFile = async () => {
  const dir = await mkdtemp(join(tmpdir(), "elyra-owner-"));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, "assistant.db");
  const store = sqliteStore(file);
  const host = createHost(appOf(), { model: fakeModel().says("Ada's secret plan."), store });
  await host.window("w1", { user: users.ada }).prompt("my plan");
  await host.close();
  await store.close?.();
  return file;
};

/** A host on `store` over HTTP, as a restarted server would be. */
const served = (store: EventStore) => {
  const host = createHost(appOf(), { model: fakeModel().says("Hello Ada."), store });
  cleanup.push(() => host.close());
  const errors: unknown[] = [];
  const handle = assistantHttp(host, {
    token: TOKEN,
    authenticate: (request) => users[request.headers.get("x-test-user") ?? ""],
    heartbeatMs: 60_000,
    onError: (error) => errors.push(error),
  });
  const call = (route: string, user: string, init: { method?: string; body?: unknown } = {}) =>
    handle(
      new Request(`http://app.test/__assistant/${route}`, {
        method: init.method ?? "POST",
        headers: { "x-elyra-token": TOKEN, "x-test-user": user, "x-elyra-client": "w1" },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      }),
    );
  return { host, call, errors };
};

describe("a window's owner, across a restart", () => {
  it("the log records the owner before the window's first event", async () => {
    const file = await adasFile();
    const store = sqliteStore(file);
    cleanup.push(async () => store.close?.());
    const [first] = await store.read("conversation/w1");
    expect(first).toMatchObject({ _tag: "WindowOwned", owner: "name:Ada" });
  });

  it("another user is refused on every route that reads the conversation; nothing is run or read", async () => {
    const store = sqliteStore(await adasFile());
    cleanup.push(async () => store.close?.());
    const before = await store.lastSeq("conversation/w1");
    const { call, errors, host } = served(store);

    const events = await call("events", "bob", { method: "GET" });
    expect(events.status).toBe(403);
    expect(await events.text()).not.toContain("secret plan");
    const prompt = await call("prompt", "bob", { body: "what is the plan?" });
    expect(prompt.status).toBe(403);
    expect((await call("selected", "bob", { body: { kind: "customer", ids: [1] } })).status).toBe(
      403,
    );
    expect((await call("reset", "bob")).status).toBe(403);
    expect((await call("confirm", "bob", { body: { confirmId: "c1", accept: true } })).status).toBe(
      403,
    );
    // Nothing was written by Bob, and a refusal is not a fault.
    expect(await store.lastSeq("conversation/w1")).toBe(before);
    expect(errors).toEqual([]);

    // Ada is not locked out: her window opens, with her conversation, and goes on.
    const mine = await call("events", "ada", { method: "GET" });
    expect(mine.status).toBe(200);
    const sse = readSse(mine);
    const started = await call("prompt", "ada", { body: "and now?" });
    expect(started.status).toBe(202);
    await host.window("w1", { user: users.ada }).settled();
    await new Promise((resolve) => setTimeout(resolve, 10));
    const texts = sse.events().flatMap((e) => ("text" in e ? [e.text] : []));
    expect(texts).toContain("my plan");
    expect(texts).toContain("Hello Ada.");
    await sse.cancel();
  });

  it("host.window: the window opened by someone else fails with WindowOwnerMismatch and is forgotten", async () => {
    const store = sqliteStore(await adasFile());
    cleanup.push(async () => store.close?.());
    const { host } = served(store);
    const bobs = host.window("w1", { user: users.bob });
    await expect(bobs.prompt("hi")).rejects.toBeInstanceOf(WindowOwnerMismatch);
    expect(host.openWindows()).toBe(0);
    const adas = host.window("w1", { user: users.ada });
    expect(adas).not.toBe(bobs);
    expect((await adas.prompt("again"))._tag).toBe("Answered");
  });
});
