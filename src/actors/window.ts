/**
 * One window's conversation as a supervised actor: the conversation machine
 * with the model and the tool runner plugged in, its log, its confirmations.
 * An actor that throws is rebuilt by folding its log; a turn in flight at the
 * crash is recorded as interrupted and nothing it started runs again.
 */
import type { Context } from "@opentelemetry/api";
import { Data } from "effect";
import { defer, filter, firstValueFrom, type Observable, throwError } from "rxjs";
import { type Actor, createActor, fromPromise } from "xstate";
import { codeRunMachine } from "../machines/codeRunMachine.ts";
import { type CallModelInput, conversationMachine } from "../machines/conversationMachine.ts";
import type { CallPath } from "../runtime/calls/callPath.ts";
import { clip } from "../runtime/clip.ts";
import type { App } from "../runtime/commands/app.ts";
import { offered } from "../runtime/commands/catalog.ts";
import type { User } from "../runtime/commands/origin.ts";
import type { EventStore } from "../runtime/log/eventStore.ts";
import {
  isTurnEnd,
  type LogEvent,
  type TurnEnd,
  type UnstampedEvent,
} from "../runtime/log/events.ts";
import type { PanelState } from "../runtime/log/panelItems.ts";
import type { HistoryState, UsageState } from "../runtime/log/projections.ts";
import type { Clock } from "../runtime/ports/clock.ts";
import { INTERRUPTED } from "../runtime/prompt/limits.ts";
import { type Model, type ModelResponse, type ModelTool, textOf } from "../runtime/prompt/model.ts";
import { isoDate, systemPrompt } from "../runtime/prompt/systemPrompt.ts";
import { NOTE_BOUNDS, windowNote } from "../runtime/prompt/windowNote.ts";
import { coalescer } from "./coalescer.ts";
import {
  type AnswerResult,
  type ConfirmationBroker,
  confirmationBroker,
} from "./confirmationBroker.ts";
import type { InspectObserver } from "./inspection.ts";
import { LiveQueryRefused, type LiveRegistry, type LiveResult } from "./liveQueries.ts";
import { codeCallRunner, type ToolRunnerWindow, toolRunner } from "./toolRunner.ts";
import { contextOf, endSpan, startSpan } from "./tracing.ts";
import { type WindowLog, windowLog } from "./windowLog.ts";

export type { TurnEnd } from "../runtime/log/events.ts";

/** What a prompt carries: the text and the route the user is on. */
export type PromptInput = string | { readonly text: string; readonly route?: string | null };

/** A prompt that cannot start: a turn already runs, the app has no assistant, the window failed or closed. */
export class PromptRefused extends Data.TaggedError("PromptRefused")<{
  readonly reason: "turnInProgress" | "noAssistant" | "windowFailed" | "closed";
  readonly message: string;
}> {}

/** A selection that cannot be made: a kind with no name, or ids that are not strings or numbers. */
export class SelectionRefused extends Data.TaggedError("SelectionRefused")<{
  readonly detail: string;
}> {
  override get message(): string {
    return `selection refused: ${this.detail}`;
  }
}

/** A route as the window keeps it: one that is only whitespace is none. */
const routeOf = (route: string | null | undefined): string | null =>
  route === undefined || route === null || route.trim() === "" ? null : route;

/**
 * The tools a request carries. In code mode each tool that needs no
 * confirmation may also be called from code (`allowed_callers`, guidance to
 * the model: the call path refuses a confirm tool called from code whatever
 * it sends), and the code execution tool comes last.
 */
const requestTools = (
  assistant: NonNullable<App["assistant"]>,
  tools: ReadonlyArray<{
    readonly name: string;
    readonly description: string;
    readonly inputSchema: Readonly<Record<string, unknown>>;
  }>,
): ReadonlyArray<ModelTool> => {
  const out: ModelTool[] = tools.map((t): ModelTool => {
    const tool = { name: t.name, description: t.description, input_schema: t.inputSchema };
    const can = assistant.tools.get(t.name)?.can;
    return assistant.codeMode && can !== undefined && !assistant.needsConfirm(can)
      ? { ...tool, allowed_callers: ["direct", assistant.codeExecutionTool] }
      : tool;
  });
  if (assistant.codeMode) out.push({ type: assistant.codeExecutionTool, name: "code_execution" });
  return out;
};

/** One window's conversation, as the app and its transports use it. */
export interface AssistantWindow {
  readonly clientId: string;
  /** Resolves once the window's log is loaded (methods wait for it themselves). */
  readonly ready: Promise<void>;
  /**
   * Starts a turn and resolves with the event that ended it. `onStarted` is
   * told the turn's number once it has started, for callers that answer then.
   */
  readonly prompt: (
    input: PromptInput,
    options?: { readonly onStarted?: (turn: number) => void },
  ) => Promise<TurnEnd>;
  /** Answers a confirmation of this window, once. */
  readonly confirm: (
    confirmId: string,
    accept: boolean,
    echo?: { readonly tool?: string; readonly args?: unknown },
  ) => Promise<AnswerResult>;
  /**
   * Opens a live query of this window's screen: a `live` command's result now
   * and after each write that changes it. The next turn's note names it.
   */
  readonly live: (command: string, args: unknown) => Observable<LiveResult>;
  /**
   * Replaces what is selected of `kind` (`[]` clears it), on `route` (the last
   * prompt's route by default). A turn from another route drops it.
   *
   * @throws {SelectionRefused} for a kind with no name or ids that are not strings or numbers.
   */
  readonly select: (
    kind: string,
    ids: ReadonlyArray<string | number>,
    options?: { readonly route?: string | null },
  ) => Promise<void>;
  /** Stops the turn: the model request is aborted; a command already running finishes on its own. */
  readonly stop: () => void;
  /** Stops any turn and forgets the conversation (its log keeps a `Reset`). */
  readonly reset: () => Promise<void>;
  /** The window's log events from `fromSeq` on, then each new one. */
  readonly events$: (fromSeq?: number) => Observable<LogEvent>;
  readonly panel: () => PanelState;
  readonly history: () => HistoryState;
  readonly usage: () => UsageState;
  /** The conversation machine's state, e.g. `"idle"` or `{ turn: "requesting" }`. */
  readonly state: () => unknown;
  /** The machine's bookkeeping that the log must agree with. */
  readonly context: () => { readonly turn: number; readonly tokensUsed: number };
  /** Whether the window was given up after repeated crashes (open it again to start afresh). */
  readonly failed: () => boolean;
  /** The seq of the last stored event. */
  readonly lastSeq: () => number;
  /** Waits until every event so far is stored. */
  readonly settled: () => Promise<void>;
  /** Stops the actor; a memory store forgets the log, a durable one keeps it. */
  readonly close: () => Promise<void>;
}

/**
 * What the host's one conversation machine needs of each window, found by its actor system.
 *
 * @internal
 */
export interface WindowBinding {
  readonly callModel: (input: CallModelInput, signal: AbortSignal) => Promise<ModelResponse>;
  readonly tools: ToolRunnerWindow;
}

/**
 * The conversation machine with the host's actors plugged in, once for all windows.
 *
 * @internal
 */
export const hostMachine = (path: CallPath, bindings: WeakMap<object, WindowBinding>) => {
  const bound = (system: unknown): WindowBinding => {
    const binding = bindings.get(system as object);
    if (binding === undefined) throw new Error("no window is bound to this actor system");
    return binding;
  };
  return conversationMachine.provide({
    actors: {
      callModel: fromPromise<ModelResponse, CallModelInput>(({ input, signal, system }) =>
        bound(system).callModel(input, signal),
      ),
      runTools: toolRunner(path, (system) => bound(system).tools),
      codeRun: codeRunMachine.provide({
        actors: { runCall: codeCallRunner(path, (system) => bound(system).tools) },
      }),
    },
  });
};

/**
 * What a window needs from its host.
 *
 * @internal
 */
export interface WindowDeps {
  readonly machine: ReturnType<typeof hostMachine>;
  readonly bindings: WeakMap<object, WindowBinding>;
  readonly app: App;
  readonly model: Model;
  /** The model for the window's user, when the host chooses per user. */
  readonly modelFor?: (user: User) => Model;
  readonly store: EventStore;
  readonly clock: Clock;
  readonly path: CallPath;
  readonly maxTokensPerStep: number;
  readonly maxRestarts: number;
  readonly live: LiveRegistry;
  /** XState's inspection events of every actor of the window. */
  readonly inspect?: InspectObserver;
  /** How long calls from code may take before the code is told they failed. */
  readonly codeCallDeadlineMs?: number;
  readonly restartWindowMs: number;
  readonly userName: (user: User) => string | undefined;
  readonly onError: (error: unknown, where: { readonly clientId: string }) => void;
  /** Told when the window closes, so the host forgets it. */
  readonly onClose: (clientId: string) => void;
}

/** @internal */
export const openWindow = (
  deps: WindowDeps,
  clientId: string,
  firstUser: User,
): AssistantWindow & { setUser: (user: User) => void } => {
  const assistant = deps.app.assistant;
  let user = firstUser;
  let offeredNow: ReadonlySet<string> = new Set();
  /** The route of the last prompt or selection: where a selection is made by default. */
  let lastRoute: string | null = null;
  let system = "";
  let failed: unknown;
  let closed = false;
  const crashes: number[] = [];
  let actor: Actor<typeof conversationMachine> | undefined;

  const log: WindowLog = windowLog(deps.store, `conversation/${clientId}`, deps.clock, (error) =>
    crashed(error),
  );
  const currentTurn = () => actor?.getSnapshot().context.turn ?? log.status().turn;

  // Streamed text gathers in the coalescer; every other event tells what waits first, so a tool
  // step never shows before the words said before it.
  const text = coalescer(
    deps.clock,
    (step, piece) => {
      void log.append({ _tag: "TextDelta", turn: currentTurn(), step, text: piece });
    },
    deps.inspect,
  );
  const record = (event: UnstampedEvent) => {
    text.flush();
    if (isTurnEnd(event)) text.release();
    return log.append(event);
  };
  /** The running turn's span context: its model steps and command calls are its children. */
  let turnContext: Context | undefined;
  /** The text the step in flight has told so far: what Stop keeps of it. */
  let streamed = "";

  // Made at the first confirmation: most windows never ask one, and an idle window should cost little.
  let broker: ConfirmationBroker | undefined;
  const confirmations = (): ConfirmationBroker => {
    if (broker !== undefined) return broker;
    broker = confirmationBroker({
      clock: deps.clock,
      ...(deps.inspect === undefined ? {} : { inspect: deps.inspect }),
    });
    broker.requests$.subscribe((request) => {
      void record({
        _tag: "ConfirmRequested",
        turn: currentTurn(),
        confirmId: request.confirmId,
        callId: request.callId,
        tool: request.tool,
        description: request.description,
        args: request.args,
      });
    });
    broker.settled$.subscribe(({ request, answer }) => {
      void record({
        _tag: "ConfirmAnswered",
        turn: currentTurn(),
        confirmId: request.confirmId,
        answer,
      });
    });
    return broker;
  };

  const binding: WindowBinding = {
    callModel: async (input, signal) => {
      streamed = "";
      const model = deps.modelFor?.(user) ?? deps.model;
      const modelName = assistant?.model ?? "claude-sonnet-5-5";
      const span = startSpan(
        "elyra.model.step",
        {
          "gen_ai.system": "anthropic",
          "gen_ai.request.model": modelName,
          "elyra.step": input.step,
        },
        turnContext,
      );
      let response: ModelResponse;
      try {
        response = await model.step(
          {
            model: modelName,
            system,
            messages: input.messages,
            tools: input.tools,
            maxTokens: deps.maxTokensPerStep,
            ...(input.container === null ? {} : { container: input.container }),
          },
          {
            signal,
            onText: (piece) => {
              // A piece in flight when Stop was pressed is not told.
              if (signal.aborted) return;
              streamed += piece;
              text.push(input.step, piece);
            },
          },
        );
      } catch (error) {
        endSpan(span, {}, error instanceof Error ? error.message : String(error));
        throw error;
      }
      endSpan(span, {
        "gen_ai.response.finish_reasons": [response.stopReason],
        "gen_ai.usage.input_tokens": response.usage.inputTokens,
        "gen_ai.usage.output_tokens": response.usage.outputTokens,
      });
      // A model that answered whole told nothing yet: its text is told now, as one piece.
      if (streamed === "") text.push(input.step, textOf(response.content));
      streamed = "";
      return response;
    },
    tools: {
      clientId,
      user: () => user,
      offered: () => offeredNow,
      confirmer: { ask: (request, signal) => confirmations().ask(request, signal) },
      log: (event) => void record(event),
      turn: currentTurn,
      trace: () => turnContext,
    },
  };

  /** Starts a fresh actor from what the log says: the turn count and the tokens spent. */
  const spawn = () => {
    const next = createActor(deps.machine, {
      ...(deps.inspect === undefined ? {} : { inspect: deps.inspect }),
      input: {
        maxSteps: assistant?.maxSteps ?? 8,
        tokenBudget: assistant?.maxTokensPerConversation ?? 200_000,
        turn: log.status().turn,
        tokensUsed: log.usage().total,
        ...(deps.codeCallDeadlineMs === undefined
          ? {}
          : { codeCallDeadlineMs: deps.codeCallDeadlineMs }),
      },
      clock: deps.clock,
    });
    deps.bindings.set(next.system, binding);
    next.on("log", ({ event }) => void record(event));
    next.subscribe({ error: (error) => crashed(error) });
    actor = next;
    next.start();
  };

  /** Folds the log; a turn the log shows running was interrupted and is recorded so. */
  const recover = async () => {
    await log.reload();
    const { running, turn } = log.status();
    if (running) await record({ _tag: "Failed", turn, error: INTERRUPTED });
  };

  let rebuilding: Promise<void> = Promise.resolve();
  const crashed = (error: unknown) => {
    if (closed || failed !== undefined) return;
    const now = deps.clock.now();
    crashes.push(now);
    while (crashes.length > 0 && (crashes[0] as number) <= now - deps.restartWindowMs)
      crashes.shift();
    const dead = actor;
    actor = undefined;
    dead?.stop();
    const escalate = crashes.length > deps.maxRestarts;
    rebuilding = rebuilding.then(async () => {
      await recover();
      if (escalate) {
        // Too many crashes too fast: the window is given up, and the host is told.
        failed = error;
        deps.onError(error, { clientId });
      } else if (!closed) spawn();
    });
  };

  const ready = recover().then(() => {
    if (!closed) spawn();
  });

  const turnEnd = (turn: number) =>
    firstValueFrom(
      log.appended$.pipe(filter((e): e is TurnEnd => isTurnEnd(e) && e.turn === turn)),
    );

  const live = async () => {
    await ready;
    await rebuilding;
    if (failed !== undefined)
      throw new PromptRefused({
        reason: "windowFailed",
        message: "this window's conversation failed; open it again",
      });
    if (closed || actor === undefined)
      throw new PromptRefused({ reason: "closed", message: "this window is closed" });
    return actor;
  };

  return {
    clientId,
    ready,
    setUser: (next) => {
      user = next;
    },
    prompt: async (input, options = {}) => {
      if (assistant === undefined)
        throw new PromptRefused({ reason: "noAssistant", message: "this app has no assistant" });
      const running = await live();
      if (!running.getSnapshot().matches("idle")) {
        throw new PromptRefused({
          reason: "turnInProgress",
          message: "a turn is already running in this window",
        });
      }
      const { text, route: given } = typeof input === "string" ? { text: input } : input;
      const route = routeOf(given);
      lastRoute = route;
      const tools = offered(deps.app, "assistant", user);
      offeredNow = new Set(tools.map((t) => t.name));
      const userName = deps.userName(user);
      system = systemPrompt({
        today: isoDate(deps.clock.now()),
        ...(userName === undefined ? {} : { userName }),
        instructions: assistant.instructions,
        windowContext: assistant.windowContext,
      });
      const note = assistant.windowContext
        ? windowNote({
            clientId,
            route,
            queries: deps.live.queries(clientId),
            selections: log.selections().selections,
            offered: offeredNow,
            argumentNames: (command) => deps.app.commands.get(command)?.argumentNames,
          })
        : null;
      const turn = running.getSnapshot().context.turn + 1;
      const span = startSpan("elyra.turn", { "elyra.window": clientId, "elyra.turn": turn });
      turnContext = contextOf(span);
      const end = turnEnd(turn).then((ended) => {
        endSpan(
          span,
          { "elyra.outcome": ended._tag },
          ended._tag === "Failed" ? ended.error : undefined,
        );
        turnContext = undefined;
        return ended;
      });
      running.send({
        type: "PROMPT",
        text,
        route,
        note,
        history: log.history().messages,
        tools: requestTools(assistant, tools),
      });
      options.onStarted?.(turn);
      return end;
    },
    confirm: async (confirmId, accept, echo = {}) => {
      await ready;
      if (broker === undefined) return { _tag: "UnknownConfirmation" };
      return broker.answer({ confirmId, accept, scope: clientId, ...echo });
    },
    // Checked at subscription, not at the call: a query opened after the window closed is refused.
    live: (command, args) =>
      defer(() =>
        closed
          ? throwError(
              () => new LiveQueryRefused({ reason: "closed", detail: "this window is closed" }),
            )
          : deps.live.subscribe({ clientId, user, currentUser: () => user }, command, args),
      ),
    select: async (kind, ids, options = {}) => {
      if (typeof kind !== "string" || kind.trim() === "")
        throw new SelectionRefused({ detail: "a selection needs a kind with a name" });
      if (
        !Array.isArray(ids) ||
        !ids.every(
          (id) => typeof id === "string" || (typeof id === "number" && Number.isFinite(id)),
        )
      )
        throw new SelectionRefused({ detail: "ids must be strings or finite numbers" });
      await live();
      const route = options.route === undefined ? lastRoute : routeOf(options.route);
      lastRoute = route;
      // The log keeps what the note can show: a kind's name cut at 64, at most 100 ids, and the count.
      await record({
        _tag: "SelectionChanged",
        turn: 0,
        kind: clip(kind, NOTE_BOUNDS.kindName),
        ids: ids
          .slice(0, NOTE_BOUNDS.idsPerKind)
          .map((id) => (typeof id === "string" ? clip(id, NOTE_BOUNDS.argumentString) : id)),
        ...(ids.length > NOTE_BOUNDS.idsPerKind ? { total: ids.length } : {}),
        route,
      });
    },
    stop: () => {
      text.flush();
      actor?.send({ type: "STOP", streamed });
    },
    reset: async () => {
      const running = await live();
      text.flush();
      running.send({ type: "RESET", streamed });
      await log.idle();
    },
    events$: (fromSeq) => log.events$(fromSeq),
    panel: () => log.panel(),
    history: () => log.history(),
    usage: () => log.usage(),
    state: () => actor?.getSnapshot().value,
    context: () => {
      const context = actor?.getSnapshot().context;
      return {
        turn: context?.turn ?? log.status().turn,
        tokensUsed: context?.tokensUsed ?? log.usage().total,
      };
    },
    failed: () => failed !== undefined,
    lastSeq: () => log.lastSeq(),
    settled: async () => {
      await ready;
      await rebuilding;
      await log.idle();
    },
    close: async () => {
      // A turn still running ends Stopped, so its prompt settles and its log is whole.
      if (actor !== undefined && !actor.getSnapshot().matches("idle")) {
        text.flush();
        actor.send({ type: "STOP", streamed });
      }
      closed = true;
      deps.live.close(clientId);
      deps.onClose(clientId);
      actor?.stop();
      actor = undefined;
      await log.idle().catch(() => undefined);
      if (!deps.store.durable) await deps.store.drop(log.stream);
    },
  };
};
