/**
 * What became of an answer to a confirmation, written once: the broker
 * returns it, a host that writes a window sends it back to the host that
 * asked (`actors/cluster/messages.ts`), and `POST /confirm` answers it to the
 * browser (`adapters/web/wire.ts`, which imports only its type, so the
 * browser bundle holds no `effect`: decision (u)).
 */
import { Schema, SchemaAST } from "effect";
import type { Issue } from "../commands/issues.ts";
import type { ConfirmAnswer } from "./confirmer.ts";

/**
 * What a dialog sends back with its answer: `tool` and `args`, when sent,
 * must be what was asked; `edited`, with an acceptance, is the whole
 * arguments as the user left them (only editable ones may differ).
 *
 * @example
 * ```ts
 * const w = host.window("tab-1", { user });
 * const echo: ConfirmEcho = { tool: "customers_destroy", args: { id: 5 } };
 * await w.confirm(confirmId, true, echo);
 * ```
 */
export interface ConfirmEcho {
  readonly tool?: string;
  readonly args?: unknown;
  readonly edited?: unknown;
}

/** How a confirmation ended, as {@link ConfirmAnswer} says (the annotation keeps them equal). */
const Answer: Schema.Schema<ConfirmAnswer> = Schema.Literal("accepted", "declined", "timedOut");

/** One problem of an edit, as {@link Issue} says (the annotation keeps them equal). */
const EditIssue: Schema.Schema<Issue> = Schema.Struct({
  path: Schema.String,
  message: Schema.String,
});

/**
 * What became of an answer. `Answered` settled the confirmation (`edited`
 * when it was accepted with changed arguments); `Mismatch` (the echo named
 * another tool or arguments, or the edit changed what may not be changed)
 * settled it as declined; `InvalidEdit` (the edited arguments do not
 * decode: `issues` say why) and the others changed nothing: it still waits.
 *
 * @example
 * ```ts
 * const result: AnswerResult = await broker.answer({ confirmId, accept: true, scope });
 * if (result._tag === "InvalidEdit") showProblems(result.issues);
 * ```
 */
export const AnswerResult = Schema.Union(
  Schema.TaggedStruct("Answered", {
    answer: Answer,
    edited: Schema.optionalWith(Schema.Literal(true), { exact: true }),
  }),
  Schema.TaggedStruct("InvalidEdit", { issues: Schema.Array(EditIssue) }),
  Schema.TaggedStruct("UnknownConfirmation", {}),
  Schema.TaggedStruct("OtherWindow", {}),
  Schema.TaggedStruct("Mismatch", {}),
);
export type AnswerResult = typeof AnswerResult.Type;

/**
 * The tags of {@link AnswerResult}: a reply that bears one is a confirmation's answer.
 *
 * @example
 * ```ts
 * ANSWER_TAGS.has("OtherWindow"); // true
 * ANSWER_TAGS.has("NotHolder"); // false
 * ```
 */
export const ANSWER_TAGS: ReadonlySet<string> = new Set(
  AnswerResult.members.flatMap((member) =>
    SchemaAST.getPropertySignatures(member.ast).flatMap((field) =>
      field.name === "_tag" && SchemaAST.isLiteral(field.type) ? [String(field.type.literal)] : [],
    ),
  ),
);
