/**
 * Three host processes on one PostgreSQL database, each request sent to any
 * of them: a turn with two confirmations, each answered through another
 * host, is seen identically by an event stream on every host, and each
 * command runs once. The holder killed (SIGKILL) mid-confirmation or
 * mid-turn is taken over by another host within the lease time: the turn is
 * recorded interrupted once, the question is dead, nothing runs again, and
 * the next prompt works. The holder paused (SIGSTOP) past its lease is
 * taken over the same way; continued (SIGCONT), the Accept it is sent runs
 * nothing, and it takes a new prompt at once. Both takeover times are
 * printed.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LogEvent } from "elyra-assistant/log";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  havePostgres,
  type PostgresServer,
  postgresSuite,
  startPostgres,
} from "../adapters/postgresServer.ts";
import { SOURCE_NODE_ARGS } from "../fixtures/sourceNode.ts";
import { readSse } from "../http/fixture.ts";

const LEASE_MS = 1_500;
const HEARTBEAT_MS = 300;
const SCHEMA = "cluster";
const CLUSTER_TOKEN = "cluster-token-0123456789";

interface Running {
  readonly id: string;
  readonly child: ChildProcess;
  readonly url: string;
}

describe.skipIf(!havePostgres)(postgresSuite("three host processes on one database"), () => {
  let postgres: PostgresServer;
  let dir: string;
  let runsFile: string;
  let hosts: Running[] = [];

  const startHost = (id: string) =>
    new Promise<Running>((resolve, reject) => {
      const child = spawn(process.execPath, [...SOURCE_NODE_ARGS, "spec/fixtures/clusterHost.ts"], {
        env: {
          ...process.env,
          DATABASE_URL: postgres.url,
          SCHEMA,
          HOST_ID: id,
          RUNS_FILE: runsFile,
          LEASE_MS: String(LEASE_MS),
          HEARTBEAT_MS: String(HEARTBEAT_MS),
          TOKEN: CLUSTER_TOKEN,
        },
        stdio: ["ignore", "pipe", "inherit"],
      });
      let out = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        const url = /listening (\S+)/.exec(out)?.[1];
        if (url !== undefined) resolve({ id, child, url });
      });
      child.once("exit", (code) => reject(new Error(`host ${id} exited ${code}: ${out}`)));
    });

  beforeAll(async () => {
    postgres = await startPostgres();
    dir = await mkdtemp(join(tmpdir(), "elyra-cluster-"));
    runsFile = join(dir, "runs.txt");
    await writeFile(runsFile, "");
    hosts = await Promise.all(["h1", "h2", "h3"].map(startHost));
  }, 60_000);

  afterAll(async () => {
    for (const host of hosts) if (host.child.exitCode === null) host.child.kill("SIGKILL");
    await postgres?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  }, 30_000);

  const headers = (client: string) => ({
    "x-elyra-token": CLUSTER_TOKEN,
    "x-elyra-client": client,
    "content-type": "application/json",
  });
  const post = async (host: Running, client: string, route: string, body: unknown) => {
    const response = await fetch(`${host.url}/__assistant/${route}`, {
      method: "POST",
      headers: headers(client),
      body: JSON.stringify(body),
    });
    return {
      status: response.status,
      body: response.status === 204 ? null : await response.json(),
    };
  };
  const follow = async (host: Running, client: string) => {
    const controller = new AbortController();
    const response = await fetch(`${host.url}/__assistant/events`, {
      headers: headers(client),
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    const stream = readSse(response);
    // Cut by the spec (or by a host it killed): the read's end is not a failure.
    stream.done.catch(() => undefined);
    return { stream, close: () => controller.abort() };
  };
  const runs = async () => (await readFile(runsFile, "utf8")).split("\n").filter((l) => l !== "");
  const confirmIds = (events: ReadonlyArray<LogEvent>) =>
    events.flatMap((e) => (e._tag === "ConfirmRequested" ? [e.confirmId] : []));

  it("a turn with two confirmations, each answered through another host: every host's stream shows the same log; each command ran once", async () => {
    const client = "window-1";
    // Each request to a host chosen at random: the prompt to one, each answer to one of the two others.
    const [asked, answers1, answers2] = [...hosts].sort(() => Math.random() - 0.5) as [
      Running,
      Running,
      Running,
    ];
    const again1 = hosts[Math.floor(Math.random() * hosts.length)] as Running;
    const order = `prompt ${asked.id}, answers ${answers1.id} and ${answers2.id}, again ${again1.id}`;
    const streams = await Promise.all(hosts.map((h) => follow(h, client)));
    const events = () => streams[0]?.stream.events() ?? [];
    expect((await post(asked, client, "prompt", { text: "delete 1 and 2" })).status, order).toBe(
      202,
    );
    await vi.waitFor(() => expect(confirmIds(events())).toHaveLength(1), { timeout: 10_000 });
    const first = await post(answers1, client, "confirm", {
      confirmId: confirmIds(events())[0],
      accept: true,
    });
    expect(first.body, order).toEqual({ result: { _tag: "Answered", answer: "accepted" } });
    await vi.waitFor(() => expect(confirmIds(events())).toHaveLength(2), { timeout: 10_000 });
    const second = await post(answers2, client, "confirm", {
      confirmId: confirmIds(events())[1],
      accept: true,
    });
    expect(second.body, order).toEqual({ result: { _tag: "Answered", answer: "accepted" } });
    await vi.waitFor(
      () => {
        for (const { stream } of streams)
          expect(stream.events().at(-1)).toMatchObject({ _tag: "Answered", text: "Both deleted." });
      },
      { timeout: 10_000 },
    );
    const [one, ...others] = streams.map(({ stream }) => stream.events());
    for (const other of others) expect(other).toEqual(one);
    expect(one?.map((e) => e.seq)).toEqual(one?.map((_, i) => i + 1));
    // Single use, wherever it is asked again.
    const again = await post(again1, client, "confirm", {
      confirmId: confirmIds(events())[0],
      accept: true,
    });
    expect(again.body, order).toEqual({ result: { _tag: "UnknownConfirmation" } });
    // Run once each, by the host the prompt reached: it held the lease for the turn.
    expect(await runs(), order).toEqual([`${asked.id} {"id":1}`, `${asked.id} {"id":2}`]);
    for (const { close } of streams) close();
  }, 40_000);

  /** A turn through `asker` whose two questions are declined through `first` and `second`. */
  const declinedTurn = async (
    asker: Running,
    [first, second]: [Running, Running],
    client: string,
    events: () => ReadonlyArray<LogEvent>,
  ) => {
    const asked = confirmIds(events()).length;
    expect((await post(asker, client, "prompt", { text: "delete them" })).status).toBe(202);
    let turn = 0;
    for (const [k, through] of [first, second].entries()) {
      await vi.waitFor(() => expect(confirmIds(events())).toHaveLength(asked + k + 1), {
        timeout: 10_000,
      });
      const confirmId = confirmIds(events())[asked + k];
      turn = events().find((e) => e._tag === "ConfirmRequested" && e.confirmId === confirmId)!.turn;
      expect((await post(through, client, "confirm", { confirmId, accept: false })).body).toEqual({
        result: { _tag: "Answered", answer: "declined" },
      });
    }
    // This turn's answer, by its number: the stream may show the turn before's a little after
    // the holder took this prompt (it ended there first), so counting answers races it.
    await vi.waitFor(
      () =>
        expect(events().filter((e) => e._tag === "Answered" && e.turn === turn)).toHaveLength(1),
      { timeout: 10_000 },
    );
  };

  it("the holder paused (SIGSTOP) past its lease mid-confirmation: taken over, the turn ends interrupted once; continued (SIGCONT), the Accept sent to it and to another runs nothing, and it takes a prompt at once", async () => {
    const client = "window-paused";
    const [h1, h2, h3] = hosts as [Running, Running, Running];
    const watching = await follow(h3, client);
    const events = () => watching.stream.events();
    expect((await post(h1, client, "prompt", { text: "delete them" })).status).toBe(202);
    await vi.waitFor(() => expect(confirmIds(events())).toHaveLength(1), { timeout: 10_000 });
    const [confirmId] = confirmIds(events());
    const before = await runs();
    const stoppedAt = Date.now();
    h1.child.kill("SIGSTOP");
    let tookMs: number;
    try {
      // A Stop through another host: it asks the paused holder, hears nothing within the lease,
      // and takes the window over, recording the turn in flight interrupted.
      expect((await post(h2, client, "stop", {})).status).toBe(204);
      await vi.waitFor(() => expect(events().filter((e) => e._tag === "Failed")).toHaveLength(1), {
        timeout: 15_000,
        interval: 10,
      });
      tookMs = Date.now() - stoppedAt;
    } finally {
      h1.child.kill("SIGCONT");
    }
    console.info(`SIGSTOP of the holder: taken over in ${tookMs} ms (leaseMs ${LEASE_MS})`);
    expect(tookMs).toBeLessThan(LEASE_MS * 3);
    expect(events().find((e) => e._tag === "Failed")).toMatchObject({
      turn: 1,
      error: "interrupted",
    });
    // The user's Accept reaches the ex-holder as it goes on, and another host: refused by both.
    const late = await post(h1, client, "confirm", { confirmId, accept: true });
    expect(late.status).toBe(200);
    expect(late.body).toEqual({ result: { _tag: "UnknownConfirmation" } });
    const elsewhere = await post(h2, client, "confirm", { confirmId, accept: true });
    expect(elsewhere.body).toEqual({ result: { _tag: "UnknownConfirmation" } });
    // It takes a new prompt at once: it learnt from the store that it no longer writes the window.
    const promptedAt = Date.now();
    const prompt = async () => (await post(h1, client, "prompt", { text: "delete them" })).status;
    let status = await prompt();
    while (status === 409 && Date.now() - promptedAt < 10_000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = await prompt();
    }
    const refusedMs = Date.now() - promptedAt;
    console.info(`the continued ex-holder took a new prompt after ${refusedMs} ms`);
    expect(status).toBe(202);
    expect(refusedMs).toBeLessThan(LEASE_MS);
    await vi.waitFor(() => expect(confirmIds(events())).toHaveLength(2), { timeout: 10_000 });
    for (const [k, through] of [h3, h2].entries()) {
      if (k === 1)
        await vi.waitFor(() => expect(confirmIds(events())).toHaveLength(3), { timeout: 10_000 });
      const next = confirmIds(events())[1 + k];
      expect(
        (await post(through, client, "confirm", { confirmId: next, accept: false })).body,
      ).toEqual({ result: { _tag: "Answered", answer: "declined" } });
    }
    // And the next prompts work from the other hosts.
    await declinedTurn(h2, [h1, h3], client, events);
    await declinedTurn(h3, [h2, h1], client, events);
    expect(events().filter((e) => e._tag === "Failed")).toHaveLength(1);
    expect(
      events()
        .filter((e) => e._tag === "TurnStarted")
        .map((e) => e.turn),
    ).toEqual([1, 2, 3, 4]);
    const seqs = events().map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    // Nothing ran: the delete asked before the pause was accepted too late, the others declined.
    expect(await runs()).toEqual(before);
    watching.close();
  }, 90_000);

  it("the holder killed mid-confirmation: another host takes over within the lease, the turn ends interrupted once, the question is dead, the next prompt works", async () => {
    const client = "window-2";
    const [h1, h2, h3] = hosts as [Running, Running, Running];
    const watching = await follow(h3, client);
    const events = () => watching.stream.events();
    expect((await post(h1, client, "prompt", { text: "delete them" })).status).toBe(202);
    await vi.waitFor(() => expect(confirmIds(events())).toHaveLength(1), { timeout: 10_000 });
    const before = await runs();
    const killedAt = Date.now();
    h1.child.kill("SIGKILL");
    const answer = await post(h2, client, "confirm", {
      confirmId: confirmIds(events())[0],
      accept: true,
    });
    const tookMs = Date.now() - killedAt;
    expect(answer.body).toEqual({ result: { _tag: "UnknownConfirmation" } });
    // Asked of the dead holder (no reply within the lease time), then taken over: its lease lapsed.
    console.info(`kill -9 of the holder: taken over in ${tookMs} ms (leaseMs ${LEASE_MS})`);
    expect(tookMs).toBeGreaterThanOrEqual(LEASE_MS - HEARTBEAT_MS);
    expect(tookMs).toBeLessThan(LEASE_MS * 3);
    await vi.waitFor(() => expect(events().filter((e) => e._tag === "Failed")).toHaveLength(1));
    expect(events().find((e) => e._tag === "Failed")).toMatchObject({
      turn: 1,
      error: "interrupted",
    });
    expect(await runs()).toEqual(before);
    // The next prompt works, through another host, and its question is answered through a third.
    expect((await post(h3, client, "prompt", { text: "delete them again" })).status).toBe(202);
    await vi.waitFor(() => expect(confirmIds(events())).toHaveLength(2), { timeout: 10_000 });
    const next = await post(h2, client, "confirm", {
      confirmId: confirmIds(events())[1],
      accept: false,
    });
    expect(next.body).toEqual({ result: { _tag: "Answered", answer: "declined" } });
    await vi.waitFor(
      () => expect(events().filter((e) => e._tag === "TurnStarted")).toHaveLength(2),
      {
        timeout: 10_000,
      },
    );
    const seqs = events().map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    watching.close();
  }, 60_000);

  it("the holder killed mid-turn: a prompt elsewhere waits out its lease, records the turn interrupted once, and runs", async () => {
    const client = "window-3";
    const [, h2, h3] = hosts as [Running, Running, Running];
    const watching = await follow(h2, client);
    const events = () => watching.stream.events();
    expect((await post(h3, client, "prompt", { text: "slow one" })).status).toBe(202);
    await vi.waitFor(() => expect(events().some((e) => e._tag === "StepStarted")).toBe(true));
    h3.child.kill("SIGKILL");
    expect((await post(h2, client, "prompt", { text: "delete" })).status).toBe(202);
    await vi.waitFor(() => expect(confirmIds(events())).toHaveLength(1), { timeout: 15_000 });
    const failed = events().filter((e) => e._tag === "Failed");
    expect(failed).toEqual([expect.objectContaining({ turn: 1, error: "interrupted" })]);
    expect(
      events()
        .filter((e) => e._tag === "TurnStarted")
        .map((e) => e.turn),
    ).toEqual([1, 2]);
    const stop = await post(h2, client, "stop", {});
    expect(stop.status).toBe(204);
    watching.close();
  }, 60_000);
});
