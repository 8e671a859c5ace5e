import { Data } from "effect";

/**
 * A command declaration that cannot be used: thrown by `defineCommand` and
 * `createApp`, naming the command and what is wrong, so a mistake shows when
 * the app starts rather than when the model calls the tool.
 *
 * @example
 * ```ts
 * import { Schema } from "effect";
 *
 * try {
 *   defineCommand({
 *     name: "show customer",
 *     description: "Show one customer by id.",
 *     args: { id: Schema.Number },
 *     run: ({ id }) => ({ id }),
 *   });
 * } catch (error) {
 *   if (error instanceof CommandDefinitionError) console.error(error.reason);
 *   // "the name must be 1 to 64 letters, digits, _ or - (a tool name)"
 * }
 * ```
 */
export class CommandDefinitionError extends Data.TaggedError("CommandDefinitionError")<{
  readonly command: string;
  readonly reason: string;
}> {
  override get message(): string {
    return `command ${JSON.stringify(this.command)}: ${this.reason}`;
  }
}

/**
 * An app configuration that cannot be used: thrown by `createApp`, its
 * `reason` naming each field that is wrong.
 *
 * @example
 * ```ts
 * try {
 *   createApp({ commands, userAbilities, assistant: { allow: ["invoices.**"] } });
 * } catch (error) {
 *   if (error instanceof AppConfigError) console.error(error.message);
 *   // 'createApp: assistant.allow[0]: must be an ability, "resource.*" or "*"'
 * }
 * ```
 */
export class AppConfigError extends Data.TaggedError("AppConfigError")<{
  readonly reason: string;
}> {
  override get message(): string {
    return `createApp: ${this.reason}`;
  }
}

/**
 * A store the app passed in that broke its port's contract (an `EventStore`
 * whose `append` resolved without the events it wrote): thrown where the
 * library finds out.
 *
 * @example
 * ```ts
 * const explain = (error: unknown) =>
 *   error instanceof StoreContractBroken ? `fix the ${error.port}: ${error.reason}` : String(error);
 * ```
 */
export class StoreContractBroken extends Data.TaggedError("StoreContractBroken")<{
  /** The port, e.g. `EventStore`. */
  readonly port: string;
  readonly reason: string;
}> {
  override get message(): string {
    return `${this.port}: ${this.reason}`;
  }
}

/** Something this library holds true was not: a bug in elyra-assistant, never the app's doing. */
export class InvariantBroken extends Data.TaggedError("InvariantBroken")<{
  /** The module that found it. */
  readonly where: string;
  readonly reason: string;
}> {
  override get message(): string {
    return `${this.where}: ${this.reason} (a bug in elyra-assistant)`;
  }
}

/**
 * A machine run without an actor it needs: provide it with `machine.provide({ actors })`.
 *
 * @example
 * ```ts
 * import { createActor } from "xstate";
 *
 * // No steps actor is provided: the first prompt crashes the actor.
 * const actor = createActor(conversationMachine, {
 *   input: { maxSteps: 8, tokenBudget: 200_000 },
 * });
 * actor.subscribe({
 *   error: (error) => {
 *     if (error instanceof ActorNotProvided) console.error(error.message); // names the machine and the actor
 *   },
 * });
 * ```
 */
export class ActorNotProvided extends Data.TaggedError("ActorNotProvided")<{
  readonly machine: string;
  readonly actor: string;
}> {
  override get message(): string {
    return `the ${this.machine} machine needs its "${this.actor}" actor: provide it with ${this.machine}Machine.provide({ actors: { ${this.actor} } })`;
  }
}
