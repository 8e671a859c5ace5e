/**
 * Where each user's model comes from, tried in order: the app's backend
 * proxy (a bearer token, never an API key in the browser's reach), the
 * user's own key from a secrets store, the host's `ANTHROPIC_API_KEY`.
 * Chosen again at every step, so a key kept or forgotten counts from the
 * next step on.
 */
import type { ClientOptions } from "@anthropic-ai/sdk";
import type { User } from "../../runtime/commands/origin.ts";
import { NoKeySlot, secretSlotOf } from "../../runtime/commands/userKey.ts";
import type { Secrets } from "../../runtime/ports/secrets.ts";
import { type Model, ModelError } from "../../runtime/prompt/model.ts";
import type { SourceName } from "../web/wire.ts";
import { type AnthropicStreaming, anthropic } from "./anthropic.ts";

/** Which source a user's steps go to; `none` when there is none, and a step fails (the wire's `SourceName`). */
export type ModelSourceName = SourceName;

/** The app's backend proxy: its Messages API base URL and the bearer token it reads. */
export interface BackendSource {
  readonly baseURL: string;
  /** The token sent as `authorization: Bearer …`: one for all, or one per user. */
  readonly authToken: string | ((user: User) => string | Promise<string>);
}

/** The SDK client's options every source shares; the credential is the source's own. */
export type SourceClientOptions = Omit<
  ClientOptions,
  "apiKey" | "authToken" | "credentials" | "config" | "profile"
>;

/**
 * Where {@link modelSource} finds each user's credentials: a backend proxy,
 * the users' own keys in `secrets`, or the server's environment
 * (`ANTHROPIC_API_KEY`), tried in that order.
 */
export interface ModelSourceOptions {
  /** The backend proxy: when given, every user's steps go to it, whatever else is set. */
  readonly backend?: BackendSource;
  /** Where users keep their own keys (`POST /__assistant/key` writes there). */
  readonly secrets?: Secrets;
  /** Where `ANTHROPIC_API_KEY` is read: `process.env`, or none when not given. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * The user's key in `secrets`. By default their `id` (a number and a string
   * that spells it are told apart), else their `name`; a user with neither
   * has no key of their own (`NoKeySlot`), never one kept under all they carry.
   */
  readonly userKey?: (user: User) => string;
  /**
   * Options for each SDK client (`fetch`, `maxRetries`, `timeout`, and
   * `baseURL` for a user's key or the environment's), and how to stream.
   */
  readonly client?: SourceClientOptions & AnthropicStreaming;
}

/**
 * A {@link Model} per user, and which source it is. Give `forUser` to the
 * host as `modelFor`; the source is also a `Model` itself, for callers with no
 * user, which uses the backend (when its token is one for all) or the
 * environment.
 */
export interface ModelSource extends Model {
  /** The model a user's steps go to, chosen again at each step. */
  readonly forUser: (user: User) => Model;
  /** Which source the user's next step would go to. */
  readonly which: (user: User) => Promise<ModelSourceName>;
  /** The user's key in the secrets store; throws `NoKeySlot` for a user who can have none. */
  readonly userKey: (user: User) => string;
}

/** How many SDK clients are kept, one per credential; the oldest goes first. */
const MAX_CLIENTS = 256;

const given = (value: string | undefined): value is string =>
  value !== undefined && value.trim() !== "";

/**
 * Chooses each user's model, in order: the `backend` when configured
 * (`anthropic({ baseURL, authToken })`), else the user's key in `secrets`
 * (`anthropic({ apiKey })`), else `ANTHROPIC_API_KEY` from `env`, else none:
 * the step fails with an `auth` {@link ModelError}. One SDK client is kept per
 * credential, so a gateway's refusal to stream is remembered as
 * `anthropic()` remembers it.
 *
 * @example
 * ```ts
 * import { assistantHttp } from "elyra-assistant/http";
 * import { fileSecrets } from "elyra-assistant/secrets";
 *
 * const secrets = fileSecrets("/var/lib/crm/secrets.json");
 * const source = modelSource({ secrets, env: process.env });
 * const host = createHost(app, { model: source, modelFor: source.forUser });
 * const handle = assistantHttp(host, { token, authenticate, secrets, source });
 * ```
 */
export const modelSource = (options: ModelSourceOptions = {}): ModelSource => {
  const userKey = options.userKey ?? secretSlotOf;
  const { backend, secrets, env = {}, client = {} } = options;
  const models = new Map<string, Model>();

  /** The model for one credential, made once. */
  const modelOf = (id: string, make: () => Model): Model => {
    const known = models.get(id);
    if (known !== undefined) return known;
    const model = make();
    models.set(id, model);
    if (models.size > MAX_CLIENTS) models.delete(models.keys().next().value as string);
    return model;
  };

  const backendModel = async (source: BackendSource, user: User | undefined): Promise<Model> => {
    const { authToken } = source;
    if (typeof authToken !== "string" && user === undefined) {
      throw new ModelError({ kind: "auth", message: "the backend's token is per user: no user" });
    }
    const token = typeof authToken === "string" ? authToken : await authToken(user as User);
    return modelOf(`backend\0${token}`, () =>
      anthropic({ ...client, baseURL: source.baseURL, authToken: token }),
    );
  };

  /** The user's own key, when one is kept. */
  const keyOf = async (user: User): Promise<string | undefined> => {
    if (secrets === undefined) return undefined;
    let slot: string;
    try {
      slot = userKey(user);
    } catch (error) {
      // A user who can keep no key has none: their steps go to the next source.
      if (error instanceof NoKeySlot) return undefined;
      throw error;
    }
    const key = await secrets.get(slot);
    return given(key) ? key : undefined;
  };

  const environmentKey = (): string | undefined =>
    given(env.ANTHROPIC_API_KEY) ? env.ANTHROPIC_API_KEY : undefined;

  const none = () =>
    new ModelError({
      kind: "auth",
      message:
        "No model is set up: no backend, no API key of yours, and no ANTHROPIC_API_KEY on the server.",
    });

  /** The model for the user's next step; a store or token that fails says nothing of why. */
  const resolve = (user: User | undefined, hasUser: boolean): Promise<Model> =>
    choose(user, hasUser).catch((error: unknown) => {
      if (error instanceof ModelError) throw error;
      throw new ModelError({ kind: "auth", message: "the model's credentials could not be read" });
    });

  /** The model for the user's next step (none: no user, so no user's key). */
  const choose = async (user: User | undefined, hasUser: boolean): Promise<Model> => {
    if (backend !== undefined) return backendModel(backend, hasUser ? user : undefined);
    const key = hasUser ? await keyOf(user as User) : undefined;
    // A Bearer API key (SDK 1.14); `apiKey` alone keeps the SDK from reading any variable.
    if (key !== undefined)
      return modelOf(`userKey\0${key}`, () => anthropic({ ...client, apiKey: key }));
    const fromEnv = environmentKey();
    if (fromEnv !== undefined)
      return modelOf(`environment\0${fromEnv}`, () => anthropic({ ...client, apiKey: fromEnv }));
    throw none();
  };

  return {
    step: async (request, stepOptions) =>
      (await resolve(undefined, false)).step(request, stepOptions),
    forUser: (user) => ({
      step: async (request, stepOptions) => (await resolve(user, true)).step(request, stepOptions),
    }),
    which: async (user) => {
      if (backend !== undefined) return "backend";
      if ((await keyOf(user)) !== undefined) return "userKey";
      if (environmentKey() !== undefined) return "environment";
      return "none";
    },
    userKey,
  };
};
