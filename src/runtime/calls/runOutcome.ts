/**
 * What a command's run becomes: its result, encoded by its schema and checked
 * as JSON (with its link), or what it threw, read with care and bounded.
 */
import { Either } from "effect";
import { clip } from "../clip.ts";
import type { Command } from "../commands/command.ts";
import { issueLines, issuesOf } from "../commands/issues.ts";
import { fillLink } from "../commands/link.ts";
import { jsonTextOf } from "../json.ts";
import { thrownMessage } from "../thrown.ts";
import { type CallOutcome, notJsonLine } from "./outcome.ts";

/** A run's outcome from what it returned: the result encoded, if its schema and JSON can hold it. */
export const outcomeOfResult = (
  command: Command,
  input: unknown,
  value: unknown,
  callId: string,
  tool: string,
): CallOutcome => {
  const encoded = command.encodeResult(value);
  if (Either.isLeft(encoded)) {
    const lines = issueLines(issuesOf(encoded.left));
    return { _tag: "Failed", callId, tool, lines: [RESULT_NOT_SCHEMA, ...lines] };
  }
  // Found now, as this call's failure: telling it later would throw after the command ran.
  const json = jsonTextOf(encoded.right);
  if (json._tag === "NotJson")
    return { _tag: "Failed", callId, tool, lines: [notJsonLine(json.problem)] };
  const link = command.linkTemplate && fillLink(command.linkTemplate, input, encoded.right);
  return { _tag: "Succeeded", callId, tool, result: encoded.right, ...(link ? { link } : {}) };
};

const RESULT_NOT_SCHEMA = "the command's result did not match its schema";

const MAX_ERROR_LINES = 20;

/** The lines a failed run is told as: what it threw, one line each, clipped and bounded. */
export const errorLines = (error: unknown): ReadonlyArray<string> => {
  const text = thrownMessage(error) ?? "the command failed";
  const lines = text
    .split("\n")
    .map((line) => clip(line, 300))
    .filter((line) => line.trim() !== "");
  return lines.length === 0 ? ["the command failed"] : lines.slice(0, MAX_ERROR_LINES);
};
