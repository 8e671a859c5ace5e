/**
 * The conversation log: every change to a window's conversation is one of
 * these events. What a window shows and what the model is sent are folds of
 * them (see projections). Events carry no secrets; the only arguments in the
 * log are those of a confirmation: the ones asked, which the dialog must
 * show, and the ones the user changed them to, which it shows once answered.
 */
import { Schema } from "effect";
import { EditableField } from "../commands/fields.ts";
import { Compacted, ToolResultsCleared } from "./contextEvents.ts";
import { base, Int } from "./eventBase.ts";
import { ConversationOwned } from "./ownerEvents.ts";
import { ScriptCodeDelta, ScriptFinished, ScriptStarted, ScriptWriting } from "./scriptEvents.ts";
import { Usage } from "./stepUsage.ts";
import { Erased, ThreadArchived, ThreadRenamed } from "./threadEvents.ts";

export {
  CACHE_READ_WEIGHT,
  CACHE_WRITE_1H_WEIGHT,
  CACHE_WRITE_WEIGHT,
  tokensOf,
} from "./stepUsage.ts";
export {
  Compacted,
  ConversationOwned,
  Erased,
  ScriptCodeDelta,
  ScriptFinished,
  ScriptStarted,
  ScriptWriting,
  ThreadArchived,
  ThreadRenamed,
  ToolResultsCleared,
  Usage,
};

/**
 * The version of the event protocol a window speaks. It grows by adding: a
 * newer host may send types, or optional fields, that an older window ignores.
 *
 * @example
 * ```ts
 * // A client that stores logs locally keeps the version they were written in.
 * localStorage.setItem("assistant-log", JSON.stringify({ version: PROTOCOL_VERSION, events }));
 * ```
 */
export const PROTOCOL_VERSION = 1;

const Caller = Schema.Union(
  Schema.Struct({ type: Schema.Literal("direct") }),
  Schema.Struct({ type: Schema.Literal("code"), toolId: Schema.String }),
);

/**
 * A turn began: the user's `text`, the `route` they were on (or null) and the
 * window note sent with it. Every later event of the turn carries its `turn`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * const asked = log.filter(Schema.is(TurnStarted)).map((e) => e.text); // what the user asked, turn by turn
 * ```
 */
export const TurnStarted = Schema.TaggedStruct("TurnStarted", {
  ...base,
  text: Schema.String,
  route: Schema.NullOr(Schema.String),
  /** The window note sent with the text (`<window>…</window>`), or null. */
  note: Schema.NullOr(Schema.String),
});
/**
 * The model began step `step` of the turn: one request to it, answered by
 * text, tool calls or both. A turn that calls tools has several steps.
 *
 * @example
 * ```ts
 * const steps = events.filter((e: LogEvent) => e._tag === "StepStarted" && e.turn === 3).length;
 * ```
 */
export const StepStarted = Schema.TaggedStruct("StepStarted", { ...base, step: Int });
/**
 * More of the text the model writes in step `step`, as it streams (gathered,
 * not token by token). The whole answer is in the turn's `Answered`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * if (Schema.is(TextDelta)(e)) answerElement.textContent += e.text;
 * ```
 */
export const TextDelta = Schema.TaggedStruct("TextDelta", {
  ...base,
  step: Int,
  text: Schema.String,
});
/**
 * A model step ended: why it stopped (`end_turn`, `tool_use`, `max_tokens`, …)
 * and the tokens it used. The `usage` fold adds these up.
 *
 * @example
 * ```ts
 * const step = StepFinished.make({
 *   seq: 9, at: Date.now(), turn: 2, step: 1, stopReason: "end_turn",
 *   usage: { inputTokens: 1200, outputTokens: 85 },
 * });
 * ```
 */
export const StepFinished = Schema.TaggedStruct("StepFinished", {
  ...base,
  step: Int,
  stopReason: Schema.String,
  usage: Usage,
  /** The model that answered (what its prices are looked up by); absent in logs written before it was kept. */
  model: Schema.optional(Schema.String),
});
/**
 * A command began to run as the tool `tool`, called by the model directly or
 * by its code (`caller.type === "code"`). Its `ToolFinished` has the same `callId`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * const running = events.filter(Schema.is(ToolStarted)).map((e) => e.tool); // e.g. ["invoices_index"]
 * ```
 */
export const ToolStarted = Schema.TaggedStruct("ToolStarted", {
  ...base,
  callId: Schema.String,
  tool: Schema.String,
  caller: Caller,
});
/**
 * The call `callId` ended: whether it succeeded, how (`outcome`), and the
 * link to what it made or changed, when the command gave one. No result: the
 * log keeps no data of the app's.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * const refused = events.filter(Schema.is(ToolFinished)).filter((e) => e.outcome === "denied");
 * ```
 */
export const ToolFinished = Schema.TaggedStruct("ToolFinished", {
  ...base,
  callId: Schema.String,
  ok: Schema.Boolean,
  /** How it ended, as the audit names it (`ok`, `denied`, `notConfirmed`, …). */
  outcome: Schema.String,
  link: Schema.optional(Schema.String),
});
/**
 * A call waits for the user to confirm it: what the dialog shows (the
 * command's title, summary and label, the arguments asked, those the user
 * may change) and the `confirmId` its answer is sent back with.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * const ask = Schema.decodeUnknownSync(ConfirmRequested)(json);
 * showDialog(ask.title ?? ask.tool, ask.args, ask.destructive === true);
 * ```
 */
export const ConfirmRequested = Schema.TaggedStruct("ConfirmRequested", {
  ...base,
  confirmId: Schema.String,
  callId: Schema.String,
  tool: Schema.String,
  /** The model's description of the tool: never shown to people (`title`, `summary` are theirs). */
  description: Schema.String,
  /** The command's title for people ("Delete customer"); absent in older logs. */
  title: Schema.optional(Schema.String),
  /** What the command does, for people (its `summary`), when it says. */
  summary: Schema.optional(Schema.String),
  args: Schema.Unknown,
  /** The command's `confirmLabel` sentence, when it gave one. */
  label: Schema.optional(Schema.String),
  /** The accept button is destructive. */
  destructive: Schema.optional(Schema.Boolean),
  /** The accept button's word. */
  action: Schema.optional(Schema.String),
  /**
   * The arguments the user may change before approving, each with its JSON
   * Schema and, derived by the host, its label, its field's kind and currency.
   */
  editable: Schema.optional(Schema.Array(EditableField)),
});
/**
 * The answer to the confirmation `confirmId`: accepted (perhaps with
 * arguments the user changed), declined, or not given in time.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * const declined = Schema.is(ConfirmAnswered)(e) && e.answer === "declined";
 * ```
 */
export const ConfirmAnswered = Schema.TaggedStruct("ConfirmAnswered", {
  ...base,
  confirmId: Schema.String,
  answer: Schema.Literal("accepted", "declined", "timedOut"),
  /** Accepted with arguments the user changed. */
  edited: Schema.optional(Schema.Literal(true)),
  /**
   * With `edited`: the whole arguments as the user changed and approved them
   * (their JSON; only editable members differ from the asked `args`), what
   * the call path checks again and runs. Absent in logs written before it
   * was recorded: a reader then knows only that they changed.
   */
  args: Schema.optional(Schema.Unknown),
});
/**
 * The turn ended with the model's answer: its whole `text`, what the
 * `TextDelta`s streamed.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * const last = events.filter(Schema.is(Answered)).at(-1)?.text;
 * ```
 */
export const Answered = Schema.TaggedStruct("Answered", { ...base, text: Schema.String });
/**
 * The user stopped the turn: `partial` is the text written until then, kept
 * in the history the model is sent, marked as stopped.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * const cut = Schema.is(Stopped)(e) ? e.partial : undefined;
 * ```
 */
export const Stopped = Schema.TaggedStruct("Stopped", { ...base, partial: Schema.String });
/**
 * The turn failed: `error` says why, and for a failed model step `kind` (and
 * `status`) tells which, so a panel can say what probably went wrong.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * if (Schema.is(Failed)(e) && e.kind === "rateLimited") showNotice("Too many requests: try again soon.");
 * ```
 */
export const Failed = Schema.TaggedStruct("Failed", {
  ...base,
  error: Schema.String,
  /**
   * When the model's step failed: the `ModelError`'s kind (`auth`,
   * `connection`, `overloaded`, `rateLimited`, …), so a panel can say in
   * words what probably went wrong. Absent for other failures, and in logs
   * written before it was recorded.
   */
  kind: Schema.optional(Schema.String),
  /** With `kind`: the HTTP status the model's API answered, when there was one. */
  status: Schema.optional(Schema.Int),
});
/**
 * What the user selected of one kind (`[]` clears it), on which route; at most 100 ids are kept.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * const picked = Schema.decodeUnknownSync(SelectionChanged)(json); // { kind: "invoice", ids: [42, 43], … }
 * ```
 */
export const SelectionChanged = Schema.TaggedStruct("SelectionChanged", {
  ...base,
  kind: Schema.String,
  ids: Schema.Array(Schema.Union(Schema.String, Schema.Number)),
  /** How many were selected, when more than the ids kept. */
  total: Schema.optional(Int),
  route: Schema.NullOr(Schema.String),
});
/**
 * The conversation was forgotten: the folds start again from nothing after
 * it, though the log keeps what came before.
 *
 * @example
 * ```ts
 * const fresh = history.fold([Reset.make({ seq: 1, at: Date.now(), turn: 0 })]); // no messages
 * ```
 */
export const Reset = Schema.TaggedStruct("Reset", { ...base });
/**
 * Who the window belongs to (the host's `userKey` of its user), written
 * before its first event: a host that opens the window again, after a restart,
 * refuses anyone else.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * const owner = (await store.read("w1", 0)).find(Schema.is(WindowOwned))?.owner;
 * ```
 */
export const WindowOwned = Schema.TaggedStruct("WindowOwned", { ...base, owner: Schema.String });

/**
 * Any event of the log: the schema to decode events a client received, or
 * read back from storage of its own.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * const received = Schema.decodeUnknownSync(Schema.Array(LogEvent))(JSON.parse(body));
 * ```
 */
export const LogEvent = Schema.Union(
  TurnStarted,
  StepStarted,
  TextDelta,
  StepFinished,
  ToolStarted,
  ToolFinished,
  ConfirmRequested,
  ConfirmAnswered,
  ScriptStarted,
  ScriptFinished,
  ScriptWriting,
  ScriptCodeDelta,
  Answered,
  Stopped,
  Failed,
  SelectionChanged,
  Reset,
  WindowOwned,
  Compacted,
  ToolResultsCleared,
  ConversationOwned,
  ThreadRenamed,
  ThreadArchived,
  Erased,
);
export type LogEvent = typeof LogEvent.Type;

/** An event's tag. */
export type LogEventTag = LogEvent["_tag"];

/** `Omit` over each member of a union, not over their common keys. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** An event as it is about to be appended: the store gives it its `seq`. */
export type NewEvent = DistributiveOmit<LogEvent, "seq">;

/** An event as the machine or the tool runner makes it: the log stamps `at`, the store `seq`. */
export type UnstampedEvent = DistributiveOmit<LogEvent, "seq" | "at">;

/** The event named by `tag`. */
export type EventOf<T extends LogEventTag> = Extract<LogEvent, { _tag: T }>;

/** The event that ends a turn. */
export type TurnEnd = EventOf<"Answered"> | EventOf<"Stopped"> | EventOf<"Failed">;

/** Whether an event ends a turn: after one of these, no turn is running. */
export const isTurnEnd = <E extends { readonly _tag: string }>(
  event: E,
): event is Extract<E, { readonly _tag: TurnEnd["_tag"] }> =>
  event._tag === "Answered" || event._tag === "Stopped" || event._tag === "Failed";
