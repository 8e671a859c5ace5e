/**
 * Where a client that reconnects resumes a window's log. Each event goes out
 * with an id naming its seq and the log's epoch (which log it is: a memory
 * store's log after a restart, or a log dropped and begun again, is another
 * epoch). A client that names a point the log does not have starts over.
 */

/** A point in a window's log, as a client names it. */
export interface ResumePoint {
  readonly seq: number;
  /** The log's epoch when the client saw that seq; none from a client that sent a bare seq. */
  readonly epoch?: string;
}

/** Where to send from: after `fromSeq`, and whether the client must first forget what it has. */
export interface Resume {
  readonly fromSeq: number;
  readonly startOver: boolean;
}

/** An id: the seq, then `.` and the epoch when the log has one. */
export const EVENT_ID_PATTERN = /^(\d{1,15})(?:\.([0-9a-z]{1,16}))?$/;

/** The epoch of a log whose first event was stored at `at` (ms): base 36. */
export const epochOf = (at: number): string =>
  Math.floor(Math.abs(Number.isFinite(at) ? at : 0)).toString(36);

/** The id an event is sent with. */
export const eventIdOf = (seq: number, epoch: string | undefined): string =>
  epoch === undefined ? String(seq) : `${seq}.${epoch}`;

/** The point an id names; `undefined` for one that is not an id. */
export const resumePointOf = (id: string): ResumePoint | undefined => {
  const match = EVENT_ID_PATTERN.exec(id);
  if (match === null) return undefined;
  const seq = Number(match[1]);
  return match[2] === undefined ? { seq } : { seq, epoch: match[2] };
};

/**
 * Where a client resumes: after its point when the log has it, else from the
 * start, told to forget what it has (a point past the log's end, or of
 * another epoch).
 *
 * @example
 * ```ts
 * resume({ seq: 7, epoch: "k3" }, { lastSeq: 9, epoch: "k3" }); // { fromSeq: 7, startOver: false }
 * resume({ seq: 7, epoch: "k3" }, { lastSeq: 2, epoch: "m1" }); // { fromSeq: 0, startOver: true }
 * ```
 */
export const resume = (
  point: ResumePoint | undefined,
  log: { readonly lastSeq: number; readonly epoch: string | undefined },
): Resume => {
  if (point === undefined || point.seq === 0) return { fromSeq: 0, startOver: false };
  const otherEpoch =
    point.epoch !== undefined && log.epoch !== undefined && point.epoch !== log.epoch;
  if (point.seq > log.lastSeq || otherEpoch) return { fromSeq: 0, startOver: true };
  return { fromSeq: point.seq, startOver: false };
};
