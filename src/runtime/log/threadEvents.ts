/**
 * The events of a thread's own life, beside its turns: named by its owner,
 * archived and brought back, and the tombstone an erased log keeps instead
 * of its events.
 */
import { Schema } from "effect";
import { base } from "./eventBase.ts";

/**
 * The longest title a thread keeps, in characters: a longer one is clipped.
 *
 * @example
 * ```ts
 * titleInput.maxLength = MAX_TITLE_CHARS;
 * ```
 */
export const MAX_TITLE_CHARS = 200;

/**
 * The owner named the thread `title` (at most {@link MAX_TITLE_CHARS}
 * characters): its title from then on, in place of its first prompt's.
 *
 * @example
 * ```ts
 * const renamed: typeof ThreadRenamed.Type = { _tag: "ThreadRenamed", seq: 9, at: Date.now(), turn: 2, title: "Ada's credit limit" };
 * ```
 */
export const ThreadRenamed = Schema.TaggedStruct("ThreadRenamed", {
  ...base,
  title: Schema.String.pipe(Schema.maxLength(MAX_TITLE_CHARS)),
});

/**
 * The owner archived the thread (`archived: true`) or brought it back
 * (`false`): an archived thread is listed apart, and still opens.
 *
 * @example
 * ```ts
 * const archived: typeof ThreadArchived.Type = { _tag: "ThreadArchived", seq: 10, at: Date.now(), turn: 2, archived: true };
 * ```
 */
export const ThreadArchived = Schema.TaggedStruct("ThreadArchived", {
  ...base,
  archived: Schema.Boolean,
});

/**
 * What an erased log keeps: the stream's only event, one seq past the last
 * event it had, saying that it was erased and when (`at`). A log that holds
 * it opens to nothing: its thread is gone.
 *
 * @example
 * ```ts
 * const [tombstone] = await store.read("conversation/t-1", 0);
 * if (tombstone?._tag === "Erased") console.log(`erased at ${new Date(tombstone.at).toISOString()}`);
 * ```
 */
export const Erased = Schema.TaggedStruct("Erased", { ...base });
