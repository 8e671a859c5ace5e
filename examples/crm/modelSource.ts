/**
 * Which model the example CRM talks to, from the environment: Claude with an
 * API key, Claude through a backend proxy, or the offline demo model; and,
 * for a user who saved a key of their own in the panel's settings, Claude
 * with that key.
 */
import { type Model, ModelError, type Secrets } from "elyra-assistant";
import { anthropic, modelSource } from "elyra-assistant/anthropic";
import type { SourceName, SourceOfUsers } from "elyra-assistant/http";
import { DEMO_NOTICE, demoModel } from "./demoModel.ts";

/** What the panel says while `npm run proxy` forwards to its offline stand-in, not Claude. */
export const OFFLINE_PROXY_NOTICE =
  "Offline stand-in: answers come through the local proxy from a stand-in of the Messages API, not Claude. Set ANTHROPIC_API_KEY and run npm run proxy again to reach Claude.";

/** A model and what to say about it. */
export interface ModelChoice {
  readonly model: Model;
  /** Printed at start: which model answers. */
  readonly label: string;
  /** Shown in the panel (its `notice`), or null. */
  readonly notice: string | null;
  /** Which source it is, as `POST /source` names it: `app` for the demo model (the CRM's own, not Claude). */
  readonly source: SourceName;
}

const set = (value: string | undefined): value is string =>
  value !== undefined && value.trim() !== "";

/**
 * - `ANTHROPIC_API_KEY` set: Claude, with that key;
 * - else `ELYRA_PROXY_URL` set: Claude through the proxy at that URL, with
 *   `ELYRA_PROXY_TOKEN` as the bearer token the proxy's `authenticate` reads;
 * - else the demo model: scripted answers, no network.
 */
export const modelFromEnv = (env: Readonly<Record<string, string | undefined>>): ModelChoice => {
  if (set(env.ANTHROPIC_API_KEY)) {
    return {
      model: anthropic({ apiKey: env.ANTHROPIC_API_KEY }),
      label: "Claude (ANTHROPIC_API_KEY)",
      notice: null,
      source: "environment",
    };
  }
  if (set(env.ELYRA_PROXY_URL)) {
    return {
      // The SDK wants some credential; a proxy that knows its users another way ignores this one.
      model: anthropic({
        baseURL: env.ELYRA_PROXY_URL,
        // Never the API key: the proxy holds it.
        apiKey: null,
        authToken: set(env.ELYRA_PROXY_TOKEN) ? env.ELYRA_PROXY_TOKEN : "elyra-crm",
      }),
      label: `Claude through the proxy at ${env.ELYRA_PROXY_URL}`,
      notice: null,
      source: "backend",
    };
  }
  return {
    model: demoModel(),
    label:
      "the offline demo model (scripted answers, not Claude; set ANTHROPIC_API_KEY to talk to Claude)",
    notice: DEMO_NOTICE,
    source: "app",
  };
};

/** The CRM's models with users' own keys: the host's `modelFor`, and the source `/source` and `/key` ask. */
export interface KeyedModels {
  readonly modelFor: (user: unknown) => Model;
  readonly source: SourceOfUsers;
}

/**
 * The panel's banner for a user's source, as `POST /source` sends it: the
 * CRM's own model's notice (the demo's, say), and none once the user's own
 * key answers (Claude, with their key).
 */
export const noticeFor =
  (choice: ModelChoice) =>
  (_user: unknown, source: SourceName): string | null =>
    source === "userKey" ? null : choice.notice;

/**
 * Each user's model: the backend proxy when the CRM has one (it comes
 * first, as in `modelSource()`); else Claude with the user's own key when
 * they saved one in the panel's settings (`anthropic({ apiKey })`, read from
 * `secrets` at each step); else the CRM's own model.
 */
export const withUserKeys = (choice: ModelChoice, secrets: Secrets): KeyedModels => {
  // No env and no backend: this source answers with a user's key or not at all.
  const keys = modelSource({ secrets });
  const which = async (user: unknown): Promise<SourceName> => {
    if (choice.source === "backend") return "backend";
    return (await keys.which(user)) === "userKey" ? "userKey" : choice.source;
  };
  return {
    modelFor: (user) => ({
      step: async (request, options) =>
        ((await which(user)) === "userKey" ? keys.forUser(user) : choice.model).step(
          request,
          options,
        ),
    }),
    source: { which, userKey: keys.userKey },
  };
};

/**
 * `model`, its failures also written to the server's log (`log`, console.error
 * by default): a bad key or a network fault shows in the panel and in the
 * terminal that ran `npm start`. A step the user stopped is not a failure.
 */
export const loggingFailures = (
  model: Model,
  log: (line: string) => void = (line) => console.error(line),
): Model => ({
  step: async (request, options) => {
    try {
      return await model.step(request, options);
    } catch (error) {
      if (!options.signal.aborted) {
        const why =
          error instanceof ModelError
            ? `${error.kind}: ${error.message}`
            : error instanceof Error
              ? error.message
              : String(error);
        log(`Elyra CRM: a model request failed (${why})`);
      }
      throw error;
    }
  },
});
