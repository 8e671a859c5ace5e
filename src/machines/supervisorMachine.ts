/**
 * The host's supervisor: the parent of every window's conversation. It opens
 * a window by recovering its log and then spawning its conversation; when a
 * conversation fails it recovers the log again and spawns a fresh one, up to
 * `maxRestarts` crashes within `restartWindowMs`; past that it gives the
 * window up and says so. The machine decides; reading the log is the
 * `recover` actor the host provides, and time is XState's clock.
 */
import {
  assign,
  type ErrorActorEvent,
  emit,
  enqueueActions,
  fromCallback,
  raise,
  setup,
  stopChild,
} from "xstate";
import { type ConversationInput, conversationMachine } from "./conversationMachine.ts";

/** The restart intensity: more than `maxRestarts` crashes within `restartWindowMs` and a window is given up. */
export interface SupervisorInput {
  readonly maxRestarts: number;
  readonly restartWindowMs: number;
}

/** A window's crashes not yet forgiven, and the last one's error (what giving up reports). */
export interface CrashRecord {
  readonly count: number;
  readonly error: unknown;
}

/** The supervisor as it runs: its restart policy, and the windows that crashed lately. */
export interface SupervisorContext extends SupervisorInput {
  /** Only windows that crashed within the last `restartWindowMs` have a record. */
  readonly crashes: Readonly<Record<string, CrashRecord>>;
}

/** What the `recover` actor makes of a window's log: where its conversation starts. */
export interface Recovered {
  readonly window: string;
  readonly conversation: ConversationInput;
}

/** Input of the `recover` actor. */
export interface RecoverInput {
  readonly window: string;
}

/**
 * A window is named by its key: the host numbers its windows ("0", "1", …),
 * and each conversation is the supervisor's child under that key. Keys that
 * are array indices keep thousands of children cheap: JavaScript stores them
 * as elements, where names would give each set of children a hidden class of
 * its own (decision (z), docs/decisions/0026-supervisors-for-the-hosts-windows-keyed-by-number.md).
 */
export type SupervisorEvent =
  /** A window is opened: its log is recovered, then its conversation spawned. */
  | { readonly type: "OPEN"; readonly window: string }
  /** A window is closed: its conversation (or its recovery) is stopped and its crashes forgotten. */
  | { readonly type: "CLOSE"; readonly window: string }
  /** A crash `restartWindowMs` old no longer counts. */
  | { readonly type: "FORGIVE"; readonly window: string }
  /** A recovery read the window's log: its conversation starts from there. */
  | ({ readonly type: "RECOVERED" } & Recovered)
  /** A recovery could not read the window's log. */
  | { readonly type: "RECOVERY_FAILED"; readonly window: string; readonly error: unknown }
  | ErrorActorEvent;

/**
 * The `recover` actor from a function that reads a window's log. It reports
 * with `RECOVERED` or `RECOVERY_FAILED`, events of fixed names: XState keeps
 * the transitions it looked up for each event name a machine ever saw, so an
 * actor's own `xstate.done.actor.<id>` (a new name for every window) would
 * cost the supervisor memory for every window it ever opened.
 *
 * @example
 * ```ts
 * supervisorMachine.provide({
 *   actors: { recover: recoverFrom(async (window) => ({ window, conversation })) },
 * });
 * ```
 */
export const recoverFrom = (recover: (window: string) => Promise<Recovered>) =>
  fromCallback<SupervisorEvent, RecoverInput>(({ input, sendBack }) => {
    let live = true;
    recover(input.window).then(
      (recovered) => {
        if (live) sendBack({ type: "RECOVERED", ...recovered });
      },
      (error: unknown) => {
        if (live) sendBack({ type: "RECOVERY_FAILED", window: input.window, error });
      },
    );
    return () => {
      live = false;
    };
  });

/** What the supervisor tells the host about a window. */
export type SupervisorEmitted =
  /** Its conversation is running (`conversationId(window)` in the actor system). */
  | { readonly type: "started"; readonly window: string }
  /** Its conversation failed and is being rebuilt. */
  | { readonly type: "crashed"; readonly window: string; readonly error: unknown }
  /** Given up: too many crashes, or a log that could not be read. */
  | {
      readonly type: "failed";
      readonly window: string;
      readonly error: unknown;
      readonly reason: GiveUpReason;
    };

/** Why a window was given up: crashes past the intensity, or a log `recover` could not read. */
export type GiveUpReason = "tooManyCrashes" | "unreadableLog";

/**
 * The system id of a window's conversation actor; its id among the
 * supervisor's children is the window's key itself.
 *
 * @example
 * ```ts
 * const conversation = supervisor.system.get(conversationId("tab-1"));
 * ```
 */
export const conversationId = (window: string): string => `conversation:${window}`;

const RECOVERY = "recover:";

/**
 * The id of a window's recovery.
 *
 * @example
 * ```ts
 * const recovering = supervisor.getSnapshot().children[recoveryId("tab-1")] !== undefined;
 * ```
 */
export const recoveryId = (window: string): string => `${RECOVERY}${window}`;

/** The window a child's id names. */
const windowOf = (actorId: string): string =>
  actorId.startsWith(RECOVERY) ? actorId.slice(RECOVERY.length) : actorId;

type Crash = { readonly window: string; readonly error: unknown };
type GiveUp = Crash & { readonly reason: GiveUpReason };
type WindowParams = { readonly window: string };

/** The window and error of a failed child, or of a recovery that failed. */
const crashOf = ({ event }: { readonly event: SupervisorEvent }): Crash => {
  if (event.type === "RECOVERY_FAILED") return { window: event.window, error: event.error };
  return "actorId" in event && "error" in event
    ? { window: windowOf(event.actorId), error: event.error }
    : { window: "", error: undefined };
};

/** The window a recovery finished for. */
const recoveredOf = ({ event }: { readonly event: SupervisorEvent }): WindowParams =>
  event.type === "RECOVERED" ? { window: event.window } : { window: "" };

/**
 * `supervising`, with every decision a named action or guard: `OPEN` →
 * `recover` → `startConversation`; a conversation's error → `countCrash`,
 * `recover` again, then `startConversation` while within the intensity,
 * else `giveUp`.
 *
 * @example
 * ```ts
 * const supervisor = createActor(
 *   supervisorMachine.provide({ actors: { conversation, recover } }),
 *   { input: { maxRestarts: 3, restartWindowMs: 60_000 }, clock },
 * ).start();
 * supervisor.on("started", ({ window }) => attach(supervisor.system.get(conversationId(window))));
 * supervisor.send({ type: "OPEN", window: "tab-1" });
 * ```
 */
export const supervisorMachine = setup({
  types: {
    input: {} as SupervisorInput,
    context: {} as SupervisorContext,
    events: {} as SupervisorEvent,
    emitted: {} as SupervisorEmitted,
  },
  actors: {
    conversation: conversationMachine,
    /** Replaced by the host (`recoverFrom`): reads the window's log. This stub starts every window afresh. */
    recover: recoverFrom(async (window) => ({
      window,
      conversation: { maxSteps: 8, tokenBudget: 200_000 },
    })),
  },
  delays: { restartWindow: ({ context }) => context.restartWindowMs },
  actions: {
    /** Reads the window's log: the turn a crash interrupted is recorded so, the counts taken. */
    recover: enqueueActions(({ enqueue }, { window }: WindowParams) => {
      enqueue.spawnChild("recover", { id: recoveryId(window), input: { window } });
    }),
    stopRecovery: stopChild((_, { window }: WindowParams) => recoveryId(window)),
    /** A fresh conversation from what the log says; it replays nothing. */
    startConversation: enqueueActions(({ enqueue, event }) => {
      if (event.type !== "RECOVERED") return;
      const { window, conversation } = event;
      enqueue.spawnChild("conversation", {
        id: window,
        systemId: conversationId(window),
        input: conversation,
      });
      enqueue.emit({ type: "started", window });
    }),
    stopConversation: stopChild((_, { window }: WindowParams) => window),
    countCrash: assign(({ context }, { window, error }: Crash) => ({
      crashes: {
        ...context.crashes,
        [window]: { count: (context.crashes[window]?.count ?? 0) + 1, error },
      },
    })),
    /** Each crash counts for `restartWindowMs`, on the actor system's clock. */
    forgiveLater: raise((_, { window }: WindowParams) => ({ type: "FORGIVE" as const, window }), {
      delay: "restartWindow",
    }),
    forgive: assign(({ context }, { window }: WindowParams) => {
      const record = context.crashes[window];
      if (record === undefined) return {};
      const { [window]: _, ...others } = context.crashes;
      return {
        crashes:
          record.count > 1
            ? { ...others, [window]: { ...record, count: record.count - 1 } }
            : others,
      };
    }),
    forget: assign(({ context }, { window }: WindowParams) => {
      if (!(window in context.crashes)) return {};
      const { [window]: _, ...others } = context.crashes;
      return { crashes: others };
    }),
    tellCrashed: emit((_, { window, error }: Crash) => ({
      type: "crashed" as const,
      window,
      error,
    })),
    /** Past the intensity, or a log that cannot be read: the host is told and the window refuses. */
    giveUp: emit((_, { window, error, reason }: GiveUp) => ({
      type: "failed" as const,
      window,
      error,
      reason,
    })),
  },
  guards: {
    /** A conversation failed (the other children are recoveries). */
    conversationFailed: ({ event }) => "actorId" in event && !event.actorId.startsWith(RECOVERY),
    /** More crashes within `restartWindowMs` than `maxRestarts`. */
    overIntensity: ({ context }, { window }: WindowParams) =>
      (context.crashes[window]?.count ?? 0) > context.maxRestarts,
  },
}).createMachine({
  id: "supervisor",
  context: ({ input }) => ({ ...input, crashes: {} }),
  initial: "supervising",
  states: {
    supervising: {
      on: {
        OPEN: { actions: { type: "recover", params: ({ event }) => ({ window: event.window }) } },
        CLOSE: {
          actions: [
            { type: "stopRecovery", params: ({ event }) => ({ window: event.window }) },
            { type: "stopConversation", params: ({ event }) => ({ window: event.window }) },
            { type: "forget", params: ({ event }) => ({ window: event.window }) },
          ],
        },
        FORGIVE: {
          actions: { type: "forgive", params: ({ event }) => ({ window: event.window }) },
        },
        RECOVERED: [
          {
            guard: { type: "overIntensity", params: recoveredOf },
            actions: [
              { type: "stopRecovery", params: recoveredOf },
              {
                type: "giveUp",
                params: ({ context, event }) => {
                  const { window } = recoveredOf({ event });
                  return {
                    window,
                    error: context.crashes[window]?.error,
                    reason: "tooManyCrashes" as const,
                  };
                },
              },
              { type: "forget", params: recoveredOf },
            ],
          },
          {
            actions: [{ type: "stopRecovery", params: recoveredOf }, "startConversation"],
          },
        ],
        RECOVERY_FAILED: {
          // The log could not be read: the window is given up; opening it again reads again.
          actions: [
            { type: "stopRecovery", params: crashOf },
            {
              type: "giveUp",
              params: (args) => ({ ...crashOf(args), reason: "unreadableLog" as const }),
            },
            { type: "forget", params: crashOf },
          ],
        },
        "xstate.error.actor.*": [
          {
            guard: "conversationFailed",
            actions: [
              { type: "stopConversation", params: crashOf },
              { type: "countCrash", params: crashOf },
              { type: "forgiveLater", params: crashOf },
              { type: "tellCrashed", params: crashOf },
              { type: "recover", params: crashOf },
            ],
          },
          {
            // A recovery that threw instead of reporting: its window is given up as unreadable.
            actions: [
              { type: "stopRecovery", params: crashOf },
              {
                type: "giveUp",
                params: (args) => ({ ...crashOf(args), reason: "unreadableLog" as const }),
              },
              { type: "forget", params: crashOf },
            ],
          },
        ],
      },
    },
  },
});
