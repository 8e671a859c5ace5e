/**
 * The conversation machine's types: its input and context, the events it is
 * told and emits, and what it tells its turn's steps actor.
 */
import type { UnstampedEvent } from "../runtime/log/events.ts";
import type { ContextBounds } from "../runtime/prompt/compaction.ts";
import type {
  Message,
  ModelResponse,
  ModelTool,
  ToolResultBlock,
  ToolUseBlock,
} from "../runtime/prompt/model.ts";

/** What the machine starts from: its bounds and, after a rebuild, where the log left off. */
export interface ConversationInput {
  readonly maxSteps: number;
  readonly tokenBudget: number;
  readonly turn?: number;
  readonly tokensUsed?: number;
  /** How long calls from code may take before they are answered with an error. */
  readonly codeCallDeadlineMs?: number;
  /** When the history is summarised and a turn's tool results cleared; none: never (`KEEP_ALL`). */
  readonly bounds?: ContextBounds;
}

/** A conversation as it runs: its bounds, the turn and step, the messages and tools of the turn, and what it has spent. */
export interface ConversationContext {
  readonly maxSteps: number;
  readonly tokenBudget: number;
  readonly turn: number;
  readonly tokensUsed: number;
  readonly step: number;
  readonly messages: ReadonlyArray<Message>;
  readonly tools: ReadonlyArray<ModelTool>;
  readonly response: ModelResponse | null;
  /** Text written this turn, step by step: what Stop keeps. */
  readonly written: ReadonlyArray<string>;
  /** Model runs this turn (answers to code pauses are requests, not runs): what `maxSteps` bounds. */
  readonly modelSteps: number;
  /** Whether the next request answers a code pause. */
  readonly continuing: boolean;
  /** The code execution container of this turn, sent back with each request; none across turns. */
  readonly container: string | null;
  /** Calls from code made this prompt, in all, and per running script (`srvtoolu_…`). */
  readonly codeCalls: number;
  readonly scriptCalls: Readonly<Record<string, number>>;
  readonly codeCallDeadlineMs: number | undefined;
  readonly bounds: ContextBounds;
  /** Where the turn's own messages begin: the history before it is `messages.slice(0, turnStart)`. */
  readonly turnStart: number;
  /** Whether this turn has asked for a summary of the history already (it asks once). */
  readonly compacted: boolean;
}

/** What a conversation is told: a prompt, Stop or Reset, and what its tools and confirmations report. */
export type ConversationEvent =
  | {
      readonly type: "PROMPT";
      readonly text: string;
      readonly route: string | null;
      readonly note: string | null;
      /** The conversation so far, as the model is sent it (the `history` projection). */
      readonly history: ReadonlyArray<Message>;
      readonly tools: ReadonlyArray<ModelTool>;
    }
  /** `streamed`: the text of the step in flight told so far, which Stop keeps. */
  | { readonly type: "STOP"; readonly streamed?: string }
  | { readonly type: "RESET"; readonly streamed?: string }
  /** The model step the turn's steps actor was asked for: its response, or why it has none. */
  | { readonly type: "STEP_DONE"; readonly response: ModelResponse }
  | { readonly type: "STEP_FAILED"; readonly error: unknown }
  | { readonly type: "CONFIRMING" }
  | { readonly type: "CONFIRMED" }
  | { readonly type: "TOOLS_DONE"; readonly results: ReadonlyArray<ToolResultBlock> }
  | { readonly type: "TOOLS_CRASHED"; readonly error: unknown }
  /** The host could not keep the log (the store refused an append): the conversation fails. */
  | { readonly type: "FAULT"; readonly error: unknown }
  /**
   * Another host wrote the log since (turns, a reset), and this one is its
   * writer now: the conversation counts from what the log says.
   */
  | { readonly type: "CAUGHT_UP"; readonly turn: number; readonly tokensUsed: number };

/** A log event the machine emits; the host stamps its time and appends it. */
export type ConversationEmitted = { readonly type: "log"; readonly event: UnstampedEvent };

/** Input of the model actor: one step. */
export interface CallModelInput {
  readonly messages: ReadonlyArray<Message>;
  readonly tools: ReadonlyArray<ModelTool>;
  readonly turn: number;
  readonly step: number;
  /** The container of the turn's code execution, once there is one. */
  readonly container: string | null;
  /** A request for a summary of the history (step 0): its text is not the turn's answer, and is not streamed. */
  readonly summary?: true;
}

/** Input of the tools actor: the calls of one step, run through the call path. */
export interface RunToolsInput {
  readonly calls: ReadonlyArray<ToolUseBlock>;
  readonly turn: number;
  readonly step: number;
}

/**
 * What the conversation tells its turn's steps actor, one at a time: ask the
 * model for one step (answered `STEP_DONE` or `STEP_FAILED`), or run one
 * step's tool calls (answered `CONFIRMING`/`CONFIRMED` while the user is
 * asked, then `TOOLS_DONE` or `TOOLS_CRASHED`). The actor lives as long as
 * the turn: stopped with it, it stops what it runs.
 */
export type StepsCommand =
  | { readonly type: "CALL_MODEL"; readonly input: CallModelInput }
  | { readonly type: "RUN_TOOLS"; readonly input: RunToolsInput };
