/**
 * H1: the HTTP host under random use, with its store and its model failing
 * at random points (model-based: a generated sequence of operations, checked
 * against what the client was answered and what the store holds).
 *
 * Each run plays up to 12 operations on one window through the fetch handler
 * of `assistantHttp`, called in-process (`Request` in, `Response` out, no
 * sockets): prompts (answered; calling `customers_show`; calling
 * `customers_delete`, which asks for confirmation; failing with an API or a
 * network error, or after a tool ran; cut midway; crashing the model),
 * confirmations accepted or declined (of the last one asked, or an unknown
 * id), stop, reset, `POST /close`, `GET /events` read until it has caught up
 * with the stored log and then aborted (resumed with the `Last-Event-ID` the
 * client last got, echoed as an opaque string, or afresh), healing the
 * store, and restarts: the host closed and a new one made over the same
 * store. The store's faults come from a `faultyStore` script fast-check draws
 * (reads, appends and `lastSeq`s rejecting, conflicting or late), so a
 * failing run shrinks to few faults; the model fails by the prompt's text
 * (`faultyModel`), so a prompt refused or lost leaves nothing queued.
 *
 * The store is a memory store shared by the hosts of a run; each run draws
 * whether it says it is durable. Durable, a restart finds the log (as a
 * SQLite file reopened would: that restart itself is covered by
 * spec/adapters/sqliteStore.spec.ts); not durable, `POST /close` and a
 * restart drop it, and a client resuming after that must be told to start
 * over. Dropped logs are kept aside, and the checks cover each.
 *
 * After every response:
 * - the handler did not throw and answered 2xx, 409 or 5xx, as JSON (an
 *   error as `{error: {type}}`), empty (204) or, `GET /events` only, SSE;
 *   a 500 only once the store has failed an operation, and not when it was
 *   healed before the request;
 * - an event stream gives events in seq order with none missing or twice,
 *   each as stored, and catches up with the stored log (unless a store
 *   fault ends it); `startOver` only for a client whose point the log does
 *   not have (never with a durable store, never without `Last-Event-ID`);
 *   so the client that always resumes holds exactly the current log's
 *   events 1..k.
 * At the end of each run (store and model healed, settled, the host
 * restarted):
 * - every log's seqs are 1..n, none twice;
 * - the resuming client, reconnecting, has the whole current log, once;
 * - every prompt answered 202 has its TurnStarted stored;
 * - a command ran only for a prompt answered 202 (a refused prompt runs
 *   nothing), and `customers_delete` only for a confirmId whose accept was
 *   answered `Answered: accepted`, at most once each;
 * - a new prompt is answered;
 * - no promise rejection went unhandled.
 */
import { Schema } from "effect";
import {
  createApp,
  createHost,
  defineCommand,
  type Host,
  type Model,
  ModelError,
  type ModelRequest,
} from "elyra-assistant";
import { assistantHttp } from "elyra-assistant/http";
import type { EventStore, LogEvent } from "elyra-assistant/log";
import {
  countingIds,
  type FaultyStore,
  faultyModel,
  faultyStore,
  type ModelFault,
  memoryStore,
  responseOf,
  type ScriptedReply,
  type StoreFault,
  type StoreFaultScript,
  wordsOf,
} from "elyra-assistant/testing";
import { createParser } from "eventsource-parser";
import fc from "fast-check";
import { afterAll, beforeAll, describe, it } from "vitest";
import { spyCommands, type TestUser } from "../fixtures/spyCommands.ts";
import { runs, timeoutFor } from "./runs.ts";

const NUM_RUNS = 1000;
const TOKEN = "host-token-0123456789";
const CLIENT = "w1";
const STREAM = `conversation/${CLIENT}`;
const ada: TestUser = { name: "Ada", abilities: ["customers.*", "invoices.view"] };
/** How long one request, stream read or close may take before the run fails as hung. */
const HUNG_MS = 3_000;

// ---------------------------------------------------------------------------
// Operations

type PromptKind =
  | "say"
  | "show"
  | "delete"
  | "showFails"
  | "apiError"
  | "network"
  | "cut"
  | "crash";

type Op =
  | { readonly op: "prompt"; readonly kind: PromptKind; readonly wait: boolean }
  | {
      readonly op: "confirm";
      readonly accept: boolean;
      readonly known: boolean;
      readonly wait: boolean;
    }
  | { readonly op: "stop" | "reset" | "close" | "restart" | "heal"; readonly wait: boolean }
  | { readonly op: "events"; readonly resume: boolean; readonly wait: boolean };

/** Whether to let the host settle before the operation (else it lands mid-turn). */
const wait = fc.boolean();
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant("prompt" as const),
      kind: fc.constantFrom<PromptKind>(
        "say",
        "show",
        "delete",
        "delete",
        "delete",
        "showFails",
        "apiError",
        "network",
        "cut",
        "crash",
      ),
      wait,
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant("confirm" as const),
      accept: fc.oneof({ weight: 2, arbitrary: fc.constant(true) }, fc.constant(false)),
      known: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, fc.constant(false)),
      wait,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ op: fc.constant("events" as const), resume: fc.boolean(), wait }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constantFrom(
        "stop" as const,
        "reset" as const,
        "close" as const,
        "restart" as const,
        "heal" as const,
      ),
      wait,
    }),
  },
);
const ops = fc.array(op, { maxLength: 12 });

const storeFault: fc.Arbitrary<StoreFault> = fc.oneof(
  fc.constant<StoreFault>({ kind: "reject" }),
  fc.constant<StoreFault>({ kind: "conflict" }),
  fc.integer({ min: 0, max: 2 }).map((delayMs): StoreFault => ({ kind: "delay", delayMs })),
  fc.integer({ min: 0, max: 2 }).map((delayMs): StoreFault => ({ kind: "reject", delayMs })),
);
/** Mostly no fault: about one operation in five of a script's first few. */
const faults = fc.array(
  fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: storeFault }),
  { maxLength: 16 },
);
/** A third of the runs with no store fault at all, so they get further. */
const script: fc.Arbitrary<StoreFaultScript> = fc.oneof(
  fc.constant({}),
  fc.record({ read: faults, append: faults, lastSeq: faults }),
);

// ---------------------------------------------------------------------------
// The model: each prompt's text says what its turn does ("#3 delete": call
// customers_delete with id 3), so a prompt refused or lost to a fault leaves
// nothing queued for the next one, and a command run names its prompt.

const promptText = (message: ModelRequest["messages"][number]): string | undefined => {
  if (message.role !== "user") return undefined;
  if (typeof message.content === "string") return message.content;
  const texts = message.content.filter((b) => b.type === "text");
  return texts.length === 0 ? undefined : JSON.stringify(texts);
};

/** The prompt of the request's turn, and whether this is its first step. */
const turnOf = (request: ModelRequest) => {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const text = promptText(request.messages[i] as ModelRequest["messages"][number]);
    const found = text === undefined ? null : /#(\d+) (\w+)/.exec(text);
    if (found === null) continue;
    return {
      id: Number(found[1]),
      kind: found[2] as PromptKind,
      first: i === request.messages.length - 1,
    };
  }
  return undefined;
};

const scriptedModel = (): Model => {
  const ids = countingIds("toolu");
  return {
    step: async (request, { signal, onText }) => {
      if (signal.aborted) throw new ModelError({ kind: "aborted", message: "aborted" });
      const turn = turnOf(request);
      if (turn === undefined) throw new Error(`no prompt in ${JSON.stringify(request.messages)}`);
      let reply: ScriptedReply = { text: `Answer ${turn.id} in words.` };
      if (turn.first && turn.kind === "crash") throw new Error("the model crashed");
      if (turn.first && (turn.kind === "show" || turn.kind === "showFails"))
        reply = { toolCalls: [{ name: "customers_show", input: { id: turn.id } }] };
      if (turn.first && turn.kind === "delete")
        reply = { toolCalls: [{ name: "customers_delete", input: { id: turn.id } }] };
      const response = responseOf(reply, ids);
      if (onText !== undefined && reply.text) for (const word of wordsOf(reply.text)) onText(word);
      return response;
    },
  };
};

/** Faults by the prompt: its first step, or (showFails) the step after its tool ran. */
const modelFault = ({ request }: { readonly request: ModelRequest }): ModelFault | undefined => {
  const turn = turnOf(request);
  if (turn === undefined) return undefined;
  if (!turn.first) return turn.kind === "showFails" ? { kind: "api", status: 500 } : undefined;
  if (turn.kind === "apiError") return { kind: "api", status: 529 };
  if (turn.kind === "network") return { kind: "network" };
  if (turn.kind === "cut") return { kind: "cut", afterPieces: 1 };
  return undefined;
};

// ---------------------------------------------------------------------------
// One run

/** Resolves with `promise`, or rejects naming `what` once HUNG_MS have passed. */
const inTime = <A>(promise: Promise<A>, what: string): Promise<A> => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`hung: ${what}`)), HUNG_MS);
    }),
  ]).finally(() => clearTimeout(timer));
};

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

const plainJson = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

/** An SSE client's view: the events it has, and the last id it got, as it came. */
interface Client {
  seen: LogEvent[];
  lastId: string | undefined;
}

/** What a run found wrong, with the way there and what the host's onError was told. */
class Broken extends Error {}

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => {
  unhandled.push(reason);
};
beforeAll(() => {
  process.on("unhandledRejection", onUnhandled);
});
afterAll(() => {
  process.off("unhandledRejection", onUnhandled);
});

/** How much of the space the runs reached, printed at the end. */
const reached = {
  runs: 0,
  storeFaulted: 0,
  answered500: 0,
  accepted202: 0,
  refused409: 0,
  confirmedAccepted: 0,
  deletesRan: 0,
  restarts: 0,
  startOvers: 0,
  streamsCutByFault: 0,
};

const runOnce = async (
  durable: boolean,
  storeScript: StoreFaultScript,
  plan: ReadonlyArray<Op>,
) => {
  reached.runs++;
  /** The prompt ids each command ran for. */
  const ran = { customers_show: [] as number[], customers_delete: [] as number[] };
  const spies = spyCommands();
  const app = createApp({
    commands: [
      ...spies.commands.filter((c) => !(c.name in ran)),
      defineCommand({
        name: "customers_show",
        description: "Show one customer by id.",
        can: "customers.view",
        args: { id: Schema.Number },
        run: ({ id }) => {
          ran.customers_show.push(id);
          return { id, name: "Ada" };
        },
      }),
      defineCommand({
        name: "customers_delete",
        description: "Delete a customer. It cannot be undone.",
        can: "customers.delete",
        args: { id: Schema.Number },
        run: ({ id }) => {
          ran.customers_delete.push(id);
          return { deleted: id };
        },
      }),
    ],
    userAbilities: (u) => (u as TestUser).abilities,
    assistant: { allow: ["customers.*", "invoices.view"], confirm: ["customers.delete"] },
  });
  const inner = memoryStore();
  /** Logs dropped (a store that is not durable drops a window's log when it closes). */
  const dropped: LogEvent[][] = [];
  const base: EventStore = {
    ...inner,
    durable,
    drop: async (stream) => {
      dropped.push([...(await inner.read(stream))]);
      await inner.drop(stream);
    },
  };
  const store: FaultyStore = faultyStore(base, storeScript);
  const model = faultyModel(scriptedModel(), modelFault);
  const told: unknown[] = [];
  const open = () => {
    const host = createHost(app, { model, store, onError: (e) => told.push(e) });
    const handle = assistantHttp(host, {
      token: TOKEN,
      authenticate: () => ada,
      heartbeatMs: 60_000,
      onError: (e) => told.push(e),
    });
    return { host, handle };
  };
  let { host, handle }: { host: Host; handle: (r: Request) => Promise<Response> } = open();

  const trail: string[] = [];
  const fail = (why: string): never => {
    const errors = told.map((e) => `${(e as Error)?.name}: ${(e as Error)?.message ?? String(e)}`);
    throw new Broken(
      `${why}\n  after: ${trail.join(" → ")}${errors.length === 0 ? "" : `\n  onError was told: ${errors.join(" | ")}`}`,
    );
  };
  /** Faults the store gave that failed an operation (not mere delays). */
  const storeFailures = () => store.injected.filter((f) => f.fault.kind !== "delay").length;
  /** The log as stored now, past the faults. */
  const storedLog = () => inner.read(STREAM);
  const everyLog = async () => [...dropped, await storedLog()];

  /** Prompts answered 202, by id. */
  const accepted = new Map<number, { readonly turn: number; readonly text: string }>();
  const acceptedConfirms = new Set<string>();
  const client: Client = { seen: [], lastId: undefined };
  let prompts = 0;

  /** Calls the handler and checks how it answered. */
  const call = async (
    route: string,
    init: {
      readonly method?: string;
      readonly body?: unknown;
      readonly headers?: Record<string, string>;
      readonly signal?: AbortSignal;
    } = {},
  ) => {
    const healedBefore = store.healed();
    const headers = new Headers(init.headers);
    headers.set("x-elyra-token", TOKEN);
    headers.set("x-elyra-client", CLIENT);
    const method = init.method ?? "POST";
    const request = new Request(`http://app.test/__assistant/${route}`, {
      method,
      headers,
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      ...(init.signal === undefined ? {} : { signal: init.signal }),
    });
    let response: Response;
    try {
      response = await inTime(handle(request), `${method} /${route}`);
    } catch (error) {
      return fail(`${method} /${route} threw: ${String(error)}`);
    }
    const { status } = response;
    const type = response.headers.get("content-type") ?? "";
    trail.push(`${route}:${status}`);
    if (status === 500) reached.answered500++;
    if (status === 409) reached.refused409++;
    if (status === 500 && (healedBefore || storeFailures() === 0))
      fail(
        `${method} /${route} answered 500 with no store fault in play: ${await response.clone().text()}`,
      );
    if (!(status >= 200 && status < 300) && status !== 409 && !(status >= 500 && status < 600))
      fail(`${method} /${route} answered ${status}: ${await response.text()}`);
    if (status === 204) {
      if ((await response.text()) !== "") fail(`${method} /${route} answered 204 with a body`);
      return { response, json: undefined };
    }
    if (type === "text/event-stream") {
      if (route !== "events" || status !== 200) fail(`${method} /${route}: SSE with ${status}`);
      return { response, json: undefined };
    }
    if (!type.startsWith("application/json"))
      fail(`${method} /${route} answered ${status} as ${JSON.stringify(type)}`);
    let json: unknown;
    try {
      json = await response.json();
    } catch {
      fail(`${method} /${route} answered ${status} with a body that is not JSON`);
    }
    if (status >= 400 && typeof (json as { error?: { type?: unknown } }).error?.type !== "string")
      fail(
        `${method} /${route} answered ${status} without {error: {type}}: ${JSON.stringify(json)}`,
      );
    return { response, json };
  };

  /** Waits until neither the log nor the store's traffic moves over two turns of the timers. */
  const quiet = async () => {
    let last = "";
    let same = 0;
    for (let i = 0; i < 200 && same < 2; i++) {
      await tick();
      const now = `${await inner.lastSeq(STREAM)}/${store.ops()}/${dropped.length}`;
      same = now === last ? same + 1 : 0;
      last = now;
    }
  };

  /**
   * GET /events, read until the reader has every event stored when the
   * stream opened, then aborted: by the client that resumes, or afresh.
   */
  const events = async (resume: boolean, mustCatchUp: boolean) => {
    const reader: Client = resume ? client : { seen: [], lastId: undefined };
    const sentId = reader.lastId;
    const controller = new AbortController();
    const failedBefore = storeFailures();
    const droppedBefore = dropped.length;
    const { response } = await call("events", {
      method: "GET",
      headers: sentId === undefined ? {} : { "last-event-id": sentId },
      signal: controller.signal,
    });
    if (response.status !== 200) return;
    // The reader has caught up once it has every event stored when the stream opened, and what
    // it has is the log's (a reader with events of a log since dropped must start over first).
    const target = (await storedLog()).length;
    const frames: string[] = [];
    const caughtUp = async () =>
      reader.seen.length >= target &&
      JSON.stringify(plainJson(reader.seen)) ===
        JSON.stringify(plainJson((await storedLog()).slice(0, reader.seen.length)));
    const parser = createParser({
      onEvent: (message) => {
        frames.push(message.event ?? String(JSON.parse(message.data).seq));
        if (message.event === "startOver") {
          reached.startOvers++;
          if (sentId === undefined) fail("startOver sent to a client that named no event");
          if (durable && droppedBefore === dropped.length)
            fail(`startOver after ${sentId} from a durable log that has it`);
          reader.seen = [];
          if (message.id !== undefined) reader.lastId = message.id;
          return;
        }
        if (message.event !== undefined && message.event !== "message") return;
        const event = JSON.parse(message.data) as LogEvent;
        const due = (reader.seen.at(-1)?.seq ?? 0) + 1;
        if (event.seq !== due)
          fail(
            `GET /events ${sentId === undefined ? "afresh" : `after ${sentId}`} sent seq ${event.seq} where ${due} was due (frames: ${frames.join(",")})`,
          );
        reader.seen.push(event);
        if (message.id !== undefined) reader.lastId = message.id;
      },
    });
    const body = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let ended = false;
    const reading = (async () => {
      while (!(await caughtUp())) {
        const { done, value } = await body.read();
        if (done) {
          ended = true;
          return;
        }
        parser.feed(decoder.decode(value, { stream: true }));
      }
    })();
    try {
      await inTime(reading, `reading GET /events up to seq ${target}`);
    } catch (error) {
      if (error instanceof Broken) throw error;
      fail(
        `GET /events never caught up: has ${reader.seen.at(-1)?.seq ?? 0} of ${target} (frames: ${frames.join(",")})`,
      );
    } finally {
      controller.abort();
      await body.cancel().catch(() => undefined);
    }
    if (!(await caughtUp())) {
      if (mustCatchUp || storeFailures() === failedBefore)
        fail(
          `GET /events ${ended ? "ended" : "stopped"} at ${reader.seen.at(-1)?.seq ?? 0} of ${target} with no store fault (frames: ${frames.join(",")})`,
        );
      reached.streamsCutByFault++;
    }
    // What the reader has is the log's first events, as stored.
    const now = await storedLog();
    const have = plainJson(reader.seen);
    if (JSON.stringify(have) !== JSON.stringify(plainJson(now.slice(0, reader.seen.length))))
      fail(
        `the client's events are not the log's: ${JSON.stringify(have)} vs ${JSON.stringify(now)}`,
      );
  };

  const restart = async () => {
    reached.restarts++;
    await inTime(host.close(), "host.close()");
    ({ host, handle } = open());
  };

  for (const o of plan) {
    if (o.wait) await quiet();
    switch (o.op) {
      case "prompt": {
        const id = ++prompts;
        const text = `#${id} ${o.kind}`;
        trail.push(text);
        const { response, json } = await call("prompt", { body: { text } });
        if (response.status === 202) {
          reached.accepted202++;
          accepted.set(id, { turn: (json as { turn: number }).turn, text });
        }
        break;
      }
      case "confirm": {
        // The user answers the dialog they see: let a confirmation being asked show first.
        const open = (log: ReadonlyArray<LogEvent>) =>
          log.some(
            (e) =>
              e._tag === "ConfirmRequested" &&
              !log.some((a) => a._tag === "ConfirmAnswered" && a.confirmId === e.confirmId),
          );
        if (o.known && !open(await storedLog())) await quiet();
        const asked = (await storedLog()).filter((e) => e._tag === "ConfirmRequested");
        const confirmId = o.known ? (asked.at(-1)?.confirmId ?? "c-none") : "c-unknown";
        trail.push(`confirm ${confirmId} ${o.accept ? "accept" : "decline"}`);
        const { response, json } = await call("confirm", {
          body: { confirmId, accept: o.accept },
        });
        const result = (json as { result?: { _tag: string; answer?: string } } | undefined)?.result;
        if (
          response.status === 200 &&
          result?._tag === "Answered" &&
          result.answer === "accepted"
        ) {
          if (!o.accept) fail(`a decline of ${confirmId} was answered accepted`);
          reached.confirmedAccepted++;
          acceptedConfirms.add(confirmId);
        }
        break;
      }
      case "events":
        trail.push(o.resume ? `events after ${client.lastId}` : "events afresh");
        await events(o.resume, false);
        break;
      case "restart":
        trail.push("restart");
        await restart();
        break;
      case "heal":
        trail.push("heal");
        store.heal();
        break;
      default:
        await call(o.op);
    }
  }

  // The end: healed, settled, restarted; the resuming client catches up with the whole log.
  if (storeFailures() > 0) reached.storeFaulted++;
  store.heal();
  model.heal();
  await quiet();
  trail.push("end: restart");
  await restart();
  await events(true, true);

  const logs = await everyLog();
  const current = logs.at(-1) as LogEvent[];
  for (const log of logs) {
    const seqs = log.map((e) => e.seq);
    if (seqs.some((seq, i) => seq !== i + 1)) fail(`a log's seqs are ${seqs.join(",")}`);
  }
  if (JSON.stringify(plainJson(client.seen)) !== JSON.stringify(plainJson(current)))
    fail(
      `the resuming client has seqs ${client.seen.map((e) => e.seq).join(",")}, the log ${current.map((e) => e.seq).join(",")}`,
    );

  const all = logs.flat();
  for (const { turn, text } of accepted.values()) {
    if (!all.some((e) => e._tag === "TurnStarted" && e.turn === turn && e.text === text))
      fail(
        `${JSON.stringify(text)} was answered 202 (turn ${turn}) but its TurnStarted is not stored`,
      );
  }
  for (const [command, ids] of Object.entries(ran)) {
    for (const id of ids)
      if (!accepted.has(id)) fail(`${command} ran for prompt #${id}, which was not answered 202`);
  }
  reached.deletesRan += ran.customers_delete.length;
  for (const id of new Set(ran.customers_delete)) {
    const count = ran.customers_delete.filter((i) => i === id).length;
    const confirmIds = all.flatMap((e) =>
      e._tag === "ConfirmRequested" && (e.args as { id?: unknown }).id === id ? [e.confirmId] : [],
    );
    const acceptedIds = confirmIds.filter((c) => acceptedConfirms.has(c));
    if (count > acceptedIds.length)
      fail(
        `customers_delete ran ${count}× for #${id}; accepted confirmations: ${acceptedIds.length} (asked: ${confirmIds.join(",") || "none stored"})`,
      );
  }

  // Healed and restarted, the window answers a new prompt.
  const { response, json } = await call("prompt", { body: { text: `#${++prompts} say` } });
  if (response.status !== 202)
    fail(`the last prompt was answered ${response.status}: ${JSON.stringify(json)}`);
  const turn = (json as { turn: number }).turn;
  try {
    await inTime(
      (async () => {
        for (;;) {
          const log = await storedLog();
          const end = log.find(
            (e) =>
              e.turn === turn &&
              (e._tag === "Answered" || e._tag === "Failed" || e._tag === "Stopped"),
          );
          if (end?._tag === "Answered") return;
          if (end !== undefined) fail(`the last prompt's turn ended ${JSON.stringify(end)}`);
          await tick();
        }
      })(),
      "the last prompt's answer",
    );
  } catch (error) {
    if (error instanceof Broken) throw error;
    fail(String(error));
  }
  await inTime(host.close(), "the last host.close()");
  // A rejection nobody handled is reported after a turn of the event loop.
  await tick();
  if (unhandled.length > 0)
    fail(`unhandled rejections: ${unhandled.splice(0).map(String).join("; ")}`);
};

/**
 * Counterexamples this property found in the library, shrunk: each played
 * on its own as a regression case, since random runs reach some of them only
 * rarely. `[what it shows, durable, store script, operations]`.
 */
const KNOWN: ReadonlyArray<[string, boolean, StoreFaultScript, ReadonlyArray<Op>]> = [
  [
    // A stopped tool call's ToolFinished was stored after host.close() resolved, after the
    // next host read the log, so that host's next append conflicted. Fixed by 7ad8a55 ("a
    // closed window writes nothing more").
    "nothing is stored after host.close(): the next host's prompt does not conflict",
    true,
    {},
    [
      { op: "prompt", kind: "delete", wait: false },
      { op: "restart", wait: false },
      { op: "stop", wait: false },
      { op: "prompt", kind: "say", wait: true },
    ],
  ],
  [
    // The refused TurnStarted crashes the conversation; while it is rebuilt, the dead turn's
    // ToolFinished is refused too, after recover() cleared the log's refusal: the log stays
    // latched, drops every later append without telling anyone, and the next prompt waits
    // forever for its TurnStarted.
    "an append refused while the conversation is rebuilt does not leave the window mute",
    false,
    { append: [{ kind: "reject" }, { kind: "reject" }] },
    [
      { op: "prompt", kind: "show", wait: false },
      { op: "prompt", kind: "say", wait: false },
    ],
  ],
  [
    // The conversation calls the model on PROMPT without waiting for the TurnStarted to be
    // stored: the prompt is answered 500, yet customers_show ran, and nothing of it is stored.
    "a prompt refused because its TurnStarted was refused runs no command",
    false,
    { append: [{ kind: "reject" }] },
    [{ op: "prompt", kind: "show", wait: false }],
  ],
  [
    // Found on CI after appends made while a write is in flight began to be written together.
    "after refused appends and reads and a heal, a prompt is answered 202",
    false,
    {
      read: [{ kind: "delay", delayMs: 0 }, null, { kind: "reject", delayMs: 1 }],
      append: [null, { kind: "reject" }, null, null, { kind: "reject" }],
      lastSeq: [],
    },
    [
      { op: "prompt", kind: "say", wait: false },
      { op: "prompt", kind: "say", wait: false },
      { op: "heal", wait: false },
      { op: "prompt", kind: "say", wait: false },
    ],
  ],
  [
    // Found on CI: the second append refused a moment late, after the heal.
    "a refusal that lands after the heal does not fail the next prompt",
    false,
    { read: [], append: [null, { kind: "reject", delayMs: 1 }], lastSeq: [] },
    [
      { op: "prompt", kind: "say", wait: false },
      { op: "heal", wait: false },
      { op: "prompt", kind: "say", wait: false },
    ],
  ],
];

describe("H1: the HTTP host under random use and store faults (model-based)", () => {
  it("never throws, answers only as it may, loses and repeats no event, runs nothing unasked", {
    timeout: timeoutFor(120_000),
  }, async () => {
    const started = Date.now();
    try {
      await fc.assert(
        fc.asyncProperty(fc.boolean(), script, ops, (durable, s, plan) =>
          runOnce(durable, s, plan),
        ),
        { numRuns: runs(NUM_RUNS) },
      );
    } finally {
      console.log(`H1: ${reached.runs} runs in ${Date.now() - started} ms`, reached);
    }
  });

  it.each(KNOWN)("counterexample: %s", async (_, durable, s, plan) => {
    await runOnce(durable, s, plan);
  });
});
