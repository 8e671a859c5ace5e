/**
 * What a window shows, item by item: the types of the panel's fold
 * (panelItems.ts), shared by the host, the browser store and the panel.
 */
import type { EditableField } from "../commands/fields.ts";
import type { ArgumentChange } from "./argumentChanges.ts";

/**
 * One thing the panel shows, told by its `kind`: the user's text, an answer
 * (while it streams and after), a tool step, a confirmation, Claude's code,
 * a failure or a stop. Each names the turn it belongs to.
 */
export type PanelItem =
  | { readonly kind: "user"; readonly turn: number; readonly text: string }
  | {
      readonly kind: "answer";
      readonly turn: number;
      readonly step: number;
      readonly text: string;
      readonly streaming: boolean;
    }
  | {
      readonly kind: "tool";
      readonly turn: number;
      readonly callId: string;
      readonly tool: string;
      readonly fromCode: boolean;
      /** Undefined while it runs. */
      readonly ok?: boolean;
      readonly outcome?: string;
      readonly link?: string;
      /** How its confirmation ended, when it was not confirmed. */
      readonly unconfirmed?: Unconfirmed;
    }
  | {
      readonly kind: "confirm";
      readonly turn: number;
      readonly confirmId: string;
      readonly callId: string;
      readonly tool: string;
      /** The model's description of the tool: not for people (a panel shows `title` and `summary`). */
      readonly description: string;
      /** The command's title for people ("Delete a customer"): from older logs, read from the tool's name. */
      readonly title: string;
      /** What the command does, for people, when it says. */
      readonly summary?: string;
      readonly args: unknown;
      /** The command's sentence for this call, shown first; absent: its title. */
      readonly label?: string;
      /** The accept button is destructive: styled so, never focused first. */
      readonly destructive: boolean;
      /** The accept button's word (`Delete`, `Confirm`, …). */
      readonly action: string;
      /** The arguments the user may change before approving: JSON Schema, label, kind, currency. */
      readonly editable: ReadonlyArray<EditableField>;
      /** Undefined while it waits; `cancelled` when the turn ended first. */
      readonly answer?: "accepted" | "declined" | "timedOut" | "cancelled";
      /** Accepted with arguments the user changed. */
      readonly edited?: boolean;
      /**
       * With `edited`: the whole arguments as the user changed and approved
       * them, what the call path ran (its tool step says how that ended);
       * `args` stay what was asked. Absent when the log did not record them.
       */
      readonly editedArgs?: unknown;
      /** With `editedArgs`: each argument that differs from the one asked, the editable ones first. */
      readonly changes?: ReadonlyArray<ArgumentChange>;
      /** When it was asked and answered (ms since the epoch, the host's clock). */
      readonly askedAt?: number;
      readonly answeredAt?: number;
    }
  | {
      /** Claude's code in the code execution sandbox: it opens to show the code, each call, the output. */
      readonly kind: "script";
      readonly turn: number;
      /** The code execution's `srvtoolu_…` id. */
      readonly toolId: string;
      /** The code: what Claude has written so far while `writing`, then all of it. */
      readonly code: string;
      /** True while Claude writes the code (it streams); absent once the step that wrote it ended. */
      readonly writing?: true;
      /** Each call the code made, in order, as tool steps (a failed one where it happened). */
      readonly steps: ReadonlyArray<ScriptStep>;
      /** How many calls the code made (told again when it ends). */
      readonly calls: number;
      /** What it printed; undefined while it runs. */
      readonly output?: string;
    }
  | {
      readonly kind: "error";
      readonly turn: number;
      /** The turn's error, as the host wrote it. */
      readonly error: string;
      /** When the model's step failed: its error's kind (`auth`, `connection`, …) and HTTP status. */
      readonly reason?: string;
      readonly status?: number;
      /** The text the turn was asked with, for a Retry that sends it again. */
      readonly prompt?: string;
    }
  | { readonly kind: "stopped"; readonly turn: number }
  /** The earlier turns were summarised before this turn (a `Compacted` event): the model reads the summary now. */
  | { readonly kind: "summarised"; readonly turn: number };

/**
 * How a call's confirmation ended when it was not confirmed: declined, or
 * not answered (`timedOut`) after `waitedMs`; `cancelled` when the turn ended
 * first.
 */
export interface Unconfirmed {
  readonly answer: "declined" | "timedOut" | "cancelled";
  readonly waitedMs?: number;
}

/** A call from code, inside its script item. */
export interface ScriptStep {
  readonly callId: string;
  readonly tool: string;
  /** Undefined while it runs. */
  readonly ok?: boolean;
  readonly outcome?: string;
  readonly link?: string;
  /** How its confirmation ended, when it was not confirmed. */
  readonly unconfirmed?: Unconfirmed;
}

/** What the panel's fold gives: the items in order, whether a turn runs, and which turn and step it is on. */
export interface PanelState {
  readonly items: ReadonlyArray<PanelItem>;
  /** True while a turn runs. */
  readonly busy: boolean;
  readonly turn: number;
  /** The step of the turn the model is on: the final answer belongs to it. */
  readonly step: number;
}
