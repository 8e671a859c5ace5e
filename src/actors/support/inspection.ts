/**
 * What `createHost({ inspect })` passes on: XState's inspection events of
 * every actor, typed here by the fields they share, so the library's public
 * types stand without XState's (whose declarations do not check under
 * `exactOptionalPropertyTypes` with `skipLibCheck: false`). An inspector
 * written for XState's own `InspectionEvent` (`@statelyai/inspect`'s
 * `inspect`, say) is accepted as it is.
 */

/** One of XState's inspection events: `@xstate.actor`, `@xstate.event`, `@xstate.snapshot`, `@xstate.microstep` or `@xstate.action`. */
export interface InspectionEvent {
  readonly type: `@xstate.${string}`;
  /** The id of the actor system's root. */
  readonly rootId: string;
  /** The actor the event is about. */
  readonly actorRef: unknown;
}

// Method syntax keeps the parameter bivariant, so a function over XState's
// own (richer) InspectionEvent is accepted.
interface InspectCallback {
  bivariantInspect(event: InspectionEvent): void;
}

/**
 * An observer of inspection events, or a function called with each.
 *
 * @example
 * ```ts
 * const host = createHost(app, {
 *   model,
 *   inspect: (event) => {
 *     if (event.type === "@xstate.actor") console.log("started", event.actorRef);
 *   },
 * });
 * ```
 */
export type InspectObserver =
  | InspectCallback["bivariantInspect"]
  | {
      next?(event: InspectionEvent): void;
      error?(error: unknown): void;
      complete?(): void;
    };
