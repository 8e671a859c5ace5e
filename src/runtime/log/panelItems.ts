/**
 * The panel's items: a fold of the log into what a window shows, in order.
 * Shared by the host (tests, SSR) and the browser panel.
 */
import type { Draft } from "immer";
import { toolTitle } from "../commands/toolHints.ts";
import { argumentChanges } from "./argumentChanges.ts";
import type { LogEvent } from "./events.ts";
import type { PanelItem, PanelState, ScriptStep } from "./panelItem.ts";
import { type Projection, projectionOf } from "./projection.ts";

export type { PanelItem, PanelState, ScriptStep, Unconfirmed } from "./panelItem.ts";

/** Claude's code, as the panel shows it. */
type ScriptItem = Extract<PanelItem, { readonly kind: "script" }>;

/**
 * What a script item shows when its turn ended before the code did.
 *
 * @example
 * ```ts
 * const cut = panel.items.filter((item) => item.kind === "script" && item.output === SCRIPT_CUT_SHORT);
 * ```
 */
export const SCRIPT_CUT_SHORT = "(the turn ended before the code finished)";

type Item = Draft<PanelItem>;

/**
 * The last item of `kind` in turns from `turn` on that matches: a walk back
 * over the newest items only, never the whole log (a fold stays linear).
 */
const lastOf = <K extends Item["kind"]>(
  items: Item[],
  turn: number,
  kind: K,
  matches: (item: Extract<Item, { kind: K }>) => boolean,
): Extract<Item, { kind: K }> | undefined => {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i] as Item;
    if (item.turn < turn) return undefined;
    if (item.kind === kind && matches(item as Extract<Item, { kind: K }>))
      return item as Extract<Item, { kind: K }>;
  }
  return undefined;
};

/** A call from code inside one of the turn's scripts (the newest scripts first). */
const stepOf = (items: Item[], turn: number, callId: string): Draft<ScriptStep> | undefined => {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i] as Item;
    if (item.turn < turn) return undefined;
    if (item.kind !== "script") continue;
    for (let j = item.steps.length - 1; j >= 0; j--) {
      const step = item.steps[j] as Draft<ScriptStep>;
      if (step.callId === callId) return step;
    }
  }
  return undefined;
};

/** A script item of no calls yet. */
const newScript = (turn: number, toolId: string, code: string): Draft<ScriptItem> => ({
  kind: "script",
  turn,
  toolId,
  code,
  steps: [],
  calls: 0,
});

/** The turn's script `toolId` while its code is written. */
const writingScript = (items: Item[], turn: number, toolId: string) =>
  lastOf(items, turn, "script", (i) => i.toolId === toolId && i.writing === true);

const answerOf = (items: Item[], turn: number, step: number) =>
  lastOf(items, turn, "answer", (i) => i.turn === turn && i.step === step);

/** The turn's answers are written in full: a new step or a tool step began after them. */
const endAnswers = (items: Item[], turn: number) => {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i] as Item;
    if (item.turn !== turn) break;
    if (item.kind === "answer" && item.streaming) item.streaming = false;
  }
};

const endTurn = (draft: Draft<PanelState>, turn: number) => {
  if (turn !== draft.turn) return;
  draft.busy = false;
  // The turn's items are the last ones: walk back only over them, so a long log folds in linear time.
  for (let i = draft.items.length - 1; i >= 0; i--) {
    const item = draft.items[i] as Item;
    if (item.turn !== turn) break;
    if (item.kind === "answer") item.streaming = false;
    if (item.kind === "confirm" && item.answer === undefined) item.answer = "cancelled";
    // A script the turn ended before (Stop, a failure, the cap) is over too: it says so.
    if (item.kind === "script" && item.output === undefined) item.output = SCRIPT_CUT_SHORT;
    if (item.kind === "script") delete item.writing;
  }
};

/**
 * The panel's fold: what a window shows, item by item (the user's turns,
 * answers as they stream, tool steps, confirmations, Claude's code), and
 * whether a turn runs. What `window.panel()` gives; a custom panel folds the
 * events it receives with it.
 *
 * @example
 * ```ts
 * import type { LogEvent } from "elyra-assistant/log";
 *
 * let panel = panelItems.initial;
 * const onEvent = (e: LogEvent) => {
 *   panel = panelItems.apply(panel, e);
 *   render(panel.items, panel.busy);
 * };
 * ```
 */
export const panelItems: Projection<PanelState> = projectionOf<PanelState>(
  { items: [], busy: false, turn: 0, step: 0 },
  (draft, event: LogEvent) => {
    const items = draft.items as Item[];
    switch (event._tag) {
      case "TurnStarted":
        draft.turn = event.turn;
        draft.step = 0;
        draft.busy = true;
        items.push({ kind: "user", turn: event.turn, text: event.text });
        return;
      case "StepStarted":
        if (event.turn !== draft.turn) return;
        draft.step = event.step;
        // A new step: what the steps before it said is written in full.
        endAnswers(items, event.turn);
        return;
      case "TextDelta": {
        // A piece that arrives when no turn is running (in flight when Stop was pressed) is dropped.
        if (!draft.busy || event.turn !== draft.turn) return;
        const answer = answerOf(items, event.turn, event.step);
        if (answer) answer.text += event.text;
        else
          items.push({
            kind: "answer",
            turn: event.turn,
            step: event.step,
            text: event.text,
            streaming: true,
          });
        return;
      }
      case "ToolStarted": {
        // The words before a tool step are written in full: a screen reader reads them now.
        endAnswers(items, event.turn);
        // A call from code goes inside its script, when the script is known.
        const caller = event.caller;
        const script =
          caller.type === "code"
            ? lastOf(items, event.turn, "script", (i) => i.toolId === caller.toolId)
            : undefined;
        if (script !== undefined) {
          script.steps.push({ callId: event.callId, tool: event.tool });
          script.calls = script.steps.length;
          return;
        }
        items.push({
          kind: "tool",
          turn: event.turn,
          callId: event.callId,
          tool: event.tool,
          fromCode: caller.type === "code",
        });
        return;
      }
      case "ToolFinished": {
        const tool =
          lastOf(items, event.turn, "tool", (i) => i.callId === event.callId) ??
          stepOf(items, event.turn, event.callId);
        if (tool === undefined) return;
        tool.ok = event.ok;
        tool.outcome = event.outcome;
        if (event.link !== undefined && event.ok) tool.link = event.link;
        if (event.outcome === "notConfirmed") {
          const asked = lastOf(items, event.turn, "confirm", (i) => i.callId === event.callId);
          const answer = asked?.answer;
          if (answer !== undefined && answer !== "accepted")
            tool.unconfirmed = {
              answer,
              ...(asked?.askedAt === undefined || asked.answeredAt === undefined
                ? {}
                : { waitedMs: asked.answeredAt - asked.askedAt }),
            };
        }
        return;
      }
      case "ConfirmRequested":
        items.push({
          kind: "confirm",
          turn: event.turn,
          confirmId: event.confirmId,
          callId: event.callId,
          tool: event.tool,
          description: event.description,
          title: event.title ?? toolTitle(event.tool),
          ...(event.summary === undefined ? {} : { summary: event.summary }),
          args: event.args,
          ...(event.label === undefined ? {} : { label: event.label }),
          destructive: event.destructive === true,
          action: event.action ?? (event.destructive === true ? "Delete" : "Accept"),
          editable: [...(event.editable ?? [])],
          askedAt: event.at,
        });
        return;
      case "ConfirmAnswered": {
        const confirm = lastOf(
          items,
          event.turn,
          "confirm",
          (i) => i.confirmId === event.confirmId,
        );
        if (confirm && confirm.answer === undefined) {
          confirm.answer = event.answer;
          confirm.answeredAt = event.at;
          if (event.edited === true) confirm.edited = true;
          if (event.edited === true && event.args !== undefined) {
            // What the dialog shows once answered: what was approved, each change beside what was asked.
            confirm.editedArgs = event.args;
            confirm.changes = [
              ...argumentChanges(
                confirm.args,
                event.args,
                confirm.editable.map((field) => field.name),
              ),
            ];
          }
        }
        return;
      }
      case "ScriptWriting":
        // Code streamed: the script shows as Claude writes it, after the words said before it.
        if (!draft.busy || event.turn !== draft.turn) return;
        endAnswers(items, event.turn);
        if (lastOf(items, event.turn, "script", (i) => i.toolId === event.toolId) === undefined)
          items.push({ ...newScript(event.turn, event.toolId, ""), writing: true });
        return;
      case "ScriptCodeDelta": {
        const script = writingScript(items, event.turn, event.toolId);
        if (script !== undefined) script.code += event.code;
        return;
      }
      case "ScriptStarted": {
        // The whole code, once the step that wrote it ended: the script streamed so far takes it
        // (it is what the response holds); with nothing streamed (an older log, a whole answer)
        // the script shows now.
        const script = writingScript(items, event.turn, event.toolId);
        if (script === undefined) items.push(newScript(event.turn, event.toolId, event.code));
        else {
          script.code = event.code;
          delete script.writing;
        }
        return;
      }
      case "ScriptFinished": {
        const script = lastOf(
          items,
          event.turn,
          "script",
          (i) => i.toolId === event.toolId && i.output === undefined,
        );
        if (script) {
          script.output = event.output;
          script.calls = event.calls;
        }
        return;
      }
      case "Answered": {
        if (event.turn !== draft.turn) return;
        // The final text heals a window that missed a delta: the final step's answer becomes it.
        // An earlier step's text (said before a tool step) is its own and stays.
        const last = lastOf(items, event.turn, "answer", (i) => i.turn === event.turn);
        if (last !== undefined && last.step === draft.step) last.text = event.text;
        else if (event.text !== "")
          items.push({
            kind: "answer",
            turn: event.turn,
            step: draft.step,
            text: event.text,
            streaming: false,
          });
        endTurn(draft, event.turn);
        return;
      }
      case "Stopped":
        if (event.turn !== draft.turn) return;
        endTurn(draft, event.turn);
        items.push({ kind: "stopped", turn: event.turn });
        return;
      case "Failed":
        if (event.turn !== draft.turn) return;
        endTurn(draft, event.turn);
        {
          const asked = lastOf(items, event.turn, "user", (i) => i.turn === event.turn);
          items.push({
            kind: "error",
            turn: event.turn,
            error: event.error,
            ...(event.kind === undefined ? {} : { reason: event.kind }),
            ...(event.status === undefined ? {} : { status: event.status }),
            ...(asked === undefined ? {} : { prompt: asked.text }),
          });
        }
        return;
      case "Compacted": {
        // Told before the question it was made for: what came before it is summarised.
        const asked = items.findIndex((i) => i.kind === "user" && i.turn === event.turn);
        items.splice(asked === -1 ? items.length : asked, 0, {
          kind: "summarised",
          turn: event.turn,
        });
        return;
      }
      case "Reset":
        draft.items = [];
        draft.busy = false;
        return;
      default:
        return;
    }
  },
);
