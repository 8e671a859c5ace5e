/**
 * The example CRM as a cluster, in the test's own process: three instances
 * (startCrm) on one PostgreSQL log, one shared token and one crm.db, behind
 * the round-robin balancer. Requests go 1, 2, 3, 1, each response naming
 * its instance; an event stream opened through one instance shows turns
 * prompted through the two others, event by event; a target that is down is
 * a 502 for its own requests while the others keep answering.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LogEvent } from "elyra-assistant/log";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type RunningBalancer, startBalancer } from "../../examples/crm/balancer.ts";
import { modelFromEnv } from "../../examples/crm/modelSource.ts";
import { type RunningCrm, startCrm } from "../../examples/crm/server.ts";
import {
  havePostgres,
  type PostgresServer,
  postgresSuite,
  startPostgres,
} from "../adapters/postgresServer.ts";
import { readSse } from "../http/fixture.ts";

const TOKEN = "cluster-spec-token-0123456789";
const CLIENT = "cluster-spec";
const HEADERS = { "x-elyra-token": TOKEN, "x-elyra-client": CLIENT };

describe.skipIf(!havePostgres)(postgresSuite("the example CRM as a cluster"), () => {
  let postgres: PostgresServer;
  let dataDir: string;
  let instances: RunningCrm[] = [];
  let balancer: RunningBalancer;
  const targetErrors: Array<{ readonly target: string; readonly code: unknown }> = [];

  beforeAll(async () => {
    postgres = await startPostgres();
    dataDir = await mkdtemp(join(tmpdir(), "elyra-crm-cluster-"));
    for (const instance of ["1", "2", "3"]) {
      instances.push(
        await startCrm({
          databaseUrl: postgres.url,
          token: TOKEN,
          instance,
          dataDir,
          port: 0,
          // The offline demo model, as the server picks it without a key.
          model: modelFromEnv({}).model,
        }),
      );
    }
    balancer = await startBalancer({
      targets: instances.map((crm) => crm.url),
      onTargetError: (target, error) =>
        targetErrors.push({ target, code: (error as NodeJS.ErrnoException).code }),
    });
  }, 60_000);

  afterAll(async () => {
    await balancer?.close();
    await Promise.all(instances.map((crm) => crm.close()));
    instances = [];
    await postgres?.stop();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  }, 30_000);

  /** A request through the balancer: its status and the instance that answered it. */
  const through = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${balancer.url}${path}`, init);
    return { response, instance: response.headers.get("x-elyra-instance") };
  };

  it("each instance keeps its log in PostgreSQL and names itself on every response", async () => {
    for (const [i, crm] of instances.entries()) {
      expect(crm.log).toBe(`PostgreSQL at 127.0.0.1:${postgres.port}/postgres`);
      const response = await fetch(`${crm.url}/nowhere`);
      expect(response.status).toBe(404);
      expect(response.headers.get("x-elyra-instance")).toBe(String(i + 1));
    }
  });

  it("takes the instances in turn, 1, 2, 3, 1, and each serves the page with the shared token", async () => {
    const answered: Array<string | null> = [];
    for (let i = 0; i < 4; i++) {
      const { response, instance } = await through("/");
      expect(response.status).toBe(200);
      expect(await response.text()).toContain(`<meta name="elyra-token" content="${TOKEN}">`);
      answered.push(instance);
    }
    expect(answered).toEqual(["1", "2", "3", "1"]);
  });

  it("an event stream opened through one instance shows turns prompted through the two others, each event once", async () => {
    const controller = new AbortController();
    const opened = await through("/__assistant/events", {
      headers: HEADERS,
      signal: controller.signal,
    });
    // The head came through before there was any event: the balancer does not wait for a body.
    expect(opened.response.status).toBe(200);
    expect(opened.response.headers.get("content-type")).toBe("text/event-stream");
    const stream = readSse(opened.response);
    const answers = () => stream.events().filter((e) => e._tag === "Answered");

    const prompt = (text: string, route: string) =>
      through("/__assistant/prompt", {
        method: "POST",
        headers: { ...HEADERS, "content-type": "application/json" },
        body: JSON.stringify({ text, route }),
      });
    const first = await prompt("Which invoices are overdue?", "/invoices");
    expect(first.response.status).toBe(202);
    await vi.waitFor(() => expect(answers()).toHaveLength(1), { timeout: 15_000 });
    const second = await prompt("Find Hopper", "/customers");
    expect(second.response.status).toBe(202);
    await vi.waitFor(() => expect(answers()).toHaveLength(2), { timeout: 15_000 });

    // Three instances: the stream on one, a turn on each of the others.
    expect(new Set([opened.instance, first.instance, second.instance])).toEqual(
      new Set(["1", "2", "3"]),
    );
    // Still open: the events came one by one, not with the end of the response.
    expect(stream.ended()).toBe(false);
    const events: LogEvent[] = stream.events();
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const tools = events.flatMap((e) => (e._tag === "ToolStarted" ? [e.tool] : []));
    expect(tools).toEqual(["invoices_index", "customers_index"]);
    expect(answers().map((e) => e.turn)).toEqual([1, 2]);
    expect(answers()[0]?.text).toMatch(/invoices? (is|are) overdue/);
    controller.abort();
    await stream.done.catch(() => {});
  });

  it("a deletion asked through one instance is confirmed through another, and runs once", async () => {
    const client = "cluster-spec-delete";
    const headers = { ...HEADERS, "x-elyra-client": client, "content-type": "application/json" };
    const controller = new AbortController();
    const opened = await through("/__assistant/events", { headers, signal: controller.signal });
    const stream = readSse(opened.response);
    stream.done.catch(() => undefined);
    const asked = await through("/__assistant/prompt", {
      method: "POST",
      headers,
      body: JSON.stringify({ text: "delete customer 7", route: "/customers" }),
    });
    expect(asked.response.status).toBe(202);
    const confirmIds = () =>
      stream.events().flatMap((e) => (e._tag === "ConfirmRequested" ? [e.confirmId] : []));
    await vi.waitFor(() => expect(confirmIds()).toHaveLength(1), { timeout: 15_000 });
    const answered = await through("/__assistant/confirm", {
      method: "POST",
      headers,
      body: JSON.stringify({ confirmId: confirmIds()[0], accept: true }),
    });
    // Answered by an instance that is not the one running the turn: it asked the holder.
    expect(answered.instance).not.toBe(asked.instance);
    expect(await answered.response.json()).toEqual({
      result: { _tag: "Answered", answer: "accepted" },
    });
    await vi.waitFor(() => expect(stream.events().at(-1)).toMatchObject({ _tag: "Answered" }), {
      timeout: 15_000,
    });
    const finished = stream.events().filter((e) => e._tag === "ToolFinished");
    expect(finished).toHaveLength(1);
    expect(stream.events().at(-1)).toMatchObject({
      text: expect.stringMatching(/^Deleted customer 7/),
    });
    // Once: a second answer, through any instance, finds nothing to answer.
    const again = await through("/__assistant/confirm", {
      method: "POST",
      headers,
      body: JSON.stringify({ confirmId: confirmIds()[0], accept: true }),
    });
    expect(await again.response.json()).toEqual({ result: { _tag: "UnknownConfirmation" } });
    controller.abort();
  });

  it("answers 502 for a target that is down, and keeps serving the others", async () => {
    await instances[1]?.close();
    const answered: string[] = [];
    for (let i = 0; i < 6; i++) {
      const { response, instance } = await through("/");
      answered.push(response.status === 502 ? "502" : `${response.status} ${instance}`);
      await response.text();
    }
    // Round robin still: every third request went to the instance that is down.
    expect(answered.slice(3)).toEqual(answered.slice(0, 3));
    expect([...answered.slice(0, 3)].sort()).toEqual(["200 1", "200 3", "502"]);
    expect(targetErrors).toEqual([
      { target: new URL(instances[1]?.url as string).origin, code: "ECONNREFUSED" },
      { target: new URL(instances[1]?.url as string).origin, code: "ECONNREFUSED" },
    ]);
  });
});
