/**
 * The events of a user's own stream (`owner/<userKey>`), beside the streams
 * of their conversations: which conversations are theirs, so that what a
 * user used can be added up without reading anyone else's.
 */
import { Schema } from "effect";
import { base } from "./eventBase.ts";

/**
 * The conversation of window `clientId` belongs to the stream's user:
 * written once, when the conversation's log first names its owner.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * const theirs = (await store.read("owner/ada", 0)).filter(Schema.is(ConversationOwned)).map((e) => e.clientId);
 * ```
 */
export const ConversationOwned = Schema.TaggedStruct("ConversationOwned", {
  ...base,
  clientId: Schema.String,
});
