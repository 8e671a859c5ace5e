/** What every event of the log is built on: its common fields, and a count that is never negative. */
import { Schema } from "effect";

/** A whole number of zero or more: a turn, a step, a count. */
export const Int = Schema.Int.pipe(Schema.nonNegative());

/** Fields every event has: its place in the stream, when, and which turn (0 outside any turn). */
export const base = { seq: Schema.Int.pipe(Schema.positive()), at: Schema.Number, turn: Int };
