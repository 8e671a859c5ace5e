/**
 * How the durable stores turn events into rows and rows back into events,
 * shared by `sqliteStore` and `postgresStore` (no peer of its own).
 */
import { Schema, SchemaAST } from "effect";
import { InvariantBroken } from "../../runtime/errors.ts";
import { LogEvent, type NewEvent } from "../../runtime/log/events.ts";

// Made once: building a parser per call would cost more than the parse.
const encode = Schema.encodeSync(LogEvent);
const decode = Schema.decodeUnknownSync(LogEvent);

/** The types this code knows: a plain set, as a schema check per row would add ~1 µs an event to a rebuild. */
const knownTags: ReadonlySet<unknown> = new Set(
  LogEvent.members.map((member) => {
    const tag = member.fields._tag.ast;
    if (tag._tag !== "PropertySignatureDeclaration" || !SchemaAST.isLiteral(tag.type)) {
      throw new InvariantBroken({
        where: "eventCodec",
        reason: "a LogEvent member has no literal _tag",
      });
    }
    return tag.type.literal;
  }),
);

/** One event as a durable store writes it: `type` and `at` for looking with SQL, `data` the event's JSON. */
export interface StoredRow {
  readonly seq: number;
  readonly at: number;
  readonly type: string;
  readonly data: string;
}

/**
 * `events` numbered from `expectedSeq + 1`, each encoded with `LogEvent` to
 * JSON and decoded back, so that what is acknowledged (`added`) is what a
 * read will give. A NaN or an Infinity (the schema lets them through)
 * becomes null in JSON: refused here (a `ParseError`), it cannot make the
 * stream unreadable later. Throws before any row is written.
 */
export const toRows = (
  events: ReadonlyArray<NewEvent>,
  expectedSeq: number,
): { readonly added: ReadonlyArray<LogEvent>; readonly rows: ReadonlyArray<StoredRow> } => {
  const added: LogEvent[] = [];
  const rows = events.map((event, i): StoredRow => {
    const data = JSON.stringify(encode({ ...event, seq: expectedSeq + i + 1 }));
    const stored = decode(JSON.parse(data));
    added.push(stored);
    return { seq: stored.seq, at: stored.at, type: stored._tag, data };
  });
  return { added, rows };
};

/**
 * The event a stored row's parsed JSON holds, or `undefined` when its type
 * is one this code does not know (a newer version's row: skipped, though
 * `lastSeq` counts it). A known type that does not decode throws.
 */
export const fromRow = (json: { readonly _tag?: unknown }): LogEvent | undefined =>
  knownTags.has(json._tag) ? decode(json) : undefined;
