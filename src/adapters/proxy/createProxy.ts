/**
 * The backend proxy: the Messages API behind the app's own sign-in, so no
 * API key ever ships in the client. A fetch handler for `POST …/v1/messages`,
 * which answers on `node:http` itself when `toNodeListener` serves it.
 */
import type { ServerResponse } from "node:http";
import { Either } from "effect";
import {
  memoryRateLimitStore,
  type RateLimit,
  type RateLimitStore,
} from "../../runtime/calls/rateLimit.ts";
import type { User } from "../../runtime/commands/origin.ts";
import { defaultUserKey } from "../../runtime/commands/userKey.ts";
import type { Usage } from "../../runtime/log/events.ts";
import { type Clock, systemClock } from "../../runtime/ports/clock.ts";
import type { UsageStore } from "../../runtime/ports/usageStore.ts";
import type { PriceTable } from "../../runtime/usage/prices.ts";
import type { BodyProblem } from "../web/body.ts";
import { ANSWER_ON_NODE, type AnswersOnNode } from "../web/nodeAnswer.ts";
import { type Admitted, budgetOf, type ProxyBudget, type ProxyBudgetWarning } from "./budget.ts";
import {
  bodyTooSlow,
  internalError,
  invalid,
  limitUnavailable,
  methodNotAllowed,
  notFound,
  ProxyConfigError,
  ProxyRefusal,
  rateLimited,
  tooLarge,
  unauthenticated,
} from "./errors.ts";
import { proxyRateLimit } from "./limit.ts";
import { checkRequest } from "./policy.ts";
import { readRequestJson } from "./requestJson.ts";
import { transportFor } from "./undiciTransport.ts";
import { forward } from "./upstream.ts";
import { usageMeter } from "./usageMeter.ts";
import { userIdsOf } from "./userId.ts";

/** What {@link createProxy} tells `onUsage` once per forwarded request. */
export interface ProxyUsage<U = User> {
  readonly user: U;
  readonly model: string;
  readonly usage: Usage;
}

/** The settings of {@link createProxy}. */
export interface ProxyOptions<U = User> {
  /** The server's Anthropic API key, sent upstream as `x-api-key`. Never leaves the server. */
  readonly apiKey: string;
  /** Who the user is (from the app's session); `undefined` or `null` answers 401. */
  readonly authenticate: (request: Request) => U | undefined | null | Promise<U | undefined | null>;
  /** The key that stands for a user in the stores: the user if a string, else its `id`. */
  readonly userKey?: (user: U) => string;
  /** The models a request may name, exactly. */
  readonly models: ReadonlyArray<string>;
  /** The highest `max_tokens` a request may ask for; over it is refused (422). */
  readonly maxTokens: number;
  /**
   * Requests per user: at most `calls` in any `perSeconds` window. Unless
   * given, 60 in any 60 s; `false` turns the limit off (for a proxy limited
   * in front of it, or a test).
   */
  readonly rateLimit?: RateLimit | false;
  /** Where the rate limit counts: in memory unless given (`redisStore` for several instances). */
  readonly rateLimits?: RateLimitStore;
  /**
   * Where each user's tokens are added up (nowhere unless given), and, with
   * a `budget`, their money (in memory unless given: `redisStore` for
   * several instances).
   */
  readonly usage?: UsageStore;
  /**
   * Money per user: at most `dollars` (US) in each fixed period of
   * `perSeconds` (from the epoch: a day's are UTC days). Each request's worst
   * case is reserved before it goes; `max_tokens` is clamped to what is left,
   * and a request that not even a short answer fits is refused (429). None
   * unless given; `false` says none.
   */
  readonly budget?: ProxyBudget | false;
  /** Prices by model, US dollars a million tokens, over `DEFAULT_PRICES`: what the budget counts. */
  readonly prices?: PriceTable;
  /** Told once per period when a user's spend passes 80 % of the budget, and again at 95 %. */
  readonly onBudgetWarning?: (warning: ProxyBudgetWarning<U>) => void;
  /** Whether a `code_execution_*` server tool is passed: false. */
  readonly codeExecution?: boolean;
  /**
   * Whether content may hold URL sources (`image` or `document` blocks with
   * `source: { type: "url" }`), which make the API fetch a URL the client
   * chose: false, refused with 422.
   */
  readonly allowUrlSources?: boolean;
  /** Whether `stream: true` is passed: true. When false, it is refused with 422 "Streaming isn't proxied". */
  readonly stream?: boolean;
  /** Told of each forwarded request's usage, once, when its answer ends (or is cut, or left). */
  readonly onUsage?: (report: ProxyUsage<U>) => void;
  /** Told of each error that is a bug (answered 500 with nothing of it): `console.error` by default. */
  readonly onError?: (error: unknown, request: Request) => void;
  /** The Messages API's origin: `https://api.anthropic.com`. */
  readonly upstream?: string;
  /** How long upstream may send nothing (before its headers, or between chunks): 120 000 ms. */
  readonly timeoutMs?: number;
  /** The largest request body taken: 32 MB, the API's own limit. */
  readonly maxBodyBytes?: number;
  /** How long a request's body may take to arrive in all: 60 000 ms; later is a 408, and the connection is closed. */
  readonly bodyTimeoutMs?: number;
  /** The clock of the timeout and the rate limit: `systemClock`; `simulatedClock()` in tests. */
  readonly clock?: Clock;
  /**
   * How to reach upstream, when given: every request goes through this
   * `fetch`. Unless given: on Node, undici's `request()` over kept-alive
   * connections (by the dispatcher the app set with `setGlobalDispatcher`,
   * as the platform's `fetch` would go, else by an agent of the proxy's
   * own); elsewhere the platform's `fetch`.
   */
  readonly fetch?: typeof globalThis.fetch;
}

/** Whose usage a meter counts, and where its failures are told. */
interface Metered<U> {
  readonly user: U;
  readonly model: string;
  readonly key: string;
  readonly request: Request;
  /** The money the request holds, when there is a budget. */
  readonly admitted: Admitted | undefined;
}

const PATH = /\/v1\/messages\/?$/;
const HTTP = /^https?:\/\//;

/**
 * The path of a request's URL. A `Request`'s URL is serialized, so an http(s)
 * one's path runs from the first "/" after the scheme's "//" (its authority
 * holds none: a "/" in userinfo is percent-encoded) to the query or the
 * fragment; anything else is parsed.
 */
const pathOf = (url: string): string => {
  const scheme = HTTP.exec(url);
  if (scheme === null) return new URL(url).pathname;
  const start = url.indexOf("/", scheme[0].length);
  if (start < 0) return "/";
  let end = url.length;
  const query = url.indexOf("?", start);
  if (query >= 0) end = query;
  const fragment = url.indexOf("#", start);
  if (fragment >= 0 && fragment < end) end = fragment;
  return url.slice(start, end);
};

/** What the shared reader could not read, in the API's words. */
const fromBody = (problem: BodyProblem): ProxyRefusal => {
  switch (problem._tag) {
    case "TooLarge":
      return tooLarge(problem.limit);
    case "TooSlow":
      return bodyTooSlow(problem.limitMs);
    case "Unreadable":
      return invalid(problem.message);
  }
};

/** How long upstream may send nothing unless `timeoutMs` is given: 120 s. */
export const PROXY_TIMEOUT_MS = 120_000;
/** How long a request body may take to arrive unless `bodyTimeoutMs` is given: 60 s. */
export const PROXY_BODY_TIMEOUT_MS = 60_000;
/** The largest request body read unless `maxBodyBytes` is given: 32 MB, the API's own limit. */
export const PROXY_MAX_BODY_BYTES = 32 * 1024 * 1024;

/**
 * The Messages API, proxied: a fetch handler for `POST …/v1/messages` that
 * the real SDK reaches with `baseURL` and `authToken`. Before anything goes
 * upstream it authenticates the user (401), decodes the body (400 naming the
 * field), checks the model (422), `max_tokens` (422), server tools and MCP
 * servers (422), URL sources in the content (422, unless `allowUrlSources`),
 * streaming (422) and the user's rate limit (429; 60 requests a minute
 * unless `rateLimit` says otherwise, `false` for none); with a `budget`, it
 * reserves the request's worst case in money, clamping `max_tokens` to what
 * is left or refusing (429). Then it forwards with the
 * server's key, passing the event stream through as it arrives. Refusals and
 * failures answer the API's error JSON; a bug answers a bare 500.
 *
 * @example
 * ```ts
 * import { createServer } from "node:http";
 * import { toNodeListener } from "elyra-assistant/http";
 *
 * const proxy = createProxy({
 *   apiKey: process.env.ANTHROPIC_API_KEY ?? "",
 *   authenticate: (request) => sessions.userOf(request),
 *   models: ["claude-sonnet-4-5"],
 *   maxTokens: 8192,
 *   rateLimit: { calls: 30, perSeconds: 60 },
 *   budget: { dollars: 5, perSeconds: 86_400 }, // $5 a user a UTC day
 *   onBudgetWarning: ({ user, share }) => console.warn(user, `passed ${share * 100} % of the budget`),
 *   onUsage: ({ user, model, usage }) => console.log(user, model, usage),
 * });
 * createServer(toNodeListener(proxy)).listen(3000); // SDK: baseURL "http://host:3000/claude"
 * ```
 */
export const createProxy = <U = User>(
  options: ProxyOptions<U>,
): ((request: Request) => Promise<Response>) => {
  const policy = {
    models: new Set(options.models),
    maxTokens: options.maxTokens,
    codeExecution: options.codeExecution ?? false,
    stream: options.stream ?? true,
    allowUrlSources: options.allowUrlSources ?? false,
  };
  const clock = options.clock ?? systemClock;
  const rateLimits = options.rateLimits ?? memoryRateLimitStore();
  const keyOf: (user: U) => string = options.userKey ?? ((user) => defaultUserKey(user as User));
  // Settings that fail open when they are not numbers (NaN compares false) are refused here.
  if (!Number.isInteger(options.maxTokens) || options.maxTokens <= 0)
    throw new ProxyConfigError({
      reason: `maxTokens must be a whole number above 0, not ${String(options.maxTokens)}`,
    });
  const limit = proxyRateLimit(options.rateLimit);
  const report =
    options.onError ??
    ((error: unknown) => console.error("elyra-assistant/proxy: a request failed", error));
  const budget = budgetOf<U>({
    budget: options.budget,
    prices: options.prices,
    models: options.models,
    usage: options.usage,
    onBudgetWarning: options.onBudgetWarning,
    report,
  });
  const url = `${(options.upstream ?? "https://api.anthropic.com").replace(/\/+$/, "")}/v1/messages`;
  const timeoutMs = options.timeoutMs ?? PROXY_TIMEOUT_MS;
  const maxBodyBytes = options.maxBodyBytes ?? PROXY_MAX_BODY_BYTES;
  const bodyTimeoutMs = options.bodyTimeoutMs ?? PROXY_BODY_TIMEOUT_MS;
  const transport = transportFor(options.fetch);
  const userIdOf = userIdsOf(options.apiKey);

  const takeLimit = async (key: string): Promise<ProxyRefusal | undefined> => {
    if (limit === undefined) return undefined;
    let decision: Awaited<ReturnType<RateLimitStore["take"]>>;
    try {
      decision = await rateLimits.take(`proxy:${key}`, limit, clock.now());
    } catch {
      return limitUnavailable();
    }
    return decision._tag === "Limited"
      ? rateLimited(decision.retryAfterMs, limit.calls, limit.perSeconds)
      : undefined;
  };

  /** Tells `onUsage` and the usage store of one request's usage. */
  const record = (usage: Usage, { user, model, key, request, admitted }: Metered<U>): void => {
    try {
      options.onUsage?.({ user, model, usage });
    } catch (error) {
      report(error, request);
    }
    if (admitted !== undefined) budget?.settle(admitted, key, user, usage, request);
    if (options.usage === undefined) return;
    const counts = { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens };
    Promise.resolve()
      .then(() => options.usage?.add(key, counts))
      .catch((error: unknown) => report(error, request));
  };

  const handle = async (
    request: Request,
    node: ServerResponse | undefined,
  ): Promise<Response | undefined> => {
    if (!PATH.test(pathOf(request.url))) throw notFound();
    if (request.method !== "POST") throw methodNotAllowed();
    const user = await options.authenticate(request);
    if (user === undefined || user === null) throw unauthenticated();
    const key = keyOf(user);

    const json = await readRequestJson(request, maxBodyBytes, bodyTimeoutMs);
    if (Either.isLeft(json)) throw fromBody(json.left);
    const checked = checkRequest(json.right, policy);
    if (Either.isLeft(checked)) throw checked.left;
    const limited = await takeLimit(key);
    if (limited !== undefined) throw limited;
    // Last: a refusal before it holds no money; from here the meter's settling gives it back.
    const admitted =
      budget === undefined ? undefined : await budget.admit(key, checked.right, clock.now());

    const meter = usageMeter(record, {
      user,
      model: checked.right.model,
      key,
      request,
      admitted,
    });
    const clamped =
      admitted !== undefined && admitted.maxTokens < checked.right.max_tokens
        ? { max_tokens: admitted.maxTokens }
        : {};
    try {
      return await forward(
        {
          url,
          apiKey: options.apiKey,
          version: request.headers.get("anthropic-version"),
          // Sent as parsed, not as received: upstream reads exactly what was checked (no duplicate
          // keys), with the proxy's own metadata: the signed-in user's opaque id, never the
          // client's; and `max_tokens` as the budget clamped it.
          body: JSON.stringify({
            ...(json.right as object),
            ...clamped,
            metadata: { user_id: userIdOf(key) },
          }),
          timeoutMs,
          clock,
          transport,
          meter,
          ...(admitted === undefined ? {} : { headers: admitted.headers }),
        },
        request,
        node,
      );
    } catch (error) {
      // A bug on the way: the request's money is given back all the same (settling is once).
      if (admitted !== undefined) meter.settle();
      throw error;
    }
  };

  const answer = async (
    request: Request,
    node: ServerResponse | undefined,
  ): Promise<Response | undefined> => {
    try {
      return await handle(request, node);
    } catch (error) {
      if (error instanceof ProxyRefusal) return error.toResponse();
      report(error, request);
      return internalError();
    }
  };
  const proxy = (request: Request) => answer(request, undefined) as Promise<Response>;
  // On node:http (toNodeListener), the answer is written to Node's response itself.
  const onNode: AnswersOnNode = { [ANSWER_ON_NODE]: answer };
  return Object.assign(proxy, onNode);
};
