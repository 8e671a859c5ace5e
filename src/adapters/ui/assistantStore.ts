/**
 * The assistant's state in the browser: the window's log folded with the same
 * `panelItems` projection the host uses, plus whether the panel is open and
 * the stream connected. Snapshots are frozen and stay the same object until
 * something changes, as React's `useSyncExternalStore` needs; `subscribe`
 * also calls its listener at once with the current snapshot, as Svelte's store
 * contract asks.
 */
import type { LogEvent } from "../../runtime/log/events.ts";
import { type PanelItem, type PanelState, panelItems } from "../../runtime/log/panelItems.ts";
import type { ConfirmResult } from "../web/wire.ts";
import type {
  AssistantClient,
  AssistantThreads,
  ConfirmEcho,
  SourceResponse,
  UsageResponse,
} from "./client.ts";
import { type AssistantError, ConnectionError, connectionErrorOf, HostError } from "./errors.ts";

/**
 * What the panel shows at one moment: the window's items, whether it is open,
 * busy or connected, the last failed request and the questions waiting for an
 * answer. Read it with `getSnapshot` or from `subscribe`.
 */
export interface AssistantSnapshot {
  /** Whether the panel is open. */
  readonly open: boolean;
  /** True while a turn runs. */
  readonly busy: boolean;
  readonly items: ReadonlyArray<PanelItem>;
  /** Whether the event stream is open; false before it opens and while it reconnects. */
  readonly connected: boolean;
  /** The last request the host refused or that did not reach it; null again once one succeeds. */
  readonly error: AssistantError | null;
  /** The confirmations waiting for the user's answer, oldest first (the same array until they change). */
  readonly waiting: ReadonlyArray<WaitingQuestion>;
}

/** A confirmation waiting for the user's answer. */
export type WaitingQuestion = Extract<PanelItem, { kind: "confirm" }>;

const NONE_WAITING: ReadonlyArray<WaitingQuestion> = Object.freeze([]);

/** The confirmations of `items` still waiting; `previous` when they are the same ones. */
const waitingOf = (
  items: ReadonlyArray<PanelItem>,
  previous: ReadonlyArray<WaitingQuestion>,
): ReadonlyArray<WaitingQuestion> => {
  const now = items.filter(
    (item): item is WaitingQuestion => item.kind === "confirm" && item.answer === undefined,
  );
  if (now.length === 0) return NONE_WAITING;
  const same =
    now.length === previous.length && now.every((q, i) => q.confirmId === previous[i]?.confirmId);
  return same ? previous : Object.freeze(now);
};

/** How `createAssistantStore` finds the route, opens the panel and resumes the log. */
export interface AssistantStoreOptions {
  /** The route the user is on, sent with a prompt or a selection (by default the `#/…` hash route, else the path). */
  readonly route?: () => string | undefined;
  /** Whether the panel starts open (false). */
  readonly open?: boolean;
  /** The last seq already seen, to resume after (0: the whole log). */
  readonly fromSeq?: number;
  /**
   * Told the thread's id each time the store shows another thread (a new
   * conversation, or one opened from the list): keep it (in
   * `sessionStorage`, say) for a reload to show that thread again.
   */
  readonly onThread?: (id: string) => void;
}

/**
 * Requests resolve to whether the host took them; a failure never rejects, it
 * shows as the snapshot's `error`.
 */
export interface AssistantStore {
  /** Calls `listener` now and after each change; the stream is open while anyone listens. */
  readonly subscribe: (listener: (snapshot: AssistantSnapshot) => void) => () => void;
  readonly getSnapshot: () => AssistantSnapshot;
  /** Opens the panel and, given a prompt, sends it. */
  readonly open: (prompt?: string) => Promise<boolean>;
  readonly close: () => void;
  readonly toggle: () => void;
  readonly prompt: (text: string) => Promise<boolean>;
  /** Answers a confirmation; the echo's `tool` and `args` default to those its dialog shows. */
  readonly confirm: (confirmId: string, accept: boolean, echo?: ConfirmEcho) => Promise<boolean>;
  /**
   * Answers a confirmation as `confirm` does, resolving to what became of it
   * (`Answered`, or `InvalidEdit` with the issues of edited arguments while
   * the question still waits), or undefined when the request failed (`error`
   * says why).
   */
  readonly answer: (
    confirmId: string,
    accept: boolean,
    echo?: ConfirmEcho,
  ) => Promise<ConfirmResult | undefined>;
  readonly stop: () => Promise<boolean>;
  readonly reset: () => Promise<boolean>;
  readonly selected: (kind: string, ids: ReadonlyArray<string | number>) => Promise<boolean>;
  /** The page is going away: the stream is closed and the host told to close the window. */
  readonly goodbye: () => void;
  /**
   * Where the user's steps go now and whether the host can keep a key of
   * theirs (`POST /source`). Unlike the requests above it rejects with the
   * `AssistantError` and never sets `error`: the panel's settings show it.
   * Missing when the client has no `sourceInfo`.
   */
  readonly sourceInfo?: () => Promise<SourceResponse>;
  /**
   * What the conversation used, cost and has left of its budget (`POST
   * /usage`); rejects like `sourceInfo`. Missing when the client has no `usage`.
   */
  readonly usage?: (options?: { readonly cost?: boolean }) => Promise<UsageResponse>;
  /**
   * Keeps the user's own API key (`sk-ant-…`), or forgets it (`null`):
   * write-only. Rejects with the `AssistantError`, never sets `error`.
   */
  readonly key?: (key: string | null) => Promise<void>;
  /** The id of the thread shown now: the client's id. Optional, like the rest below, for a store made by hand. */
  readonly thread?: () => string;
  /**
   * Shows another thread: `id`, one of the user's, or a new conversation,
   * under a new id, when left out. What was shown is forgotten and the
   * thread's log is folded from its start, as after the host said to start
   * over; a turn still running in the thread left runs on there. Returns
   * the id shown now. Missing when the client cannot switch (`reset`
   * starts anew instead).
   */
  readonly switchThread?: (id?: string) => string;
  /** The user's threads (the client's): missing when the client has none. */
  readonly threads?: AssistantThreads;
}

/** The hash route (`#/customers/42` → `/customers/42`) when the app routes by hash, else the path. */
const locationRoute = (): string | undefined => {
  const location = globalThis.location as Location | undefined;
  if (location === undefined) return undefined;
  return location.hash.startsWith("#/")
    ? location.hash.slice(1)
    : `${location.pathname}${location.search}`;
};

const asAssistantError = (error: unknown): AssistantError =>
  error instanceof HostError || error instanceof ConnectionError ? error : connectionErrorOf(error);

/**
 * A store over one window's client.
 *
 * @example
 * ```ts
 * const store = createAssistantStore(assistantClient({ token: "page-token" }));
 * const unsubscribe = store.subscribe((snapshot) => console.log(snapshot.items.length));
 * await store.open("Which invoices are overdue?");
 * unsubscribe();
 * ```
 */
export const createAssistantStore = (
  client: AssistantClient,
  options: AssistantStoreOptions = {},
): AssistantStore => {
  const route = options.route ?? locationRoute;
  const listeners = new Set<(snapshot: AssistantSnapshot) => void>();
  let panel: PanelState = panelItems.initial;
  let lastSeq = options.fromSeq ?? 0;
  let closeStream: (() => void) | undefined;
  let snapshot: AssistantSnapshot = Object.freeze({
    open: options.open ?? false,
    busy: panel.busy,
    items: panel.items,
    connected: false,
    error: null,
    waiting: NONE_WAITING,
  });

  const set = (patch: Partial<AssistantSnapshot>): void => {
    const changed = (Object.keys(patch) as Array<keyof AssistantSnapshot>).some(
      (key) => patch[key] !== snapshot[key],
    );
    if (!changed) return;
    snapshot = Object.freeze({ ...snapshot, ...patch });
    for (const listener of [...listeners]) listener(snapshot);
  };

  const onEvent = (event: LogEvent): void => {
    if (event.seq <= lastSeq) return;
    lastSeq = event.seq;
    const next = panelItems.apply(panel, event);
    if (next === panel) return;
    panel = next;
    set({ busy: next.busy, items: next.items, waiting: waitingOf(next.items, snapshot.waiting) });
  };

  const connect = (): void => {
    closeStream = client.events(
      lastSeq,
      onEvent,
      (error) => {
        // A dropped stream reconnects by itself; a refusal (a bad token) is worth showing.
        set(
          error._tag === "HostError" && !error.isRetryable
            ? { connected: false, error }
            : { connected: false },
        );
      },
      () => set({ connected: true }),
      // The host's log is not the one folded here: what was shown is forgotten, the log follows.
      () => forget(),
    );
  };

  const forget = (patch: Partial<AssistantSnapshot> = {}): void => {
    panel = panelItems.initial;
    lastSeq = 0;
    set({ busy: panel.busy, items: panel.items, waiting: NONE_WAITING, ...patch });
  };

  const clientSwitch = client.switchThread?.bind(client);
  const switchThread =
    clientSwitch === undefined
      ? undefined
      : (id?: string): string => {
          if (id !== undefined && id === client.clientId) return id;
          const shown = clientSwitch(id);
          const streaming = closeStream !== undefined;
          closeStream?.();
          closeStream = undefined;
          forget({ connected: false, error: null });
          // Its log from the start, on a stream of its own.
          if (streaming) connect();
          options.onThread?.(shown);
          return shown;
        };

  const request = async (send: () => Promise<unknown>): Promise<boolean> => {
    try {
      await send();
      set({ error: null });
      return true;
    } catch (error) {
      set({ error: asAssistantError(error) });
      return false;
    }
  };

  const sourceInfo = client.sourceInfo?.bind(client);
  const usage = client.usage?.bind(client);

  const answer = async (
    confirmId: string,
    accept: boolean,
    echo?: ConfirmEcho,
  ): Promise<ConfirmResult | undefined> => {
    const shown = snapshot.items.find(
      (item): item is Extract<PanelItem, { kind: "confirm" }> =>
        item.kind === "confirm" && item.confirmId === confirmId,
    );
    // What the dialog showed, unless the echo says otherwise; an edit alone keeps them.
    const sent = shown === undefined ? echo : { tool: shown.tool, args: shown.args, ...echo };
    let result: ConfirmResult | undefined;
    const sentOk = await request(async () => {
      result = (await client.confirm(confirmId, accept, sent)).result;
    });
    return sentOk ? result : undefined;
  };

  const prompt = (text: string): Promise<boolean> =>
    text.trim() === "" ? Promise.resolve(false) : request(() => client.prompt(text, route()));

  return {
    subscribe: (listener) => {
      listeners.add(listener);
      listener(snapshot);
      if (closeStream === undefined) connect();
      return () => {
        if (!listeners.delete(listener) || listeners.size > 0) return;
        closeStream?.();
        closeStream = undefined;
        set({ connected: false });
      };
    },
    getSnapshot: () => snapshot,
    open: (text) => {
      set({ open: true });
      return text === undefined ? Promise.resolve(true) : prompt(text);
    },
    close: () => set({ open: false }),
    toggle: () => set({ open: !snapshot.open }),
    prompt,
    confirm: async (confirmId, accept, echo) =>
      (await answer(confirmId, accept, echo)) !== undefined,
    answer,
    stop: () => request(() => client.stop()),
    reset: () => request(() => client.reset()),
    selected: (kind, ids) => request(() => client.selected(kind, ids, route())),
    goodbye: () => {
      closeStream?.();
      closeStream = undefined;
      set({ connected: false });
      // Nothing is left to show a failure to: the host closes idle windows on its own anyway.
      client.close().catch(() => undefined);
    },
    ...(sourceInfo === undefined ? {} : { sourceInfo }),
    ...(usage === undefined ? {} : { usage }),
    key: (key) => client.key(key),
    thread: () => client.clientId,
    ...(switchThread === undefined ? {} : { switchThread }),
    ...(client.threads === undefined ? {} : { threads: client.threads }),
  };
};
