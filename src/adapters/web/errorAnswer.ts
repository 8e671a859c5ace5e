/**
 * The error answer of the window's wire (`{ "error": { type, message } }`,
 * `ErrorBody`), for the web adapters that answer in it: the assistant's
 * routes and the MCP endpoint's 401.
 */
import type { ErrorBody, ErrorType } from "./wire.ts";

/** What a request with no signed-in user is told. */
export const UNAUTHENTICATED = "no signed-in user";

/** An error answer: `status`, JSON `{ error: { type, message } }`, and any `headers`. */
export const refusalResponse = (
  status: number,
  type: ErrorType,
  message: string,
  headers: Readonly<Record<string, string>> = {},
): Response => {
  const body: ErrorBody = { error: { type, message } };
  return Response.json(body, { status, headers });
};
