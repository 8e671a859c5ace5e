/**
 * The running system: one supervised conversation actor per window, one call
 * path for all of them, one event store.
 */

import { randomUUID } from "node:crypto";
import { type Actor, createActor } from "xstate";
import { createCallPath } from "../../runtime/calls/callPath.ts";
import { CONFIRM_TIMEOUT_MS } from "../../runtime/calls/confirmer.ts";
import type { App } from "../../runtime/commands/app.ts";
import type { User } from "../../runtime/commands/origin.ts";
import { defaultUserKey } from "../../runtime/commands/userKey.ts";
import { InvariantBroken } from "../../runtime/errors.ts";
import { memoryStore } from "../../runtime/log/memoryStore.ts";
import { systemClock } from "../../runtime/ports/clock.ts";
import { memoryThreads } from "../../runtime/threads/memoryThreads.ts";
import { WindowOwnerMismatch } from "../assistantWindow.ts";
import type { Reply } from "../cluster/messages.ts";
import { hostRouting } from "../cluster/routing.ts";
import { exportOfOwner } from "../log/userExport.ts";
import { usageOfOwner, usageReading } from "../log/userUsage.ts";
import { STREAM_PREFIX } from "../log/windowLog.ts";
import {
  HostFull,
  MAX_STREAMS_PER_USER,
  MAX_STREAMS_PER_WINDOW,
  streamCounts,
} from "../support/limits.ts";
import { liveQueries } from "../support/liveQueries.ts";
import { hostThreads } from "../threads/hostThreads.ts";
import { openThreads } from "../threads/openThreads.ts";
import { type Bindings, hostSupervisor } from "../turn/machines.ts";
import type { OpenWindow, WindowDeps } from "../window/deps.ts";
import { openWindow } from "../window/window.ts";
import type { Host } from "./hostApi.ts";
import {
  type HostOptions,
  IDLE_WINDOW_MS,
  MAX_RESTARTS,
  MAX_TOKENS_PER_STEP,
  MAX_WINDOWS,
  positive,
  RESTART_WINDOW_MS,
  SHARD_BLOCK,
  SUPERVISOR_SHARDS,
} from "./options.ts";

export { defaultUserKey } from "../../runtime/commands/userKey.ts";
export { ThreadNotFound, WindowOwnerMismatch } from "../assistantWindow.ts";
export type { ConversationUsage, UserUsage } from "../log/userUsage.ts";
export {
  HostFull,
  MAX_STREAMS_PER_USER,
  MAX_STREAMS_PER_WINDOW,
  StreamsRefused,
} from "../support/limits.ts";
export type { Erasure, HostThreads } from "../threads/hostThreads.ts";
export type { Host } from "./hostApi.ts";
export type { HostOptions } from "./options.ts";
export {
  HostConfigError,
  IDLE_WINDOW_MS,
  MAX_RESTARTS,
  MAX_TOKENS_PER_STEP,
  MAX_WINDOWS,
  RESTART_WINDOW_MS,
} from "./options.ts";

const defaultUserName = (user: User): string | undefined => {
  const name = (user as { name?: unknown } | null)?.name;
  return typeof name === "string" ? name : undefined;
};

/**
 * Starts the actor system for an app.
 *
 * @example
 * ```ts
 * import { anthropic } from "elyra-assistant/anthropic";
 * import { sqliteStore } from "elyra-assistant/sqlite";
 *
 * const host = createHost(app, { model: anthropic(), store: sqliteStore("assistant.db") });
 * const w = host.window("client-1", { user });
 * w.events$().subscribe(render);
 * await w.prompt({ text: "Set her credit limit to 50 000", route: "/customers/42" });
 * ```
 */
export const createHost = (app: App, options: HostOptions): Host => {
  const clock = options.clock ?? systemClock;
  const idleWindowMs = positive("idleWindowMs", options.idleWindowMs, IDLE_WINDOW_MS);
  const maxWindows = positive("maxWindows", options.maxWindows, MAX_WINDOWS);
  const maxStreamsPerWindow = positive(
    "maxStreamsPerWindow",
    options.maxStreamsPerWindow,
    MAX_STREAMS_PER_WINDOW,
  );
  const userStreams = streamCounts(
    positive("maxStreamsPerUser", options.maxStreamsPerUser, MAX_STREAMS_PER_USER),
  );
  const store = options.store ?? memoryStore();
  // A store without an index of its own: the host keeps one in memory, of what it wrote; on one
  // that keeps no log after its window closes, the threads are the open windows, scanned.
  const indexing = store.threads !== undefined || store.durable;
  const index =
    store.threads ?? (indexing ? memoryThreads() : openThreads(() => windows.entries(), store));
  const userKey = options.userKey ?? defaultUserKey;
  const path = createCallPath(app, {
    clock,
    // The confirmation machine decides timeouts at 5 minutes; the path's own timer is a backstop.
    confirmTimeoutMs: CONFIRM_TIMEOUT_MS + 1_000,
    ...(options.ids === undefined ? {} : { ids: options.ids }),
    ...(options.confirmIds === undefined ? {} : { confirmIds: options.confirmIds }),
    ...(options.rateLimits === undefined ? {} : { rateLimits: options.rateLimits }),
  });
  const live = liveQueries(app, path.activity$);
  // On a store several hosts share, each window has one writer; the others ask it (decision (aj)).
  const routing =
    store.leases === undefined
      ? undefined
      : hostRouting(
          store.leases,
          options.hostId ?? `host-${randomUUID()}`,
          clock,
          async (request): Promise<Reply> => {
            const known = windows.get(request.clientId);
            return known === undefined ? { _tag: "NotHolder" } : known.window.answer(request);
          },
        );
  const windows = new Map<string, { owner: string; window: OpenWindow }>();
  const reading = usageReading(app, store);
  /** The client ids of `owner`'s windows open here. */
  const openOf = (owner: string) =>
    [...windows].filter(([, w]) => w.owner === owner).map(([clientId]) => clientId);
  /** Windows closing now, by client id: one opened on the same id reads its log after. */
  const closing = new Map<string, Promise<void>>();
  /** The open windows by the key the supervisor knows each by. */
  const keyed = new Map<string, OpenWindow>();
  let opened = 0;
  const bindings: Bindings = new WeakMap();
  const machine = hostSupervisor(path, bindings, (key) => {
    const window = keyed.get(key);
    return window === undefined
      ? Promise.reject(new InvariantBroken({ where: "host", reason: `no window has key ${key}` }))
      : window.supervised.recover();
  });
  /**
   * The supervisors of the windows' conversations: XState copies a parent's
   * children at every spawn and stop, so one supervisor of 10 000 windows
   * spent milliseconds on each. Windows opened one after another share one,
   * `SHARD_BLOCK` of them (keys are numbered as windows open), the next block
   * the next of `SUPERVISOR_SHARDS`: a few hundred windows are one supervisor,
   * not 64 (about 10 KB each), and a supervisor's children are numbered
   * densely. Each is made when its first window opens; all are stopped by `close`.
   */
  const supervisors: Array<Actor<typeof machine> | undefined> = [];
  const supervising = (key: string) => {
    const shard = Math.floor(Number(key) / SHARD_BLOCK) % SUPERVISOR_SHARDS;
    const supervisor = supervisors[shard];
    if (supervisor !== undefined) return supervisor;
    const started = createActor(machine, {
      input: {
        maxRestarts: options.maxRestarts ?? MAX_RESTARTS,
        restartWindowMs: options.restartWindowMs ?? RESTART_WINDOW_MS,
      },
      clock,
      ...(options.inspect === undefined ? {} : { inspect: options.inspect }),
    });
    const windowOf = (key: string) => keyed.get(key)?.supervised;
    started.on("started", ({ window }) => windowOf(window)?.started());
    started.on("crashed", ({ window }) => windowOf(window)?.crashed());
    started.on("failed", ({ window, error, reason }) => windowOf(window)?.failed(error, reason));
    supervisors[shard] = started.start();
    return started;
  };
  const deps: WindowDeps = {
    supervisor: supervising,
    bindings,
    app,
    model: options.model,
    usage: reading,
    ...(options.modelFor === undefined ? {} : { modelFor: options.modelFor }),
    store,
    threads: index,
    indexing,
    ...(routing === undefined ? {} : { routing }),
    clock,
    path,
    maxTokensPerStep: options.maxTokensPerStep ?? MAX_TOKENS_PER_STEP,
    live,
    ...(options.inspect === undefined ? {} : { inspect: options.inspect }),
    ...(options.codeCallDeadlineMs === undefined
      ? {}
      : { codeCallDeadlineMs: options.codeCallDeadlineMs }),
    userName: options.userName ?? defaultUserName,
    userKey,
    maxStreamsPerWindow,
    userStreams,
    onClose: (clientId, window, done) => {
      if (windows.get(clientId)?.window === window) windows.delete(clientId);
      keyed.delete(window.key);
      const after = done.then(() => {
        if (closing.get(clientId) === after) closing.delete(clientId);
      });
      closing.set(clientId, after);
    },
    reopen: (clientId, user) => host.window(clientId, { user }),
    onIdle: () => closeOverCap(),
    onError:
      options.onError ??
      ((error: unknown) => console.error("elyra-assistant: a window failed", error)),
  };
  /** Closes a window no one waits on; a store that fails to drop its log is told to `onError`. */
  const closeQuietly = (window: OpenWindow) =>
    void window
      .close()
      .catch((error: unknown) => deps.onError(error, { clientId: window.clientId }));
  /** Closes up to `count` windows with nothing open, least recently used first. */
  const closeLeastRecentlyUsed = (count: number) => {
    let left = count;
    for (const { window } of windows.values()) {
      if (left <= 0) break;
      if (window.busy()) continue;
      left--;
      closeQuietly(window);
    }
  };
  /** Past `maxWindows`, closes idle windows until it is met (or none is idle). */
  const closeOverCap = () => {
    if (windows.size > maxWindows) closeLeastRecentlyUsed(windows.size - maxWindows);
  };
  /** Closes the windows idle for `idleWindowMs`; runs while windows are open. */
  let sweep: unknown;
  const sweepLater = () => {
    if (sweep !== undefined || windows.size === 0) return;
    sweep = clock.setTimeout(
      () => {
        sweep = undefined;
        const now = clock.now();
        for (const { window } of [...windows.values()])
          if (now - window.lastUsed() >= idleWindowMs && !window.busy()) closeQuietly(window);
        closeOverCap();
        sweepLater();
      },
      Math.min(idleWindowMs, 60_000),
    );
    // A sweep to come does not keep the process alive.
    (sweep as { unref?: () => void } | null)?.unref?.();
  };
  /**
   * Appends by other processes on a shared store reach the open window of
   * their stream: one listener for the host, while windows are open.
   */
  let stopWatching: (() => void) | undefined;
  const watch = () => {
    if (stopWatching !== undefined || store.changes === undefined) return;
    stopWatching = store.changes((change) => {
      if (change._tag === "Resync") {
        for (const { window } of windows.values()) window.catchUp();
        return;
      }
      if (!change.stream.startsWith(STREAM_PREFIX)) return;
      windows.get(change.stream.slice(STREAM_PREFIX.length))?.window.catchUp(change.seq);
    });
  };
  /** Closes an open window, its turn stopped first (one another host runs is stopped there). */
  const stopAndClose = async (window: OpenWindow) => {
    if (window.running()) window.stop();
    await window.close();
  };
  const threads = hostThreads({
    store,
    index,
    clock,
    userKey,
    window: (id, user) => host.window(id, { user }) as OpenWindow,
    openOf,
    closeOpen: async (id) => {
      const known = windows.get(id);
      if (known !== undefined) await stopAndClose(known.window);
    },
  });
  const host: Host = {
    app,
    path,
    live,
    threads,
    erase: threads.erase,
    window: (clientId, { user }) => {
      const owner = userKey(user);
      const known = windows.get(clientId);
      if (known !== undefined) {
        if (known.owner !== owner) throw new WindowOwnerMismatch({ clientId });
        if (!known.window.failed()) {
          known.window.setUser(user);
          known.window.touch();
          // Most recently used last: the map's order is the order windows are closed in.
          windows.delete(clientId);
          windows.set(clientId, known);
          return known.window;
        }
        // Given up after repeated crashes: opening it again starts a fresh actor on the same log.
        windows.delete(clientId);
        keyed.delete(known.window.key);
      }
      // Full: idle windows make room; none idle, a new one is refused rather than kept past the cap.
      if (windows.size >= maxWindows) closeLeastRecentlyUsed(windows.size - maxWindows + 1);
      if (windows.size >= maxWindows) throw new HostFull({ maxWindows });
      const window = openWindow(deps, clientId, String(opened++), user, closing.get(clientId));
      windows.set(clientId, { owner, window });
      keyed.set(window.key, window);
      supervising(window.key).send({ type: "OPEN", window: window.key });
      watch();
      closeOverCap();
      sweepLater();
      return window;
    },
    closeWindow: async (clientId, { user }) => {
      const known = windows.get(clientId);
      if (known === undefined) return;
      if (known.owner !== userKey(user)) throw new WindowOwnerMismatch({ clientId });
      await stopAndClose(known.window);
    },
    openWindows: () => windows.size,
    usage: ({ user, since }) => {
      const owner = userKey(user);
      const from = since === undefined ? 0 : typeof since === "number" ? since : since.getTime();
      return usageOfOwner(reading, owner, from, openOf(owner));
    },
    export: ({ user }) => {
      const owner = userKey(user);
      return exportOfOwner(store, owner, clock.now(), openOf(owner));
    },
    close: async () => {
      stopWatching?.();
      stopWatching = undefined;
      if (sweep !== undefined) clock.clearTimeout(sweep);
      sweep = undefined;
      await Promise.all([...windows.values()].map((w) => w.window.close()));
      // Its leases are free at once: another host need not wait for them to expire.
      await routing?.leave().catch(() => undefined);
      // Their pending timers (crashes still counted) go with them.
      for (const supervisor of supervisors.splice(0)) supervisor?.stop();
    },
  };
  return host;
};
