/** Events, a fake client and a fake host (a `fetch` that serves the routes and the event stream) for the UI specs. */
import type { LogEvent } from "elyra-assistant/log";
import {
  type AssistantClient,
  type ConfirmEcho,
  HostError,
  type LiveResult,
} from "elyra-assistant/ui";

type Unnumbered = LogEvent extends infer E
  ? E extends LogEvent
    ? Omit<E, "seq" | "at">
    : never
  : never;

/** Numbers events from 1 (or `from`), in order. */
export const numbered = (events: ReadonlyArray<Unnumbered>, from = 1): LogEvent[] =>
  events.map((event, i) => ({ ...event, seq: from + i, at: 0 }) as LogEvent);

/** A turn that asks, streams an answer in pieces and ends. */
export const answeredTurn = (
  turn: number,
  text: string,
  pieces: ReadonlyArray<string>,
): Unnumbered[] => [
  { _tag: "TurnStarted", turn, text, route: null, note: null },
  { _tag: "StepStarted", turn, step: 0 },
  ...pieces.map((piece) => ({ _tag: "TextDelta" as const, turn, step: 0, text: piece })),
  { _tag: "Answered", turn, text: pieces.join("") },
];

/** Turn 1 asking to confirm deleting customer `id` (confirmation `c<id>`, call `k<id>`). */
export const askedToDelete = (id: number): Unnumbered => ({
  _tag: "ConfirmRequested",
  turn: 1,
  confirmId: `c${id}`,
  callId: `k${id}`,
  tool: "customers_destroy",
  description: "Delete a customer.",
  args: { id },
});

export interface Call {
  readonly method: string;
  readonly args: ReadonlyArray<unknown>;
}

/** A client whose event stream the spec drives, recording every request. */
export const fakeClient = (options: { readonly refuse?: ReadonlySet<string> } = {}) => {
  const calls: Call[] = [];
  const streams: Array<{ fromSeq: number; onEvent: (event: LogEvent) => void; open: boolean }> = [];
  const answer = async <A>(method: string, args: ReadonlyArray<unknown>, value: A): Promise<A> => {
    calls.push({ method, args });
    if (options.refuse?.has(method))
      throw new HostError({ status: 409, type: "Refused", message: `${method} refused` });
    return value;
  };
  const client: AssistantClient = {
    clientId: "fake",
    prompt: (text, route) => answer("prompt", [text, route], { turn: 1 }),
    confirm: (confirmId, accept, echo?: ConfirmEcho) =>
      answer("confirm", [confirmId, accept, echo], {
        result: { _tag: "Answered", answer: accept ? "accepted" : "declined" } as const,
      }),
    stop: () => answer("stop", [], undefined),
    reset: () => answer("reset", [], undefined),
    close: () => answer("close", [], undefined),
    tools: () => answer("tools", [], []),
    key: (key) => answer("key", [key], undefined),
    source: () => answer("source", [], "none" as const),
    selected: (kind, ids, route) => answer("selected", [kind, ids, route], undefined),
    events: (fromSeq, onEvent, _onError, onOpen) => {
      const stream = { fromSeq, onEvent, open: true };
      streams.push(stream);
      onOpen?.();
      return () => {
        stream.open = false;
      };
    },
    live: (_command, _args, _onResult: (result: LiveResult) => void) => () => {},
  };
  return {
    client,
    calls,
    streams,
    /** Sends events to every open stream. */
    emit: (...events: LogEvent[]) => {
      for (const stream of streams)
        if (stream.open) for (const event of events) stream.onEvent(event);
    },
  };
};

const encoder = new TextEncoder();

export interface Request {
  readonly url: string;
  readonly method: string;
  readonly headers: Headers;
  readonly body: unknown;
}

/**
 * A host as `fetch` sees it: the routes answer, `GET /events` streams the log
 * (from after `Last-Event-ID`, or repeating `overlap` events before it, as a
 * careless host might), and `drop()` cuts the open streams.
 */
export const fakeHost = (options: { readonly overlap?: number; readonly status?: number } = {}) => {
  const log: LogEvent[] = [];
  const requests: Request[] = [];
  const open = new Set<ReadableStreamDefaultController<Uint8Array>>();
  const frame = (event: LogEvent) =>
    encoder.encode(`id: ${event.seq}\ndata: ${JSON.stringify(event)}\n\n`);

  const fetch = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const url = String(input);
    const headers = new Headers(init.headers);
    const body = typeof init.body === "string" ? JSON.parse(init.body) : undefined;
    requests.push({ url, method: init.method ?? "GET", headers, body });
    if (options.status !== undefined)
      return new Response(
        JSON.stringify({ error: { type: "Unauthorized", message: "no such token" } }),
        {
          status: options.status,
        },
      );
    if (url.includes("/events")) {
      const after = Number(headers.get("last-event-id") ?? 0) - (options.overlap ?? 0);
      let self: ReadableStreamDefaultController<Uint8Array> | undefined;
      const stream = new ReadableStream<Uint8Array>({
        start: (controller) => {
          self = controller;
          open.add(controller);
          for (const event of log) if (event.seq > after) controller.enqueue(frame(event));
        },
        cancel: () => {
          if (self) open.delete(self);
        },
      });
      init.signal?.addEventListener("abort", () => {
        if (self && open.delete(self)) self.error(new DOMException("aborted", "AbortError"));
      });
      return new Response(stream, { headers: { "content-type": "text/event-stream" } });
    }
    if (url.endsWith("/prompt")) return Response.json({ turn: 1 }, { status: 202 });
    if (url.endsWith("/confirm")) return Response.json({ result: "Accepted" });
    if (url.endsWith("/tools")) return Response.json({ tools: [] });
    return new Response(null, { status: 204 });
  };

  return {
    fetch: fetch as typeof globalThis.fetch,
    requests,
    log,
    /** Appends to the log and streams to every open connection. */
    append: (...events: LogEvent[]) => {
      for (const event of events) {
        log.push(event);
        for (const controller of open) controller.enqueue(frame(event));
      }
    },
    /** Ends every open stream, as a proxy or a network drop would. */
    drop: () => {
      for (const controller of open) controller.close();
      open.clear();
    },
    openStreams: () => open.size,
  };
};

/** Resolves once `check` holds, polling. */
export const until = async (check: () => boolean, timeoutMs = 2_000): Promise<void> => {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
};
