import { SchemaAST as AST, Either, JSONSchema, type ParseResult, Schema } from "effect";
import { isRateLimit, type RateLimit } from "../calls/rateLimit.ts";
import { CommandDefinitionError } from "../errors.ts";
import { isAbility, resourceOf } from "./abilities.ts";
import { argumentDecoder } from "./argumentDecoder.ts";
import { type ConfirmationSpec, type ConfirmLabel, confirmationOf } from "./confirmation.ts";
import { type ArgumentExamples, examplesOf } from "./examples.ts";
import { type LinkTemplate, parseLink } from "./link.ts";
import type { RunOrigin, User } from "./origin.ts";
import { type McpToolHints, toolHintsOf } from "./toolHints.ts";

/** What a command's `run` gets besides its arguments. */
export interface CommandContext {
  /** The signed-in user the call is made for. */
  readonly user: User;
  /** The assistant, an external agent over MCP, or the app's own screen (a live query). */
  readonly origin: RunOrigin;
  /** Aborted when the call is stopped; pass it on to I/O. */
  readonly signal: AbortSignal;
}

/** A JSON Schema document, as generated from `effect/Schema`. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** Any schema that needs no context to decode or encode. */
// biome-ignore lint/suspicious/noExplicitAny: a schema of any type
export type AnySchema = Schema.Schema<any, any, never>;

/** The declaration given to {@link defineCommand}. */
export interface CommandSpec<F extends Schema.Struct.Fields, R extends AnySchema> {
  /** The tool name: letters, digits, `_` and `-`, at most 64. */
  readonly name: string;
  /** Written for the model and for people: what it does, when to use it. */
  readonly description: string;
  /**
   * A title for people, one line of at most 100 characters, such as "Delete
   * customer": the MCP tool's title. Default: the name read as what it
   * does (`customers_destroy` → "Delete a customer", `invoices_index` →
   * "List invoices"), else its words.
   */
  readonly title?: string;
  /**
   * What it does, for people: the line a confirmation shows under its
   * sentence, such as "Deletes the customer and all of their invoices. It
   * cannot be undone." The `description` is the model's and is never shown
   * there. One line of at most 300 characters; none by default.
   */
  readonly summary?: string;
  /** The ability it takes. Without one the command is never a tool. */
  readonly can?: string;
  /** Read-only and cheap: it may back a live query of a window. */
  readonly live?: boolean;
  /**
   * The resources a successful call changes: their live queries run again.
   * Default: the resource of `can` (`customers.update` → `customers`) for a
   * command that is not `live`; nothing for a live one.
   */
  readonly invalidates?: ReadonlyArray<string>;
  /** An app path filled on success, e.g. `/customers/{id}` or `/invoices/{result.id}`. */
  readonly link?: string;
  /** The arguments, named, in positional order. */
  readonly args: F;
  /**
   * Example arguments for the model, written as JSON (the arguments'
   * encoded form: a date as its string): the tool's `input_examples`, shown
   * with its schema on every request. Each is decoded with `args` when the
   * command is declared; at most 5, each at most 2 048 bytes of JSON.
   *
   * @example
   * ```ts
   * import { Schema } from "effect";
   *
   * const invoicesCreate = defineCommand({
   *   name: "invoices_create",
   *   description: "Issue an invoice to a customer.",
   *   can: "invoices.create",
   *   args: {
   *     customerId: Schema.Number,
   *     amount: Schema.Number,
   *     dueOn: Schema.optional(Schema.DateFromString),
   *   },
   *   examples: [{ customerId: 42, amount: 1200 }, { customerId: 7, amount: 80, dueOn: "2026-07-01" }],
   *   run: (args) => db.invoices.create(args),
   * });
   * ```
   */
  readonly examples?: ReadonlyArray<Schema.Struct.Encoded<F>>;
  /** The result's schema; results are encoded with it before the model sees them. */
  readonly result?: R;
  /** A rate limit for this tool, overriding the grant's. */
  readonly rateLimit?: RateLimit;
  /**
   * When the grant asks the user first: the sentence the dialog (and an MCP
   * client's form) leads with, from the decoded arguments and the user, e.g.
   * "Delete Grace Hamilton (customer 42) and her 3 invoices?". Run on the
   * server before asking; a throw, a rejection, no string, or no answer in
   * 2 s shows the default (the tool's name and description) instead.
   */
  readonly confirmLabel?: ConfirmLabel<Schema.Struct.Type<F>>;
  /**
   * The accept button is styled and worded as destructive and is never
   * focused first. Default: the ability's verb is `delete`, `destroy`,
   * `remove`, `purge` or `erase`.
   */
  readonly destructive?: boolean;
  /** The accept button's word: default `Delete` when destructive, else `Confirm`. */
  readonly confirmAction?: string;
  /**
   * Arguments the user may change on the confirmation before approving. The
   * edited arguments are decoded with `args`, checked again (ability, rate
   * limit) and run instead of the model's; the model is told what ran.
   */
  readonly editable?: ReadonlyArray<keyof F & string>;
  /**
   * The MCP tool's annotations, each overriding what is derived: `title`,
   * `readOnlyHint` (default `live`), `destructiveHint` (default: the
   * command is destructive, never for a read-only tool),
   * `idempotentHint` (sent only when given), `openWorldHint` (default false).
   */
  readonly mcp?: McpToolHints;
  /** Does the work. Throwing (or rejecting) is a failed call the model is told about. */
  readonly run: (
    args: Schema.Struct.Type<F>,
    ctx: CommandContext,
  ) => Schema.Schema.Type<R> | Promise<Schema.Schema.Type<R>>;
}

/** A command as the app holds it: the declaration, checked, with what is derived from it. */
export interface Command<A = unknown, R = unknown> {
  readonly name: string;
  readonly description: string;
  /** The declared title, trimmed; MCP falls back to one read from the name. */
  readonly title?: string;
  /** What it does, for people (its confirmation shows it), trimmed: none unless declared. */
  readonly summary?: string;
  readonly can: string | undefined;
  readonly live: boolean;
  /** The resources a successful call changes (their live queries run again). */
  readonly invalidates: ReadonlyArray<string>;
  readonly link: string | undefined;
  readonly linkTemplate: LinkTemplate | undefined;
  readonly rateLimit: RateLimit | undefined;
  /** Argument names in positional order. */
  readonly argumentNames: ReadonlyArray<string>;
  /** The arguments as one struct schema. */
  readonly args: Schema.Schema<A, unknown, never>;
  readonly result: Schema.Schema<R, unknown, never> | undefined;
  /** The input JSON Schema of the tool (with `$defs` where the schema has named parts). */
  readonly inputSchema: JsonSchema;
  /**
   * The declared example arguments as the JSON the model is sent (the
   * tool's `input_examples`), each decoded by `args`: absent when none.
   */
  readonly examples?: ArgumentExamples;
  /** The output JSON Schema, when the command has a result schema. */
  readonly outputSchema: JsonSchema | undefined;
  readonly run: (args: A, ctx: CommandContext) => R | Promise<R>;
  /** How the user is asked when the grant asks first: label, destructive, editable arguments. */
  readonly confirmation: ConfirmationSpec<A>;
  /** The declared MCP hints, checked (`mcp` of the declaration). */
  readonly mcp?: McpToolHints;
  /**
   * Decodes untrusted input; properties the schema lacks are errors. Input
   * nested deeper than 64 levels is refused before it is decoded; a refusal
   * reports the first issues, as many as are told, at a cost linear in the
   * input however many of its elements are wrong.
   */
  readonly decode: (input: unknown) => Either.Either<A, ParseResult.ParseError>;
  /** Encodes a result for the model; without a result schema the value is passed on. */
  readonly encodeResult: (value: R) => Either.Either<unknown, ParseResult.ParseError>;
}

/**
 * `Schema.Struct({})` is TypeScript's `{}`: any value but null and undefined.
 * A command without arguments takes exactly an empty object.
 */
const NoArguments = Schema.Struct({}).pipe(
  Schema.filter(
    (value) =>
      (typeof value === "object" &&
        value !== null &&
        !Array.isArray(value) &&
        Object.keys(value).length === 0) ||
      "this tool takes no arguments: send {}",
  ),
);

/** A command of any argument and result types, as an app's list holds them. */
// biome-ignore lint/suspicious/noExplicitAny: commands of any argument and result types
export type AnyCommand = Command<any, any>;

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Declares an app command once: the tool the model sees, the check that runs
 * before it, and the work it does are all derived from this.
 *
 * @throws {CommandDefinitionError} for a bad name, an ability that is not one,
 * a schema that has no JSON Schema, or a link that is not an app path or names
 * a placeholder that is neither an argument nor `result.<field>`, a `title`
 * or `mcp` hint that is not one, or `examples` its arguments refuse (the
 * sentence names the example by its index), more than 5 or one over
 * 2 048 bytes of JSON.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 * const customersShow = defineCommand({
 *   name: "customers_show",
 *   description: "Show one customer by id.",
 *   can: "customers.view",
 *   live: true,
 *   link: "/customers/{id}",
 *   args: { id: Schema.Number },
 *   run: ({ id }) => ({ id, name: "Ada" }),
 * });
 * ```
 */
export const defineCommand = <
  const F extends Schema.Struct.Fields,
  R extends AnySchema = typeof Schema.Unknown,
>(
  spec: CommandSpec<F, R>,
): Command<Schema.Struct.Type<F>, Schema.Schema.Type<R>> => {
  const name = String(spec.name);
  const fail = (reason: string): never => {
    throw new CommandDefinitionError({ command: name, reason });
  };
  if (!TOOL_NAME.test(name)) fail("the name must be 1 to 64 letters, digits, _ or - (a tool name)");
  if (typeof spec.description !== "string" || spec.description.trim() === "")
    fail("the description is empty");
  if (spec.can !== undefined && !isAbility(spec.can)) {
    fail(`can ${JSON.stringify(spec.can)} is not an ability (dot-separated names, no wildcard)`);
  }
  if (typeof spec.run !== "function") fail("run is not a function");
  if (
    spec.invalidates !== undefined &&
    (!Array.isArray(spec.invalidates) || !spec.invalidates.every((r) => isAbility(String(r))))
  ) {
    fail('invalidates must list resources such as "customers" (dot-separated names)');
  }
  const invalidates =
    spec.invalidates !== undefined
      ? [...spec.invalidates]
      : spec.live !== true && spec.can !== undefined
        ? [resourceOf(spec.can)]
        : [];
  if (spec.rateLimit !== undefined && !isRateLimit(spec.rateLimit)) {
    fail("rateLimit needs whole calls ≥ 1 over a positive, finite perSeconds");
  }
  const argumentNames = Object.keys(spec.args);
  const args = (argumentNames.length === 0
    ? NoArguments
    : Schema.Struct(spec.args)) as unknown as Schema.Schema<Schema.Struct.Type<F>, unknown, never>;
  const result = spec.result as unknown as
    | Schema.Schema<Schema.Schema.Type<R>, unknown, never>
    | undefined;
  // An empty struct is `{}` to JSON Schema (any object or array); a tool's input is always an object.
  const inputSchema =
    argumentNames.length === 0
      ? { type: "object", required: [], properties: {}, additionalProperties: false }
      : jsonSchemaOf(args, "args", fail);
  const outputSchema = result === undefined ? undefined : jsonSchemaOf(result, "result", fail);
  let linkTemplate: LinkTemplate | undefined;
  if (spec.link !== undefined) {
    const parsed = parseLink(spec.link, argumentNames, resultFieldsOf(result));
    if (parsed._tag === "Invalid") fail(parsed.problem);
    else linkTemplate = parsed.template;
  }
  const confirmation = confirmationOf<Schema.Struct.Type<F>>(spec, argumentNames, inputSchema);
  if (typeof confirmation === "string") fail(confirmation);
  const hints = toolHintsOf({
    ...spec,
    destructive: typeof confirmation === "string" ? undefined : confirmation.destructive,
  });
  if (typeof hints === "string") fail(hints);
  const summary = spec.summary === undefined ? undefined : String(spec.summary).trim();
  if (summary !== undefined && (summary === "" || summary.length > 300 || /[\r\n]/.test(summary)))
    fail("summary must be one line of 1 to 300 characters, for people");
  const decode = argumentDecoder(args);
  const examples = spec.examples === undefined ? undefined : examplesOf(spec.examples, decode);
  if (typeof examples === "string") return fail(examples);
  const encode = result === undefined ? undefined : Schema.encodeEither(result, { errors: "all" });
  return {
    name,
    description: spec.description,
    ...(summary === undefined ? {} : { summary }),
    can: spec.can,
    live: spec.live === true,
    invalidates,
    link: spec.link,
    linkTemplate,
    rateLimit: spec.rateLimit,
    argumentNames,
    args,
    result,
    inputSchema,
    ...(examples === undefined || examples.length === 0 ? {} : { examples }),
    outputSchema,
    run: spec.run as Command<Schema.Struct.Type<F>, Schema.Schema.Type<R>>["run"],
    confirmation: confirmation as ConfirmationSpec<Schema.Struct.Type<F>>,
    ...(hints as Exclude<typeof hints, string>),
    decode,
    encodeResult: (value) => (encode === undefined ? Either.right(value) : encode(value)),
  };
};

const jsonSchemaOf = (
  schema: AnySchema,
  what: string,
  fail: (reason: string) => never,
): JsonSchema => {
  try {
    const { $schema: _drop, ...rest } = JSONSchema.make(schema) as unknown as Record<
      string,
      unknown
    >;
    return rest;
  } catch (error) {
    return fail(
      `${what} cannot be described as JSON Schema: ${(error as Error).message.split("\n")[0]}`,
    );
  }
};

const resultFieldsOf = (result: AnySchema | undefined): ReadonlyArray<string> | "any" | "none" => {
  if (result === undefined) return "none";
  let ast = AST.encodedAST(result.ast);
  while (AST.isRefinement(ast)) ast = ast.from;
  if (AST.isTypeLiteral(ast)) return ast.propertySignatures.map((p) => String(p.name));
  return "any";
};
