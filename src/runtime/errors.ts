import { Data } from "effect";

/** A command declaration that cannot be used: thrown by `defineCommand` and `createApp`. */
export class CommandDefinitionError extends Data.TaggedError("CommandDefinitionError")<{
  readonly command: string;
  readonly reason: string;
}> {
  override get message(): string {
    return `command ${JSON.stringify(this.command)}: ${this.reason}`;
  }
}

/** An app configuration that cannot be used: thrown by `createApp`. */
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

/** A machine run without an actor it needs: provide it with `machine.provide({ actors })`. */
export class ActorNotProvided extends Data.TaggedError("ActorNotProvided")<{
  readonly machine: string;
  readonly actor: string;
}> {
  override get message(): string {
    return `the ${this.machine} machine needs its "${this.actor}" actor: provide it with ${this.machine}Machine.provide({ actors: { ${this.actor} } })`;
  }
}
