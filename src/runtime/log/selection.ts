/**
 * A selection as the window takes it: checked, then cut to what the note can
 * show, as the `SelectionChanged` the log keeps. Pure.
 */
import { clip } from "../clip.ts";
import { NOTE_BOUNDS } from "../prompt/windowNote.ts";
import type { UnstampedEvent } from "./events.ts";

/** A route as the window keeps it: one that is only whitespace is none. */
export const routeOf = (route: string | null | undefined): string | null =>
  route === undefined || route === null || route.trim() === "" ? null : route;

/** Why a selection cannot be made (a kind with no name, ids not strings or finite numbers), or undefined. */
export const selectionProblem = (kind: unknown, ids: unknown): string | undefined => {
  if (typeof kind !== "string" || kind.trim() === "") return "a selection needs a kind with a name";
  if (
    !Array.isArray(ids) ||
    !ids.every((id) => typeof id === "string" || (typeof id === "number" && Number.isFinite(id)))
  )
    return "ids must be strings or finite numbers";
  return undefined;
};

/** The event a selection is logged as: a kind's name cut at 64, at most 100 ids, and the count. */
export const selectionChanged = (
  kind: string,
  ids: ReadonlyArray<string | number>,
  route: string | null,
): UnstampedEvent => ({
  _tag: "SelectionChanged",
  turn: 0,
  kind: clip(kind, NOTE_BOUNDS.kindName),
  ids: ids
    .slice(0, NOTE_BOUNDS.idsPerKind)
    .map((id) => (typeof id === "string" ? clip(id, NOTE_BOUNDS.argumentString) : id)),
  ...(ids.length > NOTE_BOUNDS.idsPerKind ? { total: ids.length } : {}),
  route,
});
