/**
 * How a host on a shared store reaches the others (decision (aj)): it joins
 * the store's leases (its heartbeat and its messages), asks the host holding
 * a window's lease to do what a user asked here, and answers what others ask
 * of the windows it writes.
 */
import type { WriterLeases } from "../../runtime/log/writerLeases.ts";
import type { Clock } from "../../runtime/ports/clock.ts";
import { hostMessageOf, type Reply, type Request } from "./messages.ts";

/** What a request is before it is addressed: the asker adds `from` and `id`. */
export type Unaddressed<R extends Request = Request> = R extends Request
  ? Omit<R, "from" | "id">
  : never;

/** A host's side of the conversation with the hosts it shares a store with. */
export interface Routing {
  readonly hostId: string;
  readonly leases: WriterLeases;
  /**
   * Asks `to` (a window's writer) and resolves with its reply; `NotHolder`
   * when none came within the lease time (the holder died, or never got it:
   * by then a dead holder's lease has lapsed, and the asker takes it over).
   */
  readonly ask: (to: string, request: Unaddressed) => Promise<Reply>;
  /** Joins the store's hosts, once; until then this host gets no message. */
  readonly join: () => Promise<void>;
  /** Leaves: the heartbeat stops and the leases this host holds are free at once. */
  readonly leave: () => Promise<void>;
}

/**
 * The routing of a host: `answer` is what this host does with a request of
 * another (for a window it writes), resolving with the reply to send back.
 *
 * @example
 * ```ts
 * const routing = hostRouting(store.leases, "host-a", clock, (request) => answerFor(request));
 * await routing.join();
 * const reply = await routing.ask("host-b", { _tag: "Stop", clientId: "w1", owner: "ada" });
 * ```
 */
export const hostRouting = (
  leases: WriterLeases,
  hostId: string,
  clock: Clock,
  answer: (request: Request) => Promise<Reply>,
): Routing => {
  let asked = 0;
  const waiting = new Map<number, (reply: Reply) => void>();
  let joined: Promise<{ leave: () => Promise<void> }> | undefined;
  let left = false;

  const onMessage = (raw: unknown) => {
    const message = hostMessageOf(raw);
    if (message === undefined || left) return;
    if (message._tag === "Reply") {
      waiting.get(message.id)?.(message.result as Reply);
      return;
    }
    void answer(message)
      .catch((): Reply => ({ _tag: "NotHolder" }))
      .then((result) =>
        leases.send(message.from, { _tag: "Reply", id: message.id, result }).catch(() => undefined),
      );
  };

  const join = () => {
    joined ??= leases.join(hostId, onMessage).catch((error: unknown) => {
      joined = undefined;
      throw error;
    });
    return joined.then(() => undefined);
  };

  return {
    hostId,
    leases,
    join,
    ask: async (to, request) => {
      await join();
      const id = ++asked;
      return new Promise<Reply>((resolve) => {
        const timer = clock.setTimeout(() => settle({ _tag: "NotHolder" }), leases.leaseMs);
        const settle = (reply: Reply) => {
          if (!waiting.delete(id)) return;
          clock.clearTimeout(timer);
          resolve(reply);
        };
        waiting.set(id, settle);
        leases
          .send(to, { ...request, from: hostId, id })
          .catch(() => settle({ _tag: "NotHolder" }));
      });
    },
    leave: async () => {
      left = true;
      for (const settle of [...waiting.values()]) settle({ _tag: "NotHolder" });
      const membership = await joined?.catch(() => undefined);
      await membership?.leave();
    },
  };
};
