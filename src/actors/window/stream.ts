/**
 * What a window's model steps stream, gathered and logged: one coalescer for
 * the text of answers (`TextDelta`) and, in code mode, the code of scripts as
 * Claude writes it (`ScriptCodeDelta`), each told at most once per 50 ms of
 * gathering. Every other event the window logs tells what waits first.
 */
import type { UnstampedEvent } from "../../runtime/log/events.ts";
import { type Coalescer, coalescer } from "../turn/coalescer.ts";
import type { WindowDeps } from "./deps.ts";

/** A piece the coalescer told, as the log's event of turn `turn`. */
const streamedEvent = (
  turn: number,
  step: number,
  text: string,
  toolId?: string,
): UnstampedEvent =>
  toolId === undefined
    ? { _tag: "TextDelta", turn, step, text }
    : { _tag: "ScriptCodeDelta", turn, toolId, code: text };

/** The window's coalescer: what gathers is appended with `append`, in the turn `turn()` names. */
export const windowStream = (
  deps: Pick<WindowDeps, "clock" | "inspect">,
  turn: () => number,
  append: (event: UnstampedEvent) => void,
): Coalescer =>
  coalescer(
    deps.clock,
    (step, text, toolId) => append(streamedEvent(turn(), step, text, toolId)),
    deps.inspect,
  );
