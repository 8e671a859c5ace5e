/**
 * The live registry: the queries a window's screen (or an agent) keeps open,
 * each a `live` command run again whenever a write changes its resource. The
 * window note reads what is open here; nothing else of a result is kept.
 */

import { Data, Either, Schema } from "effect";
import {
  filter,
  map,
  Observable,
  type ObservableInput,
  of,
  Subject,
  startWith,
  switchMap,
  takeUntil,
} from "rxjs";
import type { Activity } from "../../runtime/calls/audit.ts";
import { resourceOf } from "../../runtime/commands/abilities.ts";
import { type App, userHas } from "../../runtime/commands/app.ts";
import type { AnyCommand } from "../../runtime/commands/command.ts";
import { issueLines, issuesOf } from "../../runtime/commands/issues.ts";
import type { RunOrigin, User } from "../../runtime/commands/origin.ts";
import { jsonTextOf } from "../../runtime/json.ts";
import type { LiveResult } from "../../runtime/prompt/liveResult.ts";
import type { NoteQuery, QueryOrigin } from "../../runtime/prompt/windowNote.ts";

export type { LiveResult };

/**
 * A live query that cannot be opened: the observable errors with it before
 * any result. `reason` says why: no such command, not a `live` one, one that
 * takes no ability, an ability the user does not have, arguments that do
 * not decode, more than {@link MAX_LIVE_QUERIES} open, or the window closed.
 *
 * @example
 * ```ts
 * const w = host.window("tab-1", { user });
 * w.live("invoices_index", { overdue: true }).subscribe({
 *   next: (result) => showInvoices(result),
 *   error: (error) => {
 *     if (error instanceof LiveQueryRefused) showNotice(error.detail); // e.g. reason "notAllowed"
 *   },
 * });
 * ```
 */
export class LiveQueryRefused extends Data.TaggedError("LiveQueryRefused")<{
  readonly reason:
    | "unknownCommand"
    | "notLive"
    | "noAbility"
    | "notAllowed"
    | "badArguments"
    | "tooMany"
    | "closed";
  readonly detail: string;
}> {
  override get message(): string {
    return `live query refused: ${this.detail}`;
  }
}

/**
 * Live queries one window may keep open at once: 64. One more is refused
 * with {@link LiveQueryRefused} (reason `tooMany`); unsubscribing makes room.
 *
 * @example
 * ```ts
 * const w = host.window("tab-1", { user });
 * // A dashboard opens one query per panel, up to the cap.
 * const feeds = panels.slice(0, MAX_LIVE_QUERIES).map((panel) => w.live(panel.command, panel.args));
 * ```
 */
export const MAX_LIVE_QUERIES = 64;

/** Who opens a query: the window, the signed-in user, and from where. */
export interface LiveClient {
  readonly clientId: string;
  readonly user: User;
  /** The app's own screen (the default), or an agent over MCP with its client name. */
  readonly origin?: QueryOrigin;
  readonly agent?: string;
  /** The user as they are now, asked before each run (a window's user can change); `user` unless given. */
  readonly currentUser?: () => User;
}

/**
 * The live queries of every window of a host (`host.live`): what each
 * window's screen keeps open, re-run after each write through the call path
 * that changes its resource. Tell it with `invalidate` when the app writes
 * outside the call path, so open screens show the change.
 */
export interface LiveRegistry {
  /**
   * Opens a live query: the command's result now, then again after each write
   * that changes its resource. Unsubscribing ends it. Errors with
   * {@link LiveQueryRefused} when it cannot be opened.
   */
  readonly subscribe: (
    client: LiveClient,
    command: string,
    args: unknown,
  ) => Observable<LiveResult>;
  /** The queries a window has open, oldest first. */
  readonly queries: (clientId: string) => ReadonlyArray<NoteQuery>;
  /** Tells that resources changed outside the call path (the app's own writes). */
  readonly invalidate: (resources: ReadonlyArray<string>) => void;
  /** Ends every query of a window (it closed). */
  readonly close: (clientId: string) => void;
}

/** Whether a write of `written` changes `resource`: the same resource or one below it. */
export const changes = (written: string, resource: string): boolean =>
  written === resource || resource.startsWith(`${written}.`);

/**
 * The result of `run` now, and again after each write that changes
 * `resource`; a newer run replaces one still in flight.
 */
export const rerunOnWrites = <R>(
  writes$: Observable<ReadonlyArray<string>>,
  resource: string,
  run: () => ObservableInput<R>,
): Observable<R> =>
  writes$.pipe(
    filter((written) => written.some((w) => changes(w, resource))),
    map(() => undefined),
    startWith(undefined),
    switchMap(run),
  );

/** One run of a live command, aborted when a newer run or an unsubscribe replaces it. */
const runOnce = (command: AnyCommand, args: unknown, user: User, origin: RunOrigin) =>
  new Observable<LiveResult>((subscriber) => {
    const controller = new AbortController();
    Promise.resolve()
      .then(() => command.run(args, { user, origin, signal: controller.signal }))
      .then(
        (value) => {
          const encoded = command.encodeResult(value);
          if (Either.isLeft(encoded)) {
            subscriber.next({
              _tag: "Failed",
              error: "the result does not match the command's result schema",
            });
          } else {
            // Checked here, where it is a sentence: a BigInt or a cycle would throw in the stream.
            const json = jsonTextOf(encoded.right);
            subscriber.next(
              json._tag === "Json"
                ? { _tag: "Result", value: encoded.right }
                : { _tag: "Failed", error: json.problem },
            );
          }
          subscriber.complete();
        },
        (error: unknown) => {
          subscriber.next({
            _tag: "Failed",
            error: error instanceof Error ? error.message : String(error),
          });
          subscriber.complete();
        },
      );
    return () => controller.abort();
  });

/**
 * Makes the live registry of an app. Writes through the call path
 * (`activity$`) re-run the live queries of the resources they change.
 *
 * @example
 * ```ts
 * const live = liveQueries(app, path.activity$);
 * live.subscribe({ clientId: "w1", user }, "customers_show", { id: 42 }).subscribe(render);
 * ```
 */
export const liveQueries = (app: App, activity$: Observable<Activity>): LiveRegistry => {
  const writes = new Subject<ReadonlyArray<string>>();
  const open = new Map<string, NoteQuery[]>();
  const closing = new Map<string, Subject<void>>();

  activity$.subscribe((activity) => {
    // A command that ran may have written even when it failed part-way, so any finish re-runs.
    if (activity.type !== "finished") return;
    const command = app.commands.get(activity.tool);
    if (command !== undefined && command.invalidates.length > 0) writes.next(command.invalidates);
  });

  const closed$ = (clientId: string) => {
    let subject = closing.get(clientId);
    if (subject === undefined) {
      subject = new Subject<void>();
      closing.set(clientId, subject);
    }
    return subject;
  };

  const refuse = (reason: LiveQueryRefused["reason"], detail: string) =>
    new Observable<LiveResult>((subscriber) =>
      subscriber.error(new LiveQueryRefused({ reason, detail })),
    );

  const subscribe: LiveRegistry["subscribe"] = (client, name, args) => {
    const command = app.commands.get(name);
    if (command === undefined) return refuse("unknownCommand", `unknown command: ${name}`);
    if (!command.live) return refuse("notLive", `${name} is not a live command`);
    const ability = command.can;
    if (ability === undefined) return refuse("noAbility", `${name} takes no ability`);
    const origin = client.origin ?? "frontend";
    const userNow = () => client.currentUser?.() ?? client.user;
    // Asked at opening and again before each run: rights taken away end the results.
    const allowed = () =>
      origin === "agent" ? app.mcp?.covers(ability) === true : userHas(app, userNow(), ability);
    const notAllowed = `the user may not do this: it takes ${ability}`;
    if (!allowed()) return refuse("notAllowed", notAllowed);
    const decoded = command.decode(args);
    if (Either.isLeft(decoded))
      return refuse("badArguments", issueLines(issuesOf(decoded.left)).join("\n"));
    const encoded = Schema.encodeEither(command.args)(decoded.right);
    const named = Either.isRight(encoded) ? encoded.right : {};
    const runOrigin: RunOrigin =
      origin === "agent"
        ? { kind: "agent", client: client.agent ?? "agent" }
        : { kind: "frontend" };
    const resource = resourceOf(ability);

    return new Observable<LiveResult>((subscriber) => {
      const list = open.get(client.clientId) ?? [];
      if (list.length >= MAX_LIVE_QUERIES) {
        subscriber.error(
          new LiveQueryRefused({
            reason: "tooMany",
            detail: `a window keeps at most ${MAX_LIVE_QUERIES} live queries`,
          }),
        );
        return;
      }
      const entry: NoteQuery = { clientId: client.clientId, command: name, args: named, origin };
      list.push(entry);
      open.set(client.clientId, list);
      const running = rerunOnWrites(writes, resource, () =>
        allowed()
          ? runOnce(command, decoded.right, userNow(), runOrigin)
          : of<LiveResult>({ _tag: "Failed", error: notAllowed }),
      )
        .pipe(takeUntil(closed$(client.clientId)))
        .subscribe(subscriber);
      return () => {
        running.unsubscribe();
        const now = open.get(client.clientId);
        if (now === undefined) return;
        const at = now.indexOf(entry);
        if (at !== -1) now.splice(at, 1);
        if (now.length === 0) open.delete(client.clientId);
      };
    });
  };

  return {
    subscribe,
    queries: (clientId) => open.get(clientId) ?? [],
    invalidate: (resources) => writes.next([...resources]),
    close: (clientId) => {
      const subject = closing.get(clientId);
      closing.delete(clientId);
      subject?.next();
      subject?.complete();
      open.delete(clientId);
    },
  };
};
