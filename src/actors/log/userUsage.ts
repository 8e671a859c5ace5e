/**
 * What a user's conversations used: each user has a stream of their own
 * (`owner/<userKey>`) that names their conversations, written once per
 * conversation as its log first names its owner; `host.usage` reads it,
 * then each conversation's log a page at a time, and adds up the spending.
 */

import { type App, DEFAULT_MODEL } from "../../runtime/commands/app.ts";
import type { EventStore } from "../../runtime/log/eventStore.ts";
import { AppendConflict } from "../../runtime/log/eventStore.ts";
import type { LogEvent } from "../../runtime/log/events.ts";
import type { Clock } from "../../runtime/ports/clock.ts";
import { DEFAULT_PRICES, type PriceTable } from "../../runtime/usage/prices.ts";
import {
  addTallies,
  EMPTY_TALLY,
  NO_SPENDING,
  type Spending,
  spendingOf,
  type UsageTally,
} from "../../runtime/usage/spending.ts";
import { streamOf } from "./windowLog.ts";

/** Where the stream of a user's own events lives, by the host's `userKey` of them. */
export const OWNER_PREFIX = "owner/";

/** The stream naming the conversations of the user with key `owner`. */
export const ownerStream = (owner: string): string => `${OWNER_PREFIX}${owner}`;

/** How many appends a conversation's entry is tried with, when other conversations of the user are written at once. */
const CONFLICTS_TRIED = 8;

/** How many events a read takes at a time: the memory a fold holds is a page's, whatever the log's length. */
export const USAGE_PAGE = 500;

/**
 * Records that window `clientId`'s conversation belongs to `owner`: appended
 * to the owner's stream, and tried again where the stream is when another
 * of their conversations appended first. Not fenced: it starts nothing and no window
 * leases it; a second entry for one conversation (two hosts racing at its
 * first event) is read as one.
 */
export const recordOwnership = async (
  store: EventStore,
  clock: Clock,
  owner: string,
  clientId: string,
): Promise<void> => {
  const stream = ownerStream(owner);
  // Tried as the stream's first event: a user's first conversation costs one round trip, a later
  // one two (the conflict tells where the stream is), never a read.
  let at = 0;
  for (let tried = 1; ; tried++) {
    try {
      await store.append(
        stream,
        [{ _tag: "ConversationOwned", at: clock.now(), turn: 0, clientId }],
        at,
      );
      return;
    } catch (error) {
      if (!(error instanceof AppendConflict) || tried >= CONFLICTS_TRIED) throw error;
      at = error.actualSeq;
    }
  }
};

/** The events of `stream` in pages of {@link USAGE_PAGE}, up to its last seq when read. */
export async function* pages(store: EventStore, stream: string) {
  const last = await store.lastSeq(stream);
  for (let from = 0; from < last; from += USAGE_PAGE) {
    const page = await store.read(stream, from, Math.min(from + USAGE_PAGE, last));
    if (page.length > 0) yield page;
  }
}

/**
 * What one of a user's conversations used, by the client id of its window:
 * its totals, its last request's context and when its steps finished (its
 * turns one by one are `window.spending()`'s), a few hundred bytes each.
 */
export interface ConversationUsage extends Omit<Spending, "turns"> {
  readonly clientId: string;
}

/**
 * What a user used: all of it, and conversation by conversation (those with
 * a step since the asked time), most recent last.
 *
 * @example
 * ```ts
 * const { total, conversations } = await host.usage({ user, since: Date.now() - 30 * 86_400_000 });
 * console.log(`$${total.dollars.toFixed(2)} over ${conversations.length} conversations this month`);
 * ```
 */
export interface UserUsage {
  readonly total: UsageTally;
  readonly conversations: ReadonlyArray<ConversationUsage>;
}

/** How usage is read: from which store, at which prices, priced by which model when a step names none. */
export interface UsageReading {
  readonly store: EventStore;
  readonly prices: PriceTable;
  readonly fallbackModel: string;
}

/**
 * How an app's usage is read from `store`: at its `assistant.prices` over
 * Anthropic's list prices, a step that names no model priced as its
 * `assistant.model`.
 */
export const usageReading = (app: App, store: EventStore): UsageReading => ({
  store,
  prices: { ...DEFAULT_PRICES, ...app.assistant?.prices },
  fallbackModel: app.assistant?.model ?? DEFAULT_MODEL,
});

/**
 * The client ids of what may be `owner`'s conversations, each once: those
 * their stream names, in the order first written, and, on a store that
 * keeps no log after a window closes (and names no owner in it), `open`,
 * their windows open on this host. A caller keeps only those whose log
 * {@link namesOwner}.
 */
export const conversationsOf = async (
  store: EventStore,
  owner: string,
  open: Iterable<string>,
): Promise<Set<string>> => {
  const ids = new Set<string>();
  for await (const page of pages(store, ownerStream(owner)))
    for (const event of page) if (event._tag === "ConversationOwned") ids.add(event.clientId);
  if (!store.durable) for (const clientId of open) ids.add(clientId);
  return ids;
};

/** The owner a page of a log names, or `named` (what the pages before it named) when it names none. */
export const ownerNamed = (page: ReadonlyArray<LogEvent>, named: string | undefined) =>
  page.findLast((event) => event._tag === "WindowOwned")?.owner ?? named;

/**
 * Whether a log that names `named` is `owner`'s: on a durable store it must
 * name them (an entry a host wrote for a window another user's log then
 * refused is not theirs); a memory store's names no one.
 */
export const namesOwner = (store: EventStore, named: string | undefined, owner: string) =>
  !store.durable || named === owner;

/** What one conversation's log used since `since`, and the owner it names (if it names one). */
const foldLog = async (
  reading: UsageReading,
  clientId: string,
  since: number,
): Promise<{ readonly spent: Spending; readonly owner: string | undefined }> => {
  const projection = spendingOf({
    prices: reading.prices,
    fallbackModel: reading.fallbackModel,
    since,
  });
  let spent = NO_SPENDING;
  let owner: string | undefined;
  for await (const page of pages(reading.store, streamOf(clientId))) {
    spent = projection.fold(page, spent);
    owner = ownerNamed(page, owner);
  }
  return { spent, owner };
};

/** What one conversation's log used since `since` (all time by default). */
export const spendingOfLog = async (
  reading: UsageReading,
  clientId: string,
  since = 0,
): Promise<Spending> => (await foldLog(reading, clientId, since)).spent;

/**
 * What `owner` used since `since` (ms since the epoch): the conversations
 * their stream names whose log names them too (an entry a host wrote for a
 * window another user's log then refused counts nothing), and, on a store
 * that keeps no log after a window closes (and names no owner in it), `open`:
 * the windows open on this host that are theirs.
 */
export const usageOfOwner = async (
  reading: UsageReading,
  owner: string,
  since: number,
  open: Iterable<string>,
): Promise<UserUsage> => {
  if (Number.isNaN(since)) throw new RangeError("since: not a time (an invalid Date, or NaN)");
  const ids = await conversationsOf(reading.store, owner, open);
  const conversations: ConversationUsage[] = [];
  let total = EMPTY_TALLY;
  for (const clientId of ids) {
    const { spent, owner: named } = await foldLog(reading, clientId, since);
    if (spent.total.steps === 0 || !namesOwner(reading.store, named, owner)) continue;
    const { turns: _turns, ...kept } = spent;
    conversations.push({ clientId, ...kept });
    total = addTallies(total, spent.total);
  }
  conversations.sort((a, b) => a.lastAt - b.lastAt);
  return { total, conversations };
};
