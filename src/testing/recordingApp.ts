/**
 * A shadow of an app for property tests: the same declarations (grants,
 * abilities, schemas, confirm lists, rate limits, user abilities), each
 * command's `run` replaced by a recorder, so the call path is checked against
 * the app's real rules while nothing touches its data.
 */
import type { App, Grant } from "../runtime/commands/app.ts";
import type { Command } from "../runtime/commands/command.ts";

/** One run the recorder saw: the tool and the decoded arguments it ran with. */
export interface RecordedRun {
  readonly tool: string;
  readonly args: unknown;
}

/** A shadow app and what ran on it. */
export interface RecordingApp {
  readonly app: App;
  /** The runs since the last `take()`, which empties the list. */
  readonly take: () => ReadonlyArray<RecordedRun>;
}

/**
 * Shadows `app`. `"record"`: each `run` records its call and returns
 * nothing, and each `confirmLabel` is left out (both may read or write your
 * data). `"real"`: each run is recorded, then your own `run` and labels run
 * too, on whatever data the app was made over.
 */
export const recordingApp = (app: App, mode: "record" | "real" = "record"): RecordingApp => {
  let runs: RecordedRun[] = [];
  const shadows = new Map<Command, Command>();
  const shadowOf = (command: Command): Command => {
    const known = shadows.get(command);
    if (known !== undefined) return known;
    const shadow: Command = {
      ...command,
      run: (args, ctx) => {
        runs.push({ tool: command.name, args });
        return mode === "real" ? command.run(args, ctx) : undefined;
      },
      confirmation:
        mode === "real" ? command.confirmation : { ...command.confirmation, label: undefined },
    };
    shadows.set(command, shadow);
    return shadow;
  };
  const shadowGrant = <G extends Grant>(grant: G | undefined): G | undefined =>
    grant === undefined
      ? undefined
      : { ...grant, tools: new Map([...grant.tools].map(([name, c]) => [name, shadowOf(c)])) };
  return {
    app: {
      ...app,
      commands: new Map([...app.commands].map(([name, c]) => [name, shadowOf(c)])),
      assistant: shadowGrant(app.assistant),
      mcp: shadowGrant(app.mcp),
    },
    take: () => {
      const taken = runs;
      runs = [];
      return taken;
    },
  };
};
