/**
 * What a window is made of, and what the supervisor's decisions do to it:
 * its log, its lifecycle, its streamed text, its confirmations, its model
 * step and, on a shared store, its lease. It recovers the log (a turn in
 * flight at a crash is recorded interrupted, and nothing it started runs
 * again), binds each conversation's model and tools, and records what the
 * conversation emits. Its parts (the view, the ops) read it through its
 * methods: one object a window, its methods shared by every window
 * (an idle window costs its fields, not a closure per operation).
 */
import type { AnyActorRef } from "xstate";
import {
  conversationId,
  type GiveUpReason,
  type Recovered,
} from "../../machines/supervisorMachine.ts";
import type { WindowConversation } from "../../machines/windowMachine.ts";
import type { User } from "../../runtime/commands/origin.ts";
import { isTurnEnd, type UnstampedEvent } from "../../runtime/log/events.ts";
import { LeaseLost } from "../../runtime/log/writerLeases.ts";
import { changesEntry, entryOf, turnTextOf } from "../../runtime/threads/summary.ts";
import { promptRefused, ThreadNotFound, WindowOwnerMismatch } from "../assistantWindow.ts";
import { type WindowLease, windowLease } from "../cluster/lease.ts";
import { UNLEASED, type WindowWriter } from "../cluster/writer.ts";
import { TurnWaiters } from "../log/turnWaiters.ts";
import { recordOwnership } from "../log/userUsage.ts";
import { streamOf, type WindowLog, windowLog } from "../log/windowLog.ts";
import { stopActor } from "../support/stopActor.ts";
import type { Coalescer } from "../turn/coalescer.ts";
import { type WindowConfirmations, windowConfirmations } from "../turn/confirmations.ts";
import type { WindowBinding } from "../turn/machines.ts";
import { type ModelStep, modelStep } from "../turn/modelStep.ts";
import { notWritten } from "../turn/toolRunner.ts";
import type { OpenWindow, Supervised, WindowDeps } from "./deps.ts";
import { conversationFrom } from "./framing.ts";
import { ending, WindowPhases } from "./lifecycle.ts";
import { windowStream } from "./stream.ts";

/** A window with no earlier window of its client id to wait for: one settled promise for all. */
const NOTHING_BEFORE: Promise<void> = Promise.resolve();

/** Why a window was given up, and with what. */
export interface WindowFailure {
  readonly error: unknown;
  readonly reason: GiveUpReason;
}

/**
 * One window's parts and state. The supervisor's decisions are its
 * `Supervised` methods.
 *
 * @internal
 */
export class WindowCore implements Supervised {
  readonly owner: string;
  /** The window's lifecycle (the window machine); moved only by `phases.send`. */
  readonly phases = new WindowPhases();
  readonly log: WindowLog;
  /** Prompts waiting for their turn's end: settled by the log, or refused when it cannot tell. */
  readonly turns: TurnWaiters;
  /** Streamed text and code: every other event tells what waits first (a tool step never shows before the words said before it). */
  readonly text: Coalescer;
  readonly confirmations: WindowConfirmations;
  readonly step: ModelStep;
  /** Who writes the window now, on a store several hosts share (decision (aj)). */
  readonly writer: WindowWriter;
  user: User;
  /** Settles once the window wrote its last event and let go of its log. */
  closing: Promise<void> | undefined;
  /** Whether the owner's key is in the log (a memory store's log lives no longer than the host's record). */
  #ownerRecorded: boolean;
  /** Whether the owner's stream is yet to name this conversation (its entry to write, or write again). */
  #listing = false;
  /** Tool steps started and not finished: a stopped one still writes its end, under the lease. */
  #openTools = 0;
  #lease: WindowLease | undefined;
  /** The running turn's prompt, while it runs: its search text is the prompt, then the answer. */
  #prompt: { readonly turn: number; readonly text: string } | undefined;
  /** The thread index's last write for this thread: the next goes after it, so the index sees them in order. */
  #indexed: Promise<void> = NOTHING_BEFORE;
  /** The running conversation, for the parts that are handed it as a function. */
  readonly #conversation = () => this.phases.at.context.conversation;
  /** Records `event`, for the parts that are handed it as a function. */
  readonly #record = (event: UnstampedEvent) => this.record(event);

  constructor(
    /** The window these are the parts of, as the host knows it. */
    readonly window: OpenWindow,
    readonly deps: WindowDeps,
    readonly clientId: string,
    readonly key: string,
    firstUser: User,
    /** Settles when an earlier window of this client id has finished closing: its log is read after. */
    readonly after: Promise<void> = NOTHING_BEFORE,
  ) {
    this.user = firstUser;
    this.owner = deps.userKey(firstUser);
    this.#ownerRecorded = !deps.store.durable;
    const currentTurn = () => this.currentTurn();
    // An append the store refuses is told, and fails the conversation: its supervisor rebuilds it.
    // Refused while none runs (a late append of a dead one), the next one fails when it starts.
    this.log = windowLog(
      deps.store,
      streamOf(clientId),
      deps.clock,
      (error, refused) => {
        const refusedStart = refused.find((e) => e._tag === "TurnStarted")?.turn;
        this.phases.send({
          type: "FAULTED",
          error,
          ...(refusedStart === undefined ? {} : { refusedStart }),
        });
        if (error instanceof LeaseLost) this.writer.lost();
        deps.onError(error, { clientId });
        this.conversation()?.send({ type: "FAULT", error });
      },
      deps.routing === undefined ? undefined : () => this.writer.current(),
      deps.indexing,
    );
    // On a store without leases the lease is made only when a recovery finds a turn to record
    // interrupted, or the store tells of appends: every window has the one writer.
    if (deps.routing !== undefined) this.#lease = this.#leaseOf();
    this.writer = this.#lease?.writer ?? UNLEASED;
    this.turns = new TurnWaiters(this.log);
    this.text = windowStream(deps, currentTurn, (event) => {
      if (!this.closed()) void this.log.append(event);
    }).childOf(this.#conversation);
    this.confirmations = windowConfirmations({
      clock: deps.clock,
      parent: this.#conversation,
      ...(deps.inspect === undefined ? {} : { inspect: deps.inspect }),
      record: this.#record,
      turn: currentTurn,
    });
    this.step = modelStep({
      model: deps.model,
      ...(deps.modelFor === undefined ? {} : { modelFor: deps.modelFor }),
      modelName: deps.app.assistant?.model ?? "claude-sonnet-5-5",
      maxTokensPerStep: deps.maxTokensPerStep,
      user: () => this.user,
      framed: () => this.phases.at.context.turn,
      text: this.text,
      record: this.#record,
    });
  }

  /** The running conversation; none while it is recovered or rebuilt, or once the window closes. */
  conversation(): WindowConversation | undefined {
    return this.phases.at.context.conversation;
  }

  /** Set when the supervisor gave the window up. */
  failure(): WindowFailure | undefined {
    return this.phases.at.context.failure;
  }

  /** Whether the window writes nothing more. */
  closed(): boolean {
    return ending(this.phases.at);
  }

  /** The turn the conversation runs (or ran last); the log's when none runs here. */
  currentTurn(): number {
    return this.conversation()?.getSnapshot().context.turn ?? this.log.status().turn;
  }

  /** Confirmations waiting for an answer. */
  questions(): number {
    return this.confirmations.made()?.pending().length ?? 0;
  }

  /** The window's lease, made the first time it is needed. */
  lease(): WindowLease {
    this.#lease ??= this.#leaseOf();
    return this.#lease;
  }

  #leaseOf(): WindowLease {
    const { deps, clientId } = this;
    return windowLease({
      routing: deps.routing,
      log: this.log,
      clientId,
      owner: this.owner,
      // Whether the conversation has nothing running: no turn, no question waiting, no tool step.
      idle: () =>
        (this.conversation()?.getSnapshot().matches("idle") ?? true) &&
        this.questions() === 0 &&
        this.#openTools === 0,
      actor: this.#conversation,
      started: () => this.phases.starting,
      record: this.#record,
      ownerSeen: () => {
        this.#ownerRecorded = true;
      },
      faulted: (error) => this.phases.send({ type: "FAULTED", error }),
      leaseChanged: (event) => this.phases.send({ type: event }),
      onError: (error) => deps.onError(error, { clientId }),
    });
  }

  /** Appends `event` (after what the coalescer gathered), unless the window closed. */
  record(event: UnstampedEvent): Promise<unknown> {
    if (isTurnEnd(event)) this.phases.send({ type: "TURN_ENDED" });
    // A closed window writes nothing more: what its streams ended on is what its log ends on.
    if (this.closed()) return Promise.resolve(undefined);
    if (!this.#ownerRecorded) {
      this.#ownerRecorded = true;
      this.#listing = true;
      void this.log.append({ _tag: "WindowOwned", turn: 0, owner: this.owner });
    }
    if (this.#listing) this.#list();
    this.text.flush();
    if (isTurnEnd(event)) this.text.release();
    if (event._tag === "ToolStarted") this.#openTools++;
    else if (event._tag === "ToolFinished") this.#openTools = Math.max(0, this.#openTools - 1);
    const stored = this.log.append(event);
    const { writer } = this;
    if (writer.leased) void stored.then(writer.settle, writer.settle);
    this.#index(event, stored);
    return stored;
  }

  /**
   * After an event that changes what the thread's list shows (a turn begun
   * or ended, a name, an archive) is stored, writes the thread's entry, and
   * the text the event adds, to the thread index. One write after another;
   * one the index refuses is told to `onError` (the thread's next open
   * writes its entry again).
   */
  #index(event: UnstampedEvent, stored: Promise<unknown>): void {
    if (!changesEntry(event)) return;
    const prompt = this.#prompt;
    const text = turnTextOf(event, (turn) => (prompt?.turn === turn ? prompt.text : undefined));
    if (event._tag === "TurnStarted") this.#prompt = { turn: event.turn, text: event.text };
    else if (isTurnEnd(event)) this.#prompt = undefined;
    const { deps, clientId, owner } = this;
    this.#indexed = this.#indexed
      .then(() => stored)
      .then(
        () => {
          const summary = this.log.thread();
          if (summary === undefined || summary.createdAt === null || summary.erased) return;
          return deps.threads.put(entryOf(owner, clientId, summary), text);
        },
        // Not stored: nothing to list (the window's own failure is told already).
        () => undefined,
      )
      .catch((error: unknown) => deps.onError(error, { clientId }));
    // Once done, an idle window holds the one settled promise all windows share, not its own.
    const last = this.#indexed;
    void last.then(() => {
      if (this.#indexed === last) this.#indexed = NOTHING_BEFORE;
    });
  }

  /** Resolves once the thread index has what this window wrote to it so far. */
  indexed(): Promise<void> {
    return this.#indexed;
  }

  /**
   * Names the conversation in its owner's own stream, so that what they used
   * can be added up (`host.usage`): once, when its log first names its
   * owner; tried again at the next event when the store refused it.
   */
  #list(): void {
    this.#listing = false;
    recordOwnership(this.deps.store, this.deps.clock, this.owner, this.clientId).catch(
      (error: unknown) => {
        this.#listing = true;
        this.deps.onError(error, { clientId: this.clientId });
      },
    );
  }

  /** Once the log is read: another user's window, or an erased one, is refused. */
  async owned(): Promise<void> {
    await this.phases.ready;
    const failure = this.failure();
    if (failure?.error instanceof WindowOwnerMismatch || failure?.error instanceof ThreadNotFound)
      throw failure.error;
  }

  /** Waits for the conversation to start; refuses a prompt when it cannot. */
  async prompting(): Promise<unknown> {
    if (this.deps.app.assistant === undefined)
      throw promptRefused("noAssistant", "this app has no assistant");
    return this.serving();
  }

  /** The running conversation, once the window serves; rejects when it cannot. */
  async serving(): Promise<WindowConversation> {
    await this.phases.starting;
    const failure = this.failure();
    // A log that could not be read is the store's failure, not a refusal: it is passed on as it is.
    if (failure?.reason === "unreadableLog") throw failure.error;
    if (failure !== undefined)
      throw promptRefused("windowFailed", "this window's conversation failed; open it again");
    const running = this.conversation();
    if (this.closed() || running === undefined)
      throw promptRefused("closed", "this window is closed");
    return running;
  }

  /** What one conversation of the window runs with; its tool steps are written only while it lives. */
  #bindingOf(mine: number): WindowBinding {
    const dead = () => this.closed() || mine !== this.phases.at.context.generation;
    const { confirmations } = this;
    return {
      callModel: this.step.call,
      tools: {
        clientId: this.clientId,
        user: () => this.user,
        framed: () => this.phases.at.context.turn,
        confirmer: { ask: (request, signal) => confirmations.broker().ask(request, signal) },
        log: (event) => (dead() ? notWritten() : this.record(event)),
        confirmed: (callId) => (dead() ? notWritten() : confirmations.stored(callId)),
        turn: () => this.currentTurn(),
      },
    };
  }

  /** Folds the log; a turn the log shows running was interrupted and is recorded so. */
  async recover(): Promise<Recovered> {
    await this.after;
    const { log, deps } = this;
    const events = await log.reload();
    // The log names its owner (from before a restart, or another process): anyone else is refused.
    const named = events.findLast((e) => e._tag === "WindowOwned");
    if (named !== undefined && named.owner !== this.owner)
      throw new WindowOwnerMismatch({ clientId: this.clientId });
    // An erased thread's log is its tombstone: there is nothing to open.
    if (events.some((e) => e._tag === "Erased")) throw new ThreadNotFound({ id: this.clientId });
    // The list's entry, as the log has it: one a fault left behind is made right.
    const summary = log.thread();
    if (summary !== undefined && summary.createdAt !== null && summary.turns > 0)
      this.#indexed = deps.threads
        .put(entryOf(this.owner, this.clientId, summary))
        .catch((error: unknown) => deps.onError(error, { clientId: this.clientId }));
    this.#ownerRecorded = named !== undefined || !deps.store.durable;
    // On a shared store, a live host holding the lease may be running it: it is left to that host.
    if (log.status().running) await this.writer.ifFree(() => this.lease().interrupt());
    return {
      window: this.key,
      conversation: conversationFrom(log, deps.app.assistant, deps.codeCallDeadlineMs),
    };
  }

  started(): void {
    const { deps, key, phases } = this;
    const next = deps.supervisor(key).system.get(conversationId(key)) as
      | WindowConversation
      | undefined;
    if (next === undefined) return;
    deps.bindings.set(next, this.#bindingOf(phases.at.context.generation));
    next.on("log", ({ event }) => void this.record(event));
    phases.send({ type: "STARTED", conversation: next });
    const { fault, refusedStart } = phases.at.context;
    // A prompt whose turn the log never started ends here, refused; asked again of this
    // conversation when only an append before its start was refused (not after a lost lease).
    this.turns.refuse(
      () =>
        fault ??
        promptRefused("windowFailed", "this window's conversation failed before the turn started"),
      this.log.status().turn,
      (turn) => turn !== refusedStart && !(fault instanceof LeaseLost),
    );
    // An append refused while no conversation ran: this one fails at once, and the log is read again.
    if (this.log.refused()) next.send({ type: "FAULT", error: fault });
  }

  crashed(): void {
    // What the dead conversation had running (a model request, a tool run) is stopped with it.
    const children: Record<string, AnyActorRef | undefined> =
      this.conversation()?.getSnapshot().children ?? {};
    for (const child of Object.values(children)) if (child !== undefined) stopActor(child);
    this.#openTools = 0; // its tool steps write nothing more
    this.phases.send({ type: "CRASHED" });
  }

  failed(error: unknown, reason: GiveUpReason): void {
    this.phases.send({ type: "GAVE_UP", error, reason });
    this.turns.refuse(() => error);
    // Its streams end, as a closed window's do: their clients open the window again.
    this.log.close();
    // Someone else's window, or an erased one, is a refusal, not a fault: it is forgotten, so its
    // owner opens it (and finds it erased).
    if (error instanceof WindowOwnerMismatch || error instanceof ThreadNotFound)
      this.deps.onClose(this.clientId, this.window, Promise.resolve());
    else this.deps.onError(error, { clientId: this.clientId });
  }
}
