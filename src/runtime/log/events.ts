/**
 * The conversation log: every change to a window's conversation is one of
 * these events. What a window shows and what the model is sent are folds of
 * them (see projections). Events carry no secrets; the only arguments in the
 * log are those of a confirmation: the ones asked, which the dialog must
 * show, and the ones the user changed them to, which it shows once answered.
 */
import { Schema } from "effect";
import { EditableField } from "../commands/fields.ts";

/**
 * The version of the event protocol a window speaks. It grows by adding: a
 * newer host may send types, or optional fields, that an older window ignores.
 */
export const PROTOCOL_VERSION = 1;

const Int = Schema.Int.pipe(Schema.nonNegative());

/** Fields every event has: its place in the stream, when, and which turn (0 outside any turn). */
const base = { seq: Schema.Int.pipe(Schema.positive()), at: Schema.Number, turn: Int };

const Caller = Schema.Union(
  Schema.Struct({ type: Schema.Literal("direct") }),
  Schema.Struct({ type: Schema.Literal("code"), toolId: Schema.String }),
);

/** Token counts of one model step. */
export const Usage = Schema.Struct({
  inputTokens: Int,
  outputTokens: Int,
  cacheReadTokens: Schema.optional(Int),
  cacheWriteTokens: Schema.optional(Int),
});
export type Usage = typeof Usage.Type;

/** The tokens a step used against a conversation's budget: input, output and cache reads and writes. */
export const tokensOf = (usage: Usage): number =>
  usage.inputTokens +
  usage.outputTokens +
  (usage.cacheReadTokens ?? 0) +
  (usage.cacheWriteTokens ?? 0);

export const TurnStarted = Schema.TaggedStruct("TurnStarted", {
  ...base,
  text: Schema.String,
  route: Schema.NullOr(Schema.String),
  /** The window note sent with the text (`<window>…</window>`), or null. */
  note: Schema.NullOr(Schema.String),
});
export const StepStarted = Schema.TaggedStruct("StepStarted", { ...base, step: Int });
export const TextDelta = Schema.TaggedStruct("TextDelta", {
  ...base,
  step: Int,
  text: Schema.String,
});
export const StepFinished = Schema.TaggedStruct("StepFinished", {
  ...base,
  step: Int,
  stopReason: Schema.String,
  usage: Usage,
});
export const ToolStarted = Schema.TaggedStruct("ToolStarted", {
  ...base,
  callId: Schema.String,
  tool: Schema.String,
  caller: Caller,
});
export const ToolFinished = Schema.TaggedStruct("ToolFinished", {
  ...base,
  callId: Schema.String,
  ok: Schema.Boolean,
  /** How it ended, as the audit names it (`ok`, `denied`, `notConfirmed`, …). */
  outcome: Schema.String,
  link: Schema.optional(Schema.String),
});
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
/** Claude's code started in the code execution sandbox: `toolId` is its `server_tool_use` id. */
export const ScriptStarted = Schema.TaggedStruct("ScriptStarted", {
  ...base,
  toolId: Schema.String,
  code: Schema.String,
});
/**
 * Code mode, streamed: Claude began writing the code of code execution
 * `toolId` (its block started). Its code follows in `ScriptCodeDelta`s, then
 * whole in `ScriptStarted` once the step ends.
 */
export const ScriptWriting = Schema.TaggedStruct("ScriptWriting", {
  ...base,
  toolId: Schema.String,
});
/** More of the code of `toolId` as it is written, gathered like text (at most one per 50 ms). For display only. */
export const ScriptCodeDelta = Schema.TaggedStruct("ScriptCodeDelta", {
  ...base,
  toolId: Schema.String,
  code: Schema.String,
});
/** The code ended: what it printed (stdout, stderr, a failing exit code) and how many calls it made. */
export const ScriptFinished = Schema.TaggedStruct("ScriptFinished", {
  ...base,
  toolId: Schema.String,
  output: Schema.String,
  calls: Int,
});
export const Answered = Schema.TaggedStruct("Answered", { ...base, text: Schema.String });
export const Stopped = Schema.TaggedStruct("Stopped", { ...base, partial: Schema.String });
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
/** What the user selected of one kind (`[]` clears it), on which route; at most 100 ids are kept. */
export const SelectionChanged = Schema.TaggedStruct("SelectionChanged", {
  ...base,
  kind: Schema.String,
  ids: Schema.Array(Schema.Union(Schema.String, Schema.Number)),
  /** How many were selected, when more than the ids kept. */
  total: Schema.optional(Int),
  route: Schema.NullOr(Schema.String),
});
export const Reset = Schema.TaggedStruct("Reset", { ...base });
/**
 * Who the window belongs to (the host's `userKey` of its user), written
 * before its first event: a host that opens the window again, after a restart,
 * refuses anyone else.
 */
export const WindowOwned = Schema.TaggedStruct("WindowOwned", { ...base, owner: Schema.String });

/** Any event of the log. */
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
