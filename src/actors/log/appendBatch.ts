/**
 * A window log's appends in batches (decision (an)): the events appended
 * while one store append is in flight wait together, and go in the next.
 */
import type { LogEvent, NewEvent } from "../../runtime/log/events.ts";

/** At most this many events are stored in one call to the store. */
export const APPEND_BATCH = 64;

/** Events appended together: stored by one call to the store, once the queue before it is done. */
export interface Batch {
  readonly events: NewEvent[];
  /** The queue as it was once this batch was queued: an event joins only while nothing came after. */
  queued: Promise<unknown>;
  written: Promise<ReadonlyArray<LogEvent>>;
}

/**
 * The event at `index` of a batch once stored. Like the batch's own promise,
 * a refusal of it is not unhandled when its caller does not wait for it.
 */
export const eventAt = (
  written: Promise<ReadonlyArray<LogEvent>>,
  index: number,
): Promise<LogEvent> => {
  const event = written.then((stored) => stored[index] as LogEvent);
  event.catch(() => undefined);
  return event;
};
