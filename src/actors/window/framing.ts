/**
 * What frames a window's turns: where its conversation starts (its bounds,
 * and the turn and tokens its log has), the system prompt (today, the user's
 * name, the app's instructions) and the window note (the route, the window's
 * live queries and selections, among the tools offered now).
 */
import type { ConversationEvent, ConversationInput } from "../../machines/conversationMachine.ts";
import { type App, DEFAULT_MAX_STEPS, DEFAULT_TOKEN_BUDGET } from "../../runtime/commands/app.ts";
import { offered } from "../../runtime/commands/catalog.ts";
import type { User } from "../../runtime/commands/origin.ts";
import type { SelectionsState } from "../../runtime/log/projections.ts";
import { routeOf } from "../../runtime/log/selection.ts";
import type { ContextBounds } from "../../runtime/prompt/compaction.ts";
import { requestTools } from "../../runtime/prompt/requestTools.ts";
import { isoDate, systemPrompt } from "../../runtime/prompt/systemPrompt.ts";
import { withToolSearch } from "../../runtime/prompt/toolSearch.ts";
import { windowNote } from "../../runtime/prompt/windowNote.ts";
import type { PromptInput } from "../assistantWindow.ts";
import type { WindowLog } from "../log/windowLog.ts";
import type { WindowDeps } from "./deps.ts";

/** The app's bounds, one object an app: every window's conversation shares it. */
const boundsCache = new WeakMap<NonNullable<App["assistant"]>, ContextBounds>();
const boundsOf = (assistant: NonNullable<App["assistant"]>): ContextBounds => {
  let bounds = boundsCache.get(assistant);
  if (bounds === undefined) {
    bounds = {
      compactAbove: assistant.compactHistoryAbove,
      keepTurns: assistant.compactKeepTurns,
      clearAbove: assistant.clearToolResultsAbove,
      keepResults: assistant.clearKeepToolResults,
    };
    boundsCache.set(assistant, bounds);
  }
  return bounds;
};

/** Where a window's conversation starts: the app's bounds, and the turn and tokens its log has. */
export const conversationFrom = (
  log: Pick<WindowLog, "status" | "usage">,
  assistant: App["assistant"],
  codeCallDeadlineMs: number | undefined,
): ConversationInput => ({
  maxSteps: assistant?.maxSteps ?? DEFAULT_MAX_STEPS,
  tokenBudget: assistant?.maxTokensPerConversation ?? DEFAULT_TOKEN_BUDGET,
  ...(assistant === undefined ? {} : { bounds: boundsOf(assistant) }),
  turn: log.status().turn,
  tokensUsed: log.usage().total,
  ...(codeCallDeadlineMs === undefined ? {} : { codeCallDeadlineMs }),
});

/** What framing a prompt reads of the host. */
type FramingDeps = Pick<WindowDeps, "clock" | "userName" | "live" | "app">;
/** The window and the user a prompt is framed for. */
interface Asker {
  readonly clientId: string;
  readonly user: User;
}

/** The system prompt and the window note (null when the app keeps no window context, or nothing is worth saying). */
export const turnFraming = (
  deps: FramingDeps,
  assistant: NonNullable<App["assistant"]>,
  at: Asker & {
    readonly route: string | null;
    readonly offered: ReadonlySet<string>;
    readonly selections: SelectionsState["selections"];
  },
): { readonly system: string; readonly note: string | null } => {
  const userName = deps.userName(at.user);
  return {
    system: systemPrompt({
      today: isoDate(deps.clock.now()),
      ...(userName === undefined ? {} : { userName }),
      instructions: assistant.instructions,
      windowContext: assistant.windowContext,
    }),
    note: assistant.windowContext
      ? windowNote({
          clientId: at.clientId,
          route: at.route,
          queries: deps.live.queries(at.clientId),
          selections: at.selections,
          offered: at.offered,
          argumentNames: (command) => deps.app.commands.get(command)?.argumentNames,
        })
      : null,
  };
};

/**
 * A prompt as the conversation is sent it: its route, the note and history,
 * the tools offered to the user now (deferred, with the tool search tool,
 * when there are many: {@link withToolSearch}), and the system prompt for
 * its steps.
 */
export const framedPrompt = (
  deps: FramingDeps,
  assistant: NonNullable<App["assistant"]>,
  at: Asker & {
    readonly input: PromptInput;
    readonly log: Pick<WindowLog, "selections" | "history">;
  },
): {
  readonly event: Extract<ConversationEvent, { type: "PROMPT" }>;
  readonly offered: ReadonlySet<string>;
  readonly system: string;
} => {
  const { text, route: given } = typeof at.input === "string" ? { text: at.input } : at.input;
  const route = routeOf(given);
  const tools = offered(deps.app, "assistant", at.user);
  const names = new Set(tools.map((t) => t.name));
  const framing = turnFraming(deps, assistant, {
    clientId: at.clientId,
    user: at.user,
    route,
    offered: names,
    selections: at.log.selections().selections,
  });
  return {
    offered: names,
    system: framing.system,
    event: {
      type: "PROMPT",
      text,
      route,
      note: framing.note,
      history: at.log.history().messages,
      tools: withToolSearch(assistant, requestTools(assistant, tools)),
    },
  };
};
