/**
 * What hosts on one shared store tell each other about a window (decision
 * (aj)): what its user asked on a host that is not the window's writer, sent
 * to the host that is, and the reply. Contracts in `effect/Schema`: a message
 * that does not decode (another version's, or not ours) is ignored.
 */
import { Either, Schema } from "effect";
import type { AnswerResult } from "../../runtime/calls/answerResult.ts";

const Asked = {
  /** The window. */
  clientId: Schema.String,
  /** The user's key, as the log records its owner: the holder refuses anyone else. */
  owner: Schema.String,
  /** The host waiting for the reply, and the request's id there. */
  from: Schema.String,
  id: Schema.Number,
};

export const PromptAsked = Schema.TaggedStruct("Prompt", {
  ...Asked,
  text: Schema.String,
  route: Schema.NullOr(Schema.String),
});
export const ConfirmAsked = Schema.TaggedStruct("Confirm", {
  ...Asked,
  confirmId: Schema.String,
  accept: Schema.Boolean,
  tool: Schema.optional(Schema.String),
  args: Schema.optional(Schema.Unknown),
  edited: Schema.optional(Schema.Unknown),
});
/** The last turn a stop's or a reset's asker knew of: a turn begun after it goes on (it came late). */
const Knew = { turn: Schema.optional(Schema.Number) };
export const StopAsked = Schema.TaggedStruct("Stop", { ...Asked, ...Knew });
export const ResetAsked = Schema.TaggedStruct("Reset", { ...Asked, ...Knew });
export const SelectAsked = Schema.TaggedStruct("Select", {
  ...Asked,
  kind: Schema.String,
  ids: Schema.Array(Schema.Union(Schema.String, Schema.Number)),
  route: Schema.optional(Schema.NullOr(Schema.String)),
});

/** A thread renamed (`title`) or archived (`archived`): one of the two. */
export const MarkAsked = Schema.TaggedStruct("Mark", {
  ...Asked,
  title: Schema.optional(Schema.String),
  archived: Schema.optional(Schema.Boolean),
});

/** What the holder answers, as JSON: per request, see {@link Reply}. */
export const Replied = Schema.TaggedStruct("Reply", {
  id: Schema.Number,
  result: Schema.Unknown,
});

export const HostMessage = Schema.Union(
  PromptAsked,
  ConfirmAsked,
  StopAsked,
  ResetAsked,
  SelectAsked,
  MarkAsked,
  Replied,
);
export type HostMessage = typeof HostMessage.Type;
export type Request = Exclude<HostMessage, { readonly _tag: "Reply" }>;

/**
 * A reply. `NotHolder`: the host no longer writes the window (its turn ended,
 * or it closed the window): the asker tries again. `Refused`: the request was
 * refused there, as it would have been here (`reason` and `message` of the
 * error). `Started`: a prompt's turn started (its end is read from the log).
 * `Done`: a reset, a selection or a mark was stored. A confirmation's reply is its
 * {@link AnswerResult}.
 */
export type Reply =
  | { readonly _tag: "NotHolder" }
  | {
      readonly _tag: "Refused";
      readonly error: string;
      readonly reason?: string;
      readonly message: string;
    }
  | { readonly _tag: "Started"; readonly turn: number }
  | { readonly _tag: "Done" }
  | AnswerResult;

const decode = Schema.decodeUnknownEither(HostMessage);

/** A message as sent by another host, or `undefined` for one that is not a host message. */
export const hostMessageOf = (value: unknown): HostMessage | undefined => {
  const decoded = decode(value);
  return Either.isRight(decoded) ? decoded.right : undefined;
};

/** An error as a `Refused` reply: its tag, reason and message, which the asker throws again. */
export const refusedReply = (error: unknown): Reply => {
  const tagged = error as { _tag?: unknown; reason?: unknown; message?: unknown } | null;
  return {
    _tag: "Refused",
    error: typeof tagged?._tag === "string" ? tagged._tag : "Error",
    ...(typeof tagged?.reason === "string" ? { reason: tagged.reason } : {}),
    message:
      typeof tagged?.message === "string" && tagged.message !== "" ? tagged.message : String(error),
  };
};
