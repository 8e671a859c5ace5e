/**
 * The host over HTTP: the routes of the contract as one fetch handler. Every
 * route checks the host's token, then who the user is, then that the window
 * is theirs, before it reads anything else of the request.
 */
import { Either } from "effect";
import { type Context, Hono } from "hono";
import type { Observable } from "rxjs";
import { FeedBehind } from "../../actors/assistantWindow.ts";
import type { Host } from "../../actors/host/host.ts";
import { eventText } from "../../actors/log/feed.ts";
import { offered } from "../../runtime/commands/catalog.ts";
import type { User } from "../../runtime/commands/origin.ts";
import { NoKeySlot } from "../../runtime/commands/userKey.ts";
import type { Secrets } from "../../runtime/ports/secrets.ts";
import type { FetchHandler } from "../web/fetchHandler.ts";
import { ANSWER_ON_NODE, type AnswersOnNode, type NodeAnswer } from "../web/nodeAnswer.ts";
import { type PullSource, type SseOptions, sseResponse } from "../web/sse.ts";
import { sseOnNode } from "../web/sseNode.ts";
import { sameToken } from "../web/token.ts";
import {
  BASE_PATH,
  ConfirmBody,
  type ConfirmResponse,
  LiveQuery,
  type PromptAccepted,
  PromptBody,
  PromptFields,
  ROUTE_METHODS,
  SelectedBody,
  type SourceName,
  type SourceResponse,
  START_OVER_EVENT,
  TOKEN_HEADER,
  type ToolInfo,
  type UsageResponse,
} from "./contract.ts";
import {
  badRequest,
  forbidden,
  internalError,
  methodNotAllowed,
  notConfigured,
  notFound,
  refusalOf,
  unauthenticated,
} from "./refusal.ts";
import {
  type Bindings,
  bodyOf,
  clientIdOf,
  decoded,
  type Env,
  jsonOf,
  keyOf,
  lastEventIdOf,
  promptInput,
  startTurn,
  windowOf,
} from "./requests.ts";
import { threadRoutes } from "./threadRoutes.ts";

/** Where users' steps go, as `/source` and `/key` ask it: a `modelSource()` is one. */
export interface SourceOfUsers {
  /** Which source the user's next step goes to. */
  readonly which: (user: User) => Promise<SourceName>;
  /** The user's key in the secrets store, as the source reads it; throws `NoKeySlot` for a user who can have none. */
  readonly userKey: (user: User) => string;
}

/** Where the user's key is kept, or undefined when they can have none (`NoKeySlot`). */
const slotOf = (source: SourceOfUsers, user: User): string | undefined => {
  try {
    return source.userKey(user);
  } catch (error) {
    if (error instanceof NoKeySlot) return undefined;
    throw error;
  }
};

/** What {@link assistantHttp} needs besides the host. */
export interface AssistantHttpOptions {
  /** The host's token, or how to read it per request; every route needs it in `x-elyra-token`. */
  readonly token: string | ((request: Request) => string | Promise<string>);
  /** Who the user is (from the app's session); `undefined` or `null` answers 401. */
  readonly authenticate: (request: Request) => User | undefined | Promise<User | undefined>;
  /** Where the routes are mounted: `/__assistant`. */
  readonly basePath?: string;
  /** How often an open event stream sends a comment line: 15 s. */
  readonly heartbeatMs?: number;
  /**
   * New events kept for an event stream whose client is not reading: 4 096.
   * Past it the stream is cut, and the client resumes from its last id,
   * reading the rest from the store a page at a time.
   */
  readonly maxEventsBehind?: number;
  /**
   * Where `POST /key` keeps users' own API keys: the store the `source` reads.
   * Without it (or without `source`) `/key` answers 404 `notConfigured`.
   */
  readonly secrets?: Secrets;
  /**
   * Where users' steps go, for `POST /source`; without it `/source` answers
   * `app` (the host's own model) and that no key can be kept.
   */
  readonly source?: SourceOfUsers;
  /**
   * The panel's banner about what answers (a demo model, say), sent with
   * `POST /source`: one sentence for all, or one per user and source
   * (`undefined` or `null`: no banner). Without it `/source` says nothing of
   * a banner and the panel's `notice` attribute stands.
   */
  readonly notice?:
    | string
    | ((
        user: User,
        source: SourceName,
      ) => string | null | undefined | Promise<string | null | undefined>);
  /** Told of each error that is a bug (answered 500 with nothing of it): `console.error` by default. */
  readonly onError?: (error: unknown, request: Request) => void;
}

export type { FetchHandler };

/**
 * What a route answers when it wrote its answer to Node's response itself
 * (with `@hono/node-server`'s own mark, so its listener would write nothing
 * more of it either).
 */
const ANSWERED_HEADER = "x-hono-already-sent";
const answeredOnNode = (): Response =>
  new Response(null, { headers: { [ANSWERED_HEADER]: "true" } });

/**
 * `source` as an event stream: written straight to Node's response when
 * served on `node:http`, else as a `Response`. A refusal while subscribing is
 * thrown, before anything is sent.
 */
const answerSse = <T>(
  c: Context<Env>,
  source: Observable<T> | PullSource<T>,
  options: SseOptions<T>,
): Response => {
  // No bindings on a fetch host: the handler runs the app with none.
  const out = (c.env as Bindings | undefined)?.nodeResponse;
  if (out !== undefined) {
    const written = sseOnNode(source, options, out);
    if (Either.isLeft(written)) throw written.left;
    return answeredOnNode();
  }
  const stream = sseResponse(source, options);
  if (Either.isLeft(stream)) throw stream.left;
  return stream.right;
};

const noContent = () => new Response(null, { status: 204 });

/** The frame that tells a client to forget what it has: the log it resumed in is not this one. */
const START_OVER = `event: ${START_OVER_EVENT}\ndata: {}\n\n`;

/**
 * The host's routes (see `ROUTES` in the contract) as a fetch handler, on
 * Hono. A refusal is answered as `{error: {type, message}}` with its status;
 * any other error as a 500 that says only "internal error", and is told to
 * `onError`.
 *
 * @example
 * ```ts
 * const handle = assistantHttp(host, {
 *   token: process.env.ELYRA_TOKEN ?? "",
 *   authenticate: (request) => sessions.userOf(request),
 * });
 * createServer(toNodeListener(handle)).listen(3000);
 * ```
 */
export const assistantHttp = (host: Host, options: AssistantHttpOptions): FetchHandler => {
  const base = (options.basePath ?? BASE_PATH).replace(/\/+$/, "");
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const report =
    options.onError ??
    ((error: unknown) => console.error("elyra-assistant/http: a request failed", error));
  const api = new Hono<Env>().basePath(base);

  api.use("*", async (c, next) => {
    const request = c.req.raw;
    // Hono answers HEAD by running GET and dropping the body: an event stream would never end.
    if (request.method === "HEAD")
      return new Response(null, { status: 405, headers: { allow: "GET, POST" } });
    const token = typeof options.token === "string" ? options.token : await options.token(request);
    if (!sameToken(request.headers.get(TOKEN_HEADER), token)) throw forbidden();
    const user = await options.authenticate(request);
    if (user === undefined || user === null) throw unauthenticated();
    c.set("user", user);
    await next();
  });

  api.post("/prompt", async (c) => {
    const window = windowOf(host, c);
    const json = await jsonOf(c.req.raw);
    // An object is read as one, so a bad field is named rather than the string it might have been.
    const isObject = typeof json === "object" && json !== null && !Array.isArray(json);
    const input = promptInput(isObject ? decoded(PromptFields, json) : decoded(PromptBody, json));
    const accepted: PromptAccepted = { turn: await startTurn(window, input) };
    return Response.json(accepted, { status: 202 });
  });

  api.post("/confirm", async (c) => {
    const window = windowOf(host, c);
    const body = await bodyOf(c.req.raw, ConfirmBody);
    const result = await window.confirm(body.confirmId, body.accept, {
      ...(body.tool === undefined ? {} : { tool: body.tool }),
      ...("args" in body ? { args: body.args } : {}),
      ...(body.edited === undefined ? {} : { edited: body.edited }),
    });
    const answer: ConfirmResponse = { result };
    return Response.json(answer);
  });

  api.post("/stop", (c) => {
    windowOf(host, c).stop();
    return noContent();
  });

  api.post("/reset", async (c) => {
    await windowOf(host, c).reset();
    return noContent();
  });

  // A page going away: the window is closed if it is open, and not opened to be closed.
  api.post("/close", async (c) => {
    await host.closeWindow(clientIdOf(c), { user: c.get("user") });
    return noContent();
  });

  api.post("/tools", (c) => {
    windowOf(host, c);
    const grant = host.app.assistant;
    const tools = offered(host.app, "assistant", c.get("user")).map((tool): ToolInfo => {
      const can = grant?.tools.get(tool.name)?.can;
      return {
        name: tool.name,
        description: tool.description,
        asksFirst: can !== undefined && grant?.needsConfirm(can) === true,
      };
    });
    return Response.json({ tools });
  });

  api.post("/selected", async (c) => {
    const window = windowOf(host, c);
    const body = await bodyOf(c.req.raw, SelectedBody);
    await window.select(body.kind, body.ids, body.route === undefined ? {} : { route: body.route });
    return noContent();
  });

  api.post("/key", async (c) => {
    windowOf(host, c);
    const { secrets, source } = options;
    if (secrets === undefined) throw notConfigured("secrets store");
    if (source === undefined) throw notConfigured("model source");
    const key = await keyOf(c.req.raw);
    const slot = slotOf(source, c.get("user"));
    if (slot === undefined) throw notConfigured("place to keep a key for this account");
    await (key === null ? secrets.delete(slot) : secrets.set(slot, key));
    return noContent();
  });

  // Asked by a panel after each turn (`?cost=false`: the budget only, from the window's memory),
  // and when its user asks what the conversation used and cost (read from the log).
  api.post("/usage", async (c) => {
    const window = windowOf(host, c);
    await window.owned();
    const used = window.usage();
    const budget = {
      used: used.total,
      max: host.app.assistant?.maxTokensPerConversation ?? 0,
    };
    if (c.req.query("cost") === "false") {
      const answer: UsageResponse = { context: used.context, budget };
      return Response.json(answer);
    }
    const spent = await window.spending();
    const answer: UsageResponse = {
      context: used.context,
      budget,
      dollars: spent.total.unpricedSteps > 0 ? null : spent.total.dollars,
    };
    return Response.json(answer);
  });

  // Asked by every panel as it opens: a host given no model source answers too (its own model).
  api.post("/source", async (c) => {
    windowOf(host, c);
    const user = c.get("user");
    const { notice } = options;
    const source = options.source === undefined ? "app" : await options.source.which(user);
    const said =
      notice === undefined
        ? undefined
        : typeof notice === "string"
          ? notice
          : await notice(user, source);
    const answer: SourceResponse = {
      source,
      canSaveKey:
        options.secrets !== undefined &&
        options.source !== undefined &&
        slotOf(options.source, user) !== undefined,
      ...(notice === undefined
        ? {}
        : { notice: typeof said === "string" && said !== "" ? said : null }),
    };
    return Response.json(answer);
  });

  api.get("/events", async (c) => {
    const window = windowOf(host, c);
    const request = c.req.raw;
    const following = await window.follow(
      lastEventIdOf(c),
      options.maxEventsBehind === undefined ? {} : { maxBehind: options.maxEventsBehind },
    );
    return answerSse(c, following.feed, {
      signal: request.signal,
      heartbeatMs,
      id: following.eventId,
      // The text the feed measured its page by, not made twice.
      text: eventText,
      ...(following.startOver ? { preface: START_OVER } : {}),
      onError: (error) => report(error, request),
      // A client too slow to keep up is cut, and resumes from what it has: not a fault.
      isCut: (error) => error instanceof FeedBehind,
    });
  });

  api.get("/live", (c) => {
    const window = windowOf(host, c);
    const request = c.req.raw;
    const query = decoded(
      LiveQuery,
      { command: c.req.query("command"), args: c.req.query("args") },
      "query",
    );
    let args: unknown = {};
    if (query.args !== undefined) {
      try {
        args = JSON.parse(query.args);
      } catch {
        throw badRequest("args: must be JSON");
      }
    }
    return answerSse(c, window.live(query.command, args), {
      signal: request.signal,
      heartbeatMs,
      onError: (error) => report(error, request),
    });
  });

  threadRoutes(api, host);

  for (const [route, allow] of Object.entries(ROUTE_METHODS)) {
    api.all(`/${route}`, () => {
      throw methodNotAllowed(allow);
    });
  }

  api.notFound(() => notFound().toResponse());

  api.onError((error, c) => {
    const refusal = refusalOf(error);
    if (refusal !== undefined) return refusal.toResponse();
    report(error, c.req.raw);
    return internalError();
  });

  const run = async (request: Request, bindings?: Bindings): Promise<Response> => {
    // The routes are plain ASCII paths: a percent-encoded one (`/%5F%5Fassistant/tools`) would
    // be decoded by the router into a route an app guarding the literal prefix never saw.
    if (new URL(request.url).pathname.includes("%")) return notFound().toResponse();
    try {
      return await api.fetch(request, bindings);
    } catch (error) {
      // Hono hands only `Error`s to onError; anything else thrown ends here.
      report(error, request);
      return internalError();
    }
  };
  const handle: FetchHandler = (request) => run(request);
  // On node:http (toNodeListener, HTTP/1), event streams are written to Node's response itself.
  const answer: NodeAnswer = async (request, response) => {
    const answered = await run(request, { nodeResponse: response });
    return answered.headers.has(ANSWERED_HEADER) ? undefined : answered;
  };
  const onNode: AnswersOnNode = { [ANSWER_ON_NODE]: answer };
  return Object.assign(handle, onNode);
};
