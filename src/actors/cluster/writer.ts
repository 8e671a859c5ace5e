/**
 * A window's side of its lease (decision (aj)): on a store several hosts
 * share, what the user asks is done by the host that holds the window's
 * lease. This host takes the lease when it is free (reading first what other
 * hosts wrote, and recording as interrupted a turn the log shows running,
 * which no live host can be running then), or asks the holder; and it gives
 * the lease back once the window's turn has ended and nothing is being
 * written. On a store without leases everything is done here, as before.
 */
import type { Writer } from "../../runtime/log/writerLeases.ts";
import type { Routing } from "./routing.ts";

/** What changed of this host's lease on the window. */
export type LeaseChange = "LEASE_TAKEN" | "LEASE_RELEASED" | "LEASE_LOST";

/** A remote's answer meaning "that host no longer writes the window": take the lease, or ask again. */
export const TRY_AGAIN: unique symbol = Symbol("tryAgain");

/** What `asHolder` gives when this host does not hold the window's lease. */
export const NOT_HELD: unique symbol = Symbol("notHeld");

/** What `take` gives when the store says the lease this host remembered is gone. */
const LOST: unique symbol = Symbol("lost");

/** How many times an op asks again before it gives up. */
const ATTEMPTS = 4;

export interface WindowWriter {
  /** Whether the store has leases (several hosts may share it). */
  readonly leased: boolean;
  /** The lease this host's appends are made under: none when not held (or no leases). */
  readonly current: () => Writer | undefined;
  /** Whether this host holds the window's lease now. */
  readonly holds: () => boolean;
  /**
   * Called as a catch-up of the log starts; what it gives says, once that
   * catch-up read events this host did not write, whether another host took
   * the window over: so if this host held the lease throughout and had read
   * the log under it before (its taking's catch-up done); before that, they
   * may be events stored before it took the lease. Without the lease, so if
   * the window still runs something.
   */
  readonly takeover: () => () => boolean;
  /**
   * Does `local` here as the window's writer, taking the lease if it is
   * free; when another live host holds it, `remote(holder)` asks it there.
   * A remote that says {@link TRY_AGAIN} (the lease moved) is tried again,
   * and after a few tries `gaveUp` answers.
   */
  readonly run: <T>(
    local: () => Promise<T>,
    remote: (holder: string) => Promise<T | typeof TRY_AGAIN>,
    gaveUp: () => T,
  ) => Promise<T>;
  /** Does `body` as the writer if the lease is free (or its holder died); nothing if it is held. */
  readonly ifFree: (body: () => Promise<void>) => Promise<void>;
  /**
   * Does `body` as the holder, for another host's request, once a taking in
   * flight has read the log: the lease is kept until it settles.
   * {@link NOT_HELD} (and `body` not run) when this host does not hold it.
   */
  readonly asHolder: <T>(body: () => Promise<T>) => Promise<T | typeof NOT_HELD>;
  /** Gives the lease back once the window is idle and its log written: call after each write. */
  readonly settle: () => void;
  /** The store refused an append under the lease (`LeaseLost`): it is forgotten. */
  readonly lost: () => void;
}

/** The writer of every window on a store without leases: all is done here. */
export const UNLEASED: WindowWriter = {
  leased: false,
  current: () => undefined,
  holds: () => false,
  takeover: () => () => false,
  run: (local) => local(),
  ifFree: (body) => body(),
  asHolder: async () => NOT_HELD,
  settle: () => {},
  lost: () => {},
};

/**
 * The writer of one window.
 *
 * @example
 * ```ts
 * const writer = windowWriter({ routing, stream, logIdle, idle, onTaken });
 * const end = await writer.run(() => promptHere(input), (holder) => askHolder(holder, input), refuse);
 * ```
 */
export const windowWriter = (deps: {
  readonly routing: Routing | undefined;
  readonly stream: string;
  /** Resolves once every append queued so far has settled. */
  readonly logIdle: () => Promise<void>;
  /** Whether the window has nothing running: no turn, no question waiting. */
  readonly idle: () => boolean;
  /**
   * The lease was taken anew: read what others wrote (up to `lastSeq`, the
   * stream's last as the store told it with the lease, when it does), record
   * an orphaned turn interrupted.
   */
  readonly onTaken: (writer: Writer, lastSeq: number | undefined) => Promise<void>;
  /**
   * The store says this host no longer holds the lease it remembers (it was
   * paused or cut off past it, and another host took the window over): what
   * runs here for the window is ended, unwritten. Resolves once the window
   * is ready again (rebuilt from the log).
   */
  readonly onLost: () => Promise<void>;
  /** Told as this host takes the lease, gives it back, or learns it lost it: the window machine's lease region. */
  readonly leaseChanged?: (event: LeaseChange) => void;
}): WindowWriter => {
  const routing = deps.routing;
  // On a store of one process, one writer serves every window: idle windows hold no closures.
  if (routing === undefined) return UNLEASED;
  let writer: Writer | undefined;
  /** The lease under which the log was last read whole (its taking's catch-up). */
  let readUnder: Writer | undefined;
  /** Ops running now (a prompt runs until its turn ends): the lease is kept while any does. */
  let ops = 0;
  /** Takings and givings-back, one at a time: a give-back never cuts an op that took the lease. */
  let chain: Promise<unknown> = Promise.resolve();
  const serial = <T>(body: () => Promise<T>): Promise<T> => {
    const next = chain.then(body);
    chain = next.catch(() => undefined);
    return next;
  };

  const take = () =>
    serial(async (): Promise<{ readonly holder: string } | typeof LOST | undefined> => {
      if (writer !== undefined) {
        // The lease this host remembers is asked of the store, not trusted: a host paused past
        // it learns here that another took the window over, before it acts on its behalf.
        const held = writer;
        const again = await routing.leases.acquire(deps.stream, routing.hostId);
        if (again._tag === "Taken" && again.token === held.token) return undefined;
        writer = undefined;
        deps.leaseChanged?.("LEASE_LOST");
        if (again._tag === "Taken")
          await routing.leases
            .release(deps.stream, { holder: routing.hostId, token: again.token })
            .catch(() => undefined);
        // Told outside the chain: rebuilding the window may take the lease again.
        return LOST;
      }
      await routing.join();
      const taking = await routing.leases.acquire(deps.stream, routing.hostId);
      if (taking._tag === "Held") return { holder: taking.holder };
      const taken = { holder: routing.hostId, token: taking.token };
      writer = taken;
      try {
        await deps.onTaken(taken, taking.lastSeq);
        readUnder = taken;
        deps.leaseChanged?.("LEASE_TAKEN");
      } catch (error) {
        // Not caught up, so not the writer: given back, and the op fails with the reason.
        writer = undefined;
        await routing.leases.release(deps.stream, taken).catch(() => undefined);
        throw error;
      }
      return undefined;
    });

  const settle = () => {
    if (writer === undefined || ops > 0) return;
    void serial(async () => {
      await deps.logIdle();
      const held = writer;
      if (held === undefined || ops > 0 || !deps.idle()) return;
      writer = undefined;
      deps.leaseChanged?.("LEASE_RELEASED");
      await routing.leases.release(deps.stream, held).catch(() => {
        // Not given back (its answer lost, a killed backend): the store may still have this host
        // as the holder, alive, so it still writes the window for the hosts that ask it, and
        // gives the lease back after their next op. A later taking asks the store whether it holds.
        if (writer !== undefined) return;
        writer = held;
        deps.leaseChanged?.("LEASE_TAKEN");
      });
    });
  };

  const run: WindowWriter["run"] = async (local, remote, gaveUp) => {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      ops++;
      try {
        const held = await take();
        if (held === LOST) {
          await deps.onLost();
          continue;
        }
        if (held === undefined) return await local();
        const answer = await remote(held.holder);
        if (answer !== TRY_AGAIN) return answer;
      } finally {
        ops--;
        settle();
      }
    }
    return gaveUp();
  };

  return {
    leased: true,
    current: () => writer,
    holds: () => writer !== undefined,
    takeover: () => {
      const under = writer !== undefined && writer === readUnder ? writer : undefined;
      return () => (under !== undefined ? writer === under : writer === undefined && !deps.idle());
    },
    run,
    ifFree: (body) =>
      run(
        body,
        async () => undefined,
        () => undefined,
      ),
    asHolder: async (body) => {
      if (writer === undefined) return NOT_HELD;
      ops++;
      try {
        // A taking in flight first reads what others wrote and ends an orphaned turn.
        await chain;
        if (writer === undefined) return NOT_HELD;
        return await body();
      } finally {
        ops--;
        settle();
      }
    },
    settle,
    lost: () => {
      if (writer !== undefined) deps.leaseChanged?.("LEASE_LOST");
      writer = undefined;
    },
  };
};
