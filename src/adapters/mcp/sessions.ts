/**
 * The table of MCP sessions over Streamable HTTP, and its caps: at most
 * `maxSessions` in all and `maxSessionsPerUser` for one user, those still
 * opening included. At a user's cap the user's least recently used idle
 * session makes way; at the cap of all, a new session is refused. Time is
 * the injected clock's; nothing here does I/O.
 */
import type { Clock } from "../../runtime/ports/clock.ts";

/** The caps and the idle time of a session table. */
export interface SessionLimits {
  readonly maxSessions: number;
  readonly maxSessionsPerUser: number;
  readonly idleTimeoutMs: number;
}

/** How a session is used: the table's bookkeeping. */
export interface Usage<U> {
  readonly user: U;
  /** The session id, once its `initialize` was answered; until then it is opening. */
  id: string | undefined;
  /** When a request last came, or a call last ended. */
  lastSeen: number;
  /** Tool calls in progress. */
  calls: number;
}

/** A session in the table: its usage and what it holds. */
export type Slot<U, T> = Usage<U> & { readonly value: T };

/** What opening one more session comes to. */
export type Admission<U, T> =
  | {
      readonly _tag: "Admitted";
      readonly slot: Slot<U, T>;
      /** The user's session that made way, already out of the table: close it. */
      readonly evicted: Slot<U, T> | undefined;
    }
  /** The user is at its cap and each of its sessions is opening or in a call. */
  | { readonly _tag: "UserFull"; readonly limit: number }
  /** The table is at its cap, and the user's own sessions can't make way. */
  | { readonly _tag: "ServerFull"; readonly limit: number };

/** Opened, and no call in progress: a session that may expire or make way. */
const isIdle = <U>(usage: Usage<U>): boolean => usage.id !== undefined && usage.calls === 0;

/** The sessions of an `mcpHttp` handler; `sameUser` tells whose they are. */
export const sessionTable = <U, T>(
  limits: SessionLimits,
  clock: Clock,
  sameUser: (a: U, b: U) => boolean,
) => {
  const slots = new Set<Slot<U, T>>();
  const byId = new Map<string, Slot<U, T>>();

  const remove = (slot: Slot<U, T>): void => {
    slots.delete(slot);
    if (slot.id !== undefined && byId.get(slot.id) === slot) byId.delete(slot.id);
  };

  /** The user's least recently used idle session, the first opened on a tie. */
  const leastRecentlyUsedIdle = (user: U): { mine: number; lru: Slot<U, T> | undefined } => {
    let mine = 0;
    let lru: Slot<U, T> | undefined;
    for (const slot of slots) {
      if (!sameUser(slot.user, user)) continue;
      mine++;
      if (isIdle(slot) && (lru === undefined || slot.lastSeen < lru.lastSeen)) lru = slot;
    }
    return { mine, lru };
  };

  return {
    /**
     * Takes a place for one more session of `user`, counted from now on (as
     * opening until {@link opened}), or says why there is none. `make` builds
     * what the session holds, given its usage.
     */
    admit: (user: U, make: (usage: Usage<U>) => T): Admission<U, T> => {
      const { mine, lru } = leastRecentlyUsedIdle(user);
      let evicted: Slot<U, T> | undefined;
      if (mine >= limits.maxSessionsPerUser) {
        if (lru === undefined) return { _tag: "UserFull", limit: limits.maxSessionsPerUser };
        evicted = lru;
      }
      if (slots.size - (evicted === undefined ? 0 : 1) >= limits.maxSessions)
        return { _tag: "ServerFull", limit: limits.maxSessions };
      if (evicted !== undefined) remove(evicted);
      const usage: Usage<U> = { user, id: undefined, lastSeen: clock.now(), calls: 0 };
      const slot = Object.assign(usage, { value: make(usage) });
      slots.add(slot);
      return { _tag: "Admitted", slot, evicted };
    },
    /** The session's `initialize` was answered with `id`: it can be found by it. */
    opened: (slot: Slot<U, T>, id: string): void => {
      if (!slots.has(slot)) return;
      slot.id = id;
      byId.set(id, slot);
    },
    /** Takes a session out (ended, closed, or never opened); again is nothing. */
    remove,
    /** The open session with this id. */
    find: (id: string): Slot<U, T> | undefined => byId.get(id),
    /** A request came for the session now. */
    touch: (usage: Usage<U>): void => {
      usage.lastSeen = clock.now();
    },
    /** Runs a tool call of the session, which is busy until it ends. */
    calling: async <R>(usage: Usage<U>, run: () => Promise<R>): Promise<R> => {
      usage.calls++;
      try {
        return await run();
      } finally {
        usage.calls--;
        usage.lastSeen = clock.now();
      }
    },
    /** Takes out, and returns to be closed, the idle sessions unused for `idleTimeoutMs`. */
    expire: (): Array<Slot<U, T>> => {
      const now = clock.now();
      const stale = [...slots].filter(
        (slot) => isIdle(slot) && now - slot.lastSeen >= limits.idleTimeoutMs,
      );
      for (const slot of stale) remove(slot);
      return stale;
    },
    /** Every session, opening ones included. */
    all: (): Array<Slot<U, T>> => [...slots],
    /** How many sessions there are, opening ones included. */
    size: (): number => slots.size,
  };
};

/** A session table, as {@link sessionTable} makes it. */
export type SessionTable<U, T> = ReturnType<typeof sessionTable<U, T>>;
