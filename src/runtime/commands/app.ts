import { Either, Schema } from "effect";
import type { RateLimit } from "../calls/rateLimit.ts";
import { AppConfigError, CommandDefinitionError } from "../errors.ts";
import { PriceTable } from "../usage/prices.ts";
import { coveredByAny, isAbilityPattern } from "./abilities.ts";
import type { AnyCommand, Command } from "./command.ts";
import { issueLines, issuesOf } from "./issues.ts";
import type { User } from "./origin.ts";

const Pattern = Schema.String.pipe(
  Schema.filter(isAbilityPattern, {
    message: () => 'must be an ability, "resource.*" or "*"',
  }),
);

const RateLimitSchema = Schema.Struct({
  calls: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)),
  perSeconds: Schema.Number.pipe(Schema.finite(), Schema.positive()),
});

const grantFields = {
  allow: Schema.Array(Pattern),
  confirm: Schema.optionalWith(Schema.Array(Pattern), { default: () => [] }),
  rateLimit: Schema.optional(RateLimitSchema),
};

/**
 * The grant a surface (the assistant or MCP) has: which abilities, which are
 * asked first, its limit. The schema `createApp` checks `mcp` (and the
 * grant part of `assistant`) with; decode with it to check a grant kept in
 * configuration before the app starts.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * const mcp = Schema.decodeUnknownSync(GrantConfig)({
 *   allow: ["customers.view"],
 *   rateLimit: { calls: 30, perSeconds: 60 },
 * });
 * mcp.confirm; // []: nothing is asked first unless listed
 * ```
 */
export const GrantConfig = Schema.Struct(grantFields);

/** The model an assistant is asked by unless `model` is given. */
export const DEFAULT_MODEL = "claude-sonnet-5-5";

/** The model steps a turn may take unless `maxSteps` is given. */
export const DEFAULT_MAX_STEPS = 8;
/**
 * The tokens a conversation may use, counted at cost, unless
 * `maxTokensPerConversation` is given: 200 turns of a 150-command app, each
 * a tool step and an answer, used 1.16 million on the stand-in Messages
 * API with its prompt cache, so this is about four such days of heavy use.
 */
export const DEFAULT_TOKEN_BUDGET = 5_000_000;
/** With `toolSearch: "auto"`, a turn offered more tools than this searches them, unless `toolSearchAboveTools` is given. */
export const DEFAULT_TOOL_SEARCH_ABOVE_TOOLS = 30;
/** With `toolSearch: "auto"`, tool definitions estimated over this many tokens are searched, unless `toolSearchAboveTokens` is given. */
export const DEFAULT_TOOL_SEARCH_ABOVE_TOKENS = 10_000;
/** The earlier turns are summarised when estimated over this many tokens, unless `compactHistoryAbove` is given. */
export const DEFAULT_COMPACT_HISTORY_ABOVE = 40_000;
/** The turns kept word for word after a summary, unless `compactKeepTurns` is given. */
export const DEFAULT_COMPACT_KEEP_TURNS = 2;
/** A turn's older tool results are cleared when estimated over this many tokens, unless `clearToolResultsAbove` is given. */
export const DEFAULT_CLEAR_TOOL_RESULTS_ABOVE = 20_000;
/** The latest tool results a clearing keeps, unless `clearKeepToolResults` is given. */
export const DEFAULT_CLEAR_KEEP_TOOL_RESULTS = 3;

/** A threshold in estimated tokens, or `false` for never. */
const Threshold = Schema.Union(Schema.Int.pipe(Schema.positive()), Schema.Literal(false));

/**
 * The assistant's grant and settings; every setting has its documented
 * default. The schema `createApp` checks `assistant` with: decoding fills in
 * the defaults, and refuses a field that is not one of its own.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * const assistant = Schema.decodeUnknownSync(AssistantConfig)({ allow: ["invoices.*"] });
 * assistant.maxSteps; // 8
 * assistant.maxTokensPerConversation; // 5000000
 * assistant.codeMode; // false
 * assistant.toolSearch; // "auto": searched when over 30 tools or 10 000 tokens of them
 * assistant.toolSearchTool; // "tool_search_tool_bm25_20251119"
 * ```
 */
export const AssistantConfig = Schema.Struct({
  ...grantFields,
  instructions: Schema.optionalWith(Schema.String, { default: () => "" }),
  model: Schema.optionalWith(Schema.NonEmptyString, { default: () => DEFAULT_MODEL }),
  maxSteps: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 64)), {
    default: () => DEFAULT_MAX_STEPS,
  }),
  maxTokensPerConversation: Schema.optionalWith(Schema.Int.pipe(Schema.positive()), {
    default: () => DEFAULT_TOKEN_BUDGET,
  }),
  windowContext: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  codeMode: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  /** The code execution tool's type sent in code mode. */
  codeExecutionTool: Schema.optionalWith(
    Schema.String.pipe(Schema.pattern(/^code_execution_\d{8}$/)),
    { default: () => "code_execution_20260120" },
  ),
  /**
   * Whether a turn's tools are sent deferred (`defer_loading: true`) with
   * Anthropic's tool search tool, which loads the ones the model looks for:
   * always, never, or `"auto"`, when more than `toolSearchAboveTools` are
   * offered or their definitions are estimated over `toolSearchAboveTokens`.
   * The search runs over the request's tools, which are only those offered
   * to the user: it can find nothing else.
   */
  toolSearch: Schema.optionalWith(Schema.Union(Schema.Boolean, Schema.Literal("auto")), {
    default: () => "auto" as const,
  }),
  toolSearchAboveTools: Schema.optionalWith(Schema.Int.pipe(Schema.nonNegative()), {
    default: () => DEFAULT_TOOL_SEARCH_ABOVE_TOOLS,
  }),
  toolSearchAboveTokens: Schema.optionalWith(Schema.Int.pipe(Schema.nonNegative()), {
    default: () => DEFAULT_TOOL_SEARCH_ABOVE_TOKENS,
  }),
  /** The tool search tool's type: BM25 (natural-language queries) or regex, and its version. */
  toolSearchTool: Schema.optionalWith(
    Schema.String.pipe(Schema.pattern(/^tool_search_tool_(bm25|regex)_\d{8}$/)),
    { default: () => "tool_search_tool_bm25_20251119" },
  ),
  /**
   * When the earlier turns, as the model is sent them, are estimated over
   * this many tokens, a turn first asks the model to summarise them and
   * sends the summary (and the last `compactKeepTurns` turns word for word)
   * instead; `false` never summarises. The summary is recorded in the log.
   */
  compactHistoryAbove: Schema.optionalWith(Threshold, {
    default: () => DEFAULT_COMPACT_HISTORY_ABOVE,
  }),
  compactKeepTurns: Schema.optionalWith(Schema.Int.pipe(Schema.between(0, 64)), {
    default: () => DEFAULT_COMPACT_KEEP_TURNS,
  }),
  /**
   * When a turn's tool results are estimated over this many tokens, all but
   * the last `clearKeepToolResults` are replaced, in what the model is sent
   * from then on, by a line saying they were cleared; `false` never clears.
   */
  clearToolResultsAbove: Schema.optionalWith(Threshold, {
    default: () => DEFAULT_CLEAR_TOOL_RESULTS_ABOVE,
  }),
  clearKeepToolResults: Schema.optionalWith(Schema.Int.pipe(Schema.between(0, 64)), {
    default: () => DEFAULT_CLEAR_KEEP_TOOL_RESULTS,
  }),
  /**
   * Prices by model id (US dollars a million tokens) that what conversations
   * cost is reckoned at, over Anthropic's list prices (`DEFAULT_PRICES`): an
   * app with a discount, or a model not listed, gives its own here.
   */
  prices: Schema.optional(PriceTable),
});

/** What `createApp` takes for the assistant (defaults filled in). */
export type AssistantOptions = typeof AssistantConfig.Encoded;
/** What `createApp` takes for MCP. */
export type GrantOptions = typeof GrantConfig.Encoded;

/** A surface's grant, compiled: the commands it makes tools of, and its rules. */
export interface Grant {
  readonly surface: "assistant" | "mcp";
  readonly allow: ReadonlyArray<string>;
  readonly confirm: ReadonlyArray<string>;
  readonly rateLimit: RateLimit | undefined;
  /** Granted commands that have an ability, by name: the surface's catalog. */
  readonly tools: ReadonlyMap<string, Command>;
  /** Whether the grant covers an ability. */
  readonly covers: (ability: string) => boolean;
  /** Whether an ability is asked first on this surface. */
  readonly needsConfirm: (ability: string) => boolean;
}

/** The app's declaration, given to {@link createApp}. */
export interface AppSpec {
  readonly commands: ReadonlyArray<AnyCommand>;
  /** The abilities (exact or patterns) the user has now; asked at every check. */
  readonly userAbilities: (user: User) => Iterable<string>;
  /** The in-app assistant; without it the app has no assistant. */
  readonly assistant?: AssistantOptions;
  /** The grant for external agents over MCP; a separate grant from the assistant's. */
  readonly mcp?: GrantOptions;
}

/** An app: its commands, how to read a user's abilities, and its grants. */
export interface App {
  readonly commands: ReadonlyMap<string, Command>;
  readonly userAbilities: (user: User) => Iterable<string>;
  readonly assistant:
    | (Grant & Omit<typeof AssistantConfig.Type, keyof typeof grantFields>)
    | undefined;
  readonly mcp: Grant | undefined;
}

/**
 * Puts the app's commands and grants together. Nothing is a tool until a grant
 * allows its ability.
 *
 * @throws {CommandDefinitionError} when two commands share a name.
 * @throws {AppConfigError} for a grant or setting that is not valid, naming the field.
 *
 * @example
 * ```ts
 * const app = createApp({
 *   commands: [customersShow],
 *   userAbilities: (user) => user.abilities,
 *   assistant: { allow: ["customers.*"], confirm: ["customers.delete"] },
 *   mcp: { allow: ["customers.view"] },
 * });
 * ```
 */
export const createApp = (spec: AppSpec): App => {
  if (typeof spec.userAbilities !== "function") {
    throw new AppConfigError({ reason: "userAbilities must be a function of the user" });
  }
  const commands = new Map<string, Command>();
  for (const command of spec.commands) {
    if (commands.has(command.name)) {
      throw new CommandDefinitionError({
        command: command.name,
        reason: "another command has this name",
      });
    }
    commands.set(command.name, command as Command);
  }
  const assistant =
    spec.assistant === undefined ? undefined : decode(AssistantConfig, spec.assistant, "assistant");
  const mcp = spec.mcp === undefined ? undefined : decode(GrantConfig, spec.mcp, "mcp");
  return {
    commands,
    userAbilities: spec.userAbilities,
    assistant:
      assistant === undefined
        ? undefined
        : { ...assistant, ...compileGrant("assistant", assistant, commands) },
    mcp: mcp === undefined ? undefined : compileGrant("mcp", mcp, commands),
  };
};

const decode = <A, I>(schema: Schema.Schema<A, I, never>, input: unknown, field: string): A => {
  const result = Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "error" })(
    input,
  );
  if (Either.isRight(result)) return result.right;
  const lines = issueLines(issuesOf(result.left)).map((line) => `${field}.${line}`);
  throw new AppConfigError({ reason: lines.join("; ") });
};

const compileGrant = (
  surface: Grant["surface"],
  config: typeof GrantConfig.Type,
  commands: ReadonlyMap<string, Command>,
): Grant => {
  const covers = (ability: string) => coveredByAny(config.allow, ability);
  const tools = new Map<string, Command>();
  for (const command of commands.values()) {
    if (command.can !== undefined && covers(command.can)) tools.set(command.name, command);
  }
  return {
    surface,
    allow: config.allow,
    confirm: config.confirm,
    rateLimit: config.rateLimit,
    tools,
    covers,
    needsConfirm: (ability) => coveredByAny(config.confirm, ability),
  };
};

/**
 * Whether the user has an ability now, by the app's `userAbilities`. A
 * `userAbilities` that throws denies.
 */
export const userHas = (app: App, user: User, ability: string): boolean => {
  try {
    return coveredByAny(app.userAbilities(user), ability);
  } catch {
    return false;
  }
};
