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
