/**
 * What a request to the routes carries, read and checked: the client id and
 * its window, the body as JSON decoded by the contract, the prompt, the key,
 * the point an event stream resumes from.
 */
import type { ServerResponse } from "node:http";
import { Either, type Schema } from "effect";
import type { Context } from "hono";
import type { Host } from "../../actors/host/host.ts";
import type { AssistantWindow, PromptInput } from "../../actors/window/window.ts";
import type { User } from "../../runtime/commands/origin.ts";
import { decode, readJson } from "../web/body.ts";
import {
  API_KEY_PATTERN,
  CLIENT_HEADER,
  ClientId,
  KeyBody,
  LastEventId,
  MAX_BODY_BYTES,
  type PromptBody,
} from "./contract.ts";
import { badRequest, fromBody } from "./refusal.ts";

/** What the routes are run with: Node's response, when served on `node:http` (HTTP/1). */
export interface Bindings {
  readonly nodeResponse?: ServerResponse;
}

export type Env = { Variables: { user: User }; Bindings: Bindings };

/** The client id the header names. */
export const clientIdOf = (c: Context<Env>): string => {
  const header = c.req.header(CLIENT_HEADER);
  if (header === undefined) throw badRequest(`${CLIENT_HEADER}: the header is missing`);
  return decoded(ClientId, header, CLIENT_HEADER);
};

/** The window the client header names, opened for the signed-in user. */
export const windowOf = (host: Host, c: Context<Env>): AssistantWindow =>
  host.window(clientIdOf(c), { user: c.get("user") });

/** The body, read as JSON. */
export const jsonOf = async (request: Request): Promise<unknown> => {
  const json = await readJson(request, MAX_BODY_BYTES);
  if (Either.isLeft(json)) throw fromBody(json.left);
  return json.right;
};

/** A value decoded by the contract's schema; refused naming `what` it is when it does not. */
export const decoded = <A, I>(schema: Schema.Schema<A, I>, json: unknown, what = "body"): A => {
  const value = decode(schema, json, what);
  if (Either.isLeft(value)) throw fromBody(value.left);
  return value.right;
};

/** The body, read as JSON and decoded by the contract's schema. */
export const bodyOf = async <A, I>(request: Request, schema: Schema.Schema<A, I>): Promise<A> =>
  decoded(schema, await jsonOf(request));

/** `POST /key`'s body: any failure says what a key looks like, never what was sent. */
export const keyOf = async (request: Request): Promise<string | null> => {
  const body = decode(KeyBody, await jsonOf(request));
  if (Either.isRight(body) && (body.right.key === null || API_KEY_PATTERN.test(body.right.key)))
    return body.right.key;
  throw badRequest("key: must be an Anthropic API key (sk-ant-…), or null to forget it");
};

export const promptInput = (body: typeof PromptBody.Type): PromptInput => {
  if (typeof body === "string") return body;
  return body.route === undefined ? { text: body.text } : { text: body.text, route: body.route };
};

/** Starts a turn and resolves with its number as soon as it started, not when it ends. */
export const startTurn = (window: AssistantWindow, input: PromptInput) =>
  new Promise<number>((resolve, reject) => {
    // After the start the turn's end is the log's business; a refusal before it rejects here.
    window.prompt(input, { onStarted: resolve }).then(undefined, reject);
  });

/** The id to resume after: `Last-Event-ID`, else `?lastEventId=`, else none. */
export const lastEventIdOf = (c: Context<Env>): string | undefined => {
  const header = c.req.header("last-event-id");
  const given = header ?? c.req.query("lastEventId");
  if (given === undefined) return undefined;
  return decoded(LastEventId, given, header === undefined ? "lastEventId" : "last-event-id");
};
