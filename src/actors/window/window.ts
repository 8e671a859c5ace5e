/**
 * One window: its conversation (a child of the host's supervisor), its log,
 * its confirmations and its streamed text. The supervisor decides when the
 * conversation starts and is rebuilt; the window does what that takes here:
 * it recovers the log (a turn in flight at a crash is recorded interrupted,
 * and nothing it started runs again), binds the conversation's model and
 * tools, and records what the conversation emits.
 */
import { defer, throwError } from "rxjs";
import type { AnyActorRef } from "xstate";
import { conversationId, type Recovered } from "../../machines/supervisorMachine.ts";
import type { WindowConversation } from "../../machines/windowMachine.ts";
import type { User } from "../../runtime/commands/origin.ts";
import { isTurnEnd, type UnstampedEvent } from "../../runtime/log/events.ts";
import { LeaseLost } from "../../runtime/log/writerLeases.ts";
import { promptRefused, WindowOwnerMismatch } from "../assistantWindow.ts";
import { type WindowLease, windowLease } from "../cluster/lease.ts";
import { writerOps } from "../cluster/ops.ts";
import { UNLEASED } from "../cluster/writer.ts";
import { TurnWaiters } from "../log/turnWaiters.ts";
import { streamOf, type WindowLog, windowLog } from "../log/windowLog.ts";
import { LiveQueryRefused } from "../support/liveQueries.ts";
import { stopActor } from "../support/stopActor.ts";
import { windowConfirmations } from "../turn/confirmations.ts";
import type { WindowBinding } from "../turn/machines.ts";
import { modelStep } from "../turn/modelStep.ts";
import { notWritten } from "../turn/toolRunner.ts";
import type { OpenWindow, Supervised, WindowDeps } from "./deps.ts";
import { conversationFrom } from "./framing.ts";
import { ending, WindowPhases } from "./lifecycle.ts";
import { localOps } from "./localOps.ts";
import { promptAnew } from "./promptAnew.ts";
import { windowStream } from "./stream.ts";
import { windowView } from "./view.ts";

export type { TurnEnd } from "../../runtime/log/events.ts";
export type { AssistantWindow, PromptInput } from "../assistantWindow.ts";
export { PromptRefused, SelectionRefused } from "../assistantWindow.ts";

/** A window with no earlier window of its client id to wait for: one settled promise for all. */
const NOTHING_BEFORE: Promise<void> = Promise.resolve();

/** @internal */
export const openWindow = (
  deps: WindowDeps,
  clientId: string,
  key: string,
  firstUser: User,
  /** Settles when an earlier window of this client id has finished closing: its log is read after. */
  after: Promise<void> = NOTHING_BEFORE,
): OpenWindow => {
  const assistant = deps.app.assistant;
  let user = firstUser;
  /**
   * The owner's key, written into a durable log before its first event. A
   * memory store's log lives no longer than the host's own record of owners.
   */
  const owner = deps.userKey(firstUser);
  let ownerRecorded = !deps.store.durable;
  /**
   * The window's lifecycle (the window machine): its phase, its conversation,
   * the running turn's framing, its last route, its failure and the store's
   * last refusal. Moved only by `phases.send`.
   */
  const phases = new WindowPhases();
  const { ready } = phases;
  /** The running conversation; none while it is recovered or rebuilt, or once the window closes. */
  const conversation = () => phases.at.context.conversation;
  /** Set when the supervisor gave the window up. */
  const failed = () => phases.at.context.failure;
  /** Whether the window writes nothing more. */
  const closed = () => ending(phases.at);
  /** Settles once the window wrote its last event and let go of its log. */
  let closing: Promise<void> | undefined;
  // An append the store refuses is told, and fails the conversation: its supervisor rebuilds it.
  // Refused while none runs (a late append of a dead one), the next one fails when it starts.
  const log: WindowLog = windowLog(
    deps.store,
    streamOf(clientId),
    deps.clock,
    (error, refused) => {
      const refusedStart = refused.find((e) => e._tag === "TurnStarted")?.turn;
      phases.send({
        type: "FAULTED",
        error,
        ...(refusedStart === undefined ? {} : { refusedStart }),
      });
      if (error instanceof LeaseLost) writer.lost();
      deps.onError(error, { clientId });
      conversation()?.send({ type: "FAULT", error });
    },
    deps.routing === undefined ? undefined : () => writer.current(),
  );
  /** Tool steps started and not finished: a stopped one still writes its end, under the lease. */
  let openTools = 0;
  /**
   * On a store several hosts share, the window's lease: who writes it now (decision (aj)). On a
   * store without leases it is made only when a recovery finds a turn to record interrupted, or
   * the store tells of appends: every window has the one writer, and an idle one holds no lease.
   */
  const leaseOf = (): WindowLease =>
    windowLease({
      routing: deps.routing,
      log,
      clientId,
      owner,
      // Whether the conversation has nothing running: no turn, no question waiting, no tool step.
      idle: () =>
        (conversation()?.getSnapshot().matches("idle") ?? true) &&
        (confirmations.made()?.pending().length ?? 0) === 0 &&
        openTools === 0,
      actor: conversation,
      started: () => phases.starting,
      record: (event) => record(event),
      ownerSeen: () => {
        ownerRecorded = true;
      },
      faulted: (error) => phases.send({ type: "FAULTED", error }),
      leaseChanged: (event) => phases.send({ type: event }),
      onError: (error) => deps.onError(error, { clientId }),
    });
  let made = deps.routing === undefined ? undefined : leaseOf();
  const lease = () => {
    made ??= leaseOf();
    return made;
  };
  const writer = made?.writer ?? UNLEASED;
  /** Prompts waiting for their turn's end: settled by the log, or refused when it cannot tell. */
  const turns = new TurnWaiters(log);
  const currentTurn = () => conversation()?.getSnapshot().context.turn ?? log.status().turn;

  // Streamed text and code gather in the coalescer; every other event tells what waits first, so
  // a tool step never shows before the words said before it.
  const text = windowStream(deps, currentTurn, (event) => {
    if (!closed()) void log.append(event);
  }).childOf(conversation);
  const record = (event: UnstampedEvent) => {
    if (isTurnEnd(event)) phases.send({ type: "TURN_ENDED" });
    // A closed window writes nothing more: what its streams ended on is what its log ends on.
    if (closed()) return Promise.resolve(undefined);
    if (!ownerRecorded) {
      ownerRecorded = true;
      void log.append({ _tag: "WindowOwned", turn: 0, owner });
    }
    text.flush();
    if (isTurnEnd(event)) text.release();
    if (event._tag === "ToolStarted") openTools++;
    else if (event._tag === "ToolFinished") openTools = Math.max(0, openTools - 1);
    const stored = log.append(event);
    if (writer.leased) void stored.then(writer.settle, writer.settle);
    return stored;
  };
  /** What the running turn was framed with (its system prompt, tools offered, span), if one runs. */
  const framed = () => phases.at.context.turn;

  const confirmations = windowConfirmations({
    clock: deps.clock,
    parent: conversation,
    ...(deps.inspect === undefined ? {} : { inspect: deps.inspect }),
    record,
    turn: currentTurn,
  });
  const step = modelStep({
    model: deps.model,
    ...(deps.modelFor === undefined ? {} : { modelFor: deps.modelFor }),
    modelName: assistant?.model ?? "claude-sonnet-5-5",
    maxTokensPerStep: deps.maxTokensPerStep,
    user: () => user,
    framed,
    text,
    record,
  });

  /** What one conversation of the window runs with; its tool steps are written only while it lives. */
  const bindingOf = (mine: number): WindowBinding => {
    const dead = () => closed() || mine !== phases.at.context.generation;
    return {
      callModel: step.call,
      tools: {
        clientId,
        user: () => user,
        framed,
        confirmer: { ask: (request, signal) => confirmations.broker().ask(request, signal) },
        log: (event) => (dead() ? notWritten() : record(event)),
        confirmed: (callId) => (dead() ? notWritten() : confirmations.stored(callId)),
        turn: currentTurn,
      },
    };
  };

  /** Folds the log; a turn the log shows running was interrupted and is recorded so. */
  const recover = async (): Promise<Recovered> => {
    await after;
    const events = await log.reload();
    // The log names its owner (from before a restart, or another process): anyone else is refused.
    const named = events.findLast((e) => e._tag === "WindowOwned");
    if (named !== undefined && named.owner !== owner) throw new WindowOwnerMismatch({ clientId });
    ownerRecorded = named !== undefined || !deps.store.durable;
    // On a shared store, a live host holding the lease may be running it: it is left to that host.
    if (log.status().running) await writer.ifFree(() => lease().interrupt());
    return { window: key, conversation: conversationFrom(log, assistant, deps.codeCallDeadlineMs) };
  };

  const supervised: Supervised = {
    recover,
    started: () => {
      const next = deps.supervisor(key).system.get(conversationId(key)) as
        | WindowConversation
        | undefined;
      if (next === undefined) return;
      deps.bindings.set(next, bindingOf(phases.at.context.generation));
      next.on("log", ({ event }) => void record(event));
      phases.send({ type: "STARTED", conversation: next });
      const { fault, refusedStart } = phases.at.context;
      // A prompt whose turn the log never started ends here, refused; asked again of this
      // conversation when only an append before its start was refused (not after a lost lease).
      turns.refuse(
        () =>
          fault ??
          promptRefused(
            "windowFailed",
            "this window's conversation failed before the turn started",
          ),
        log.status().turn,
        (turn) => turn !== refusedStart && !(fault instanceof LeaseLost),
      );
      // An append refused while no conversation ran: this one fails at once, and the log is read again.
      if (log.refused()) next.send({ type: "FAULT", error: fault });
    },
    crashed: () => {
      // What the dead conversation had running (a model request, a tool run) is stopped with it.
      const children: Record<string, AnyActorRef | undefined> =
        conversation()?.getSnapshot().children ?? {};
      for (const child of Object.values(children)) if (child !== undefined) stopActor(child);
      openTools = 0; // its tool steps write nothing more
      phases.send({ type: "CRASHED" });
    },
    failed: (error, reason) => {
      phases.send({ type: "GAVE_UP", error, reason });
      turns.refuse(() => error);
      // Its streams end, as a closed window's do: their clients open the window again.
      log.close();
      // Someone else's window is a refusal, not a fault: it is forgotten, so its owner opens it.
      if (error instanceof WindowOwnerMismatch) deps.onClose(clientId, window, Promise.resolve());
      else deps.onError(error, { clientId });
    },
  };
  /** Once the log is read: another user's window is refused. */
  const owned = async () => {
    await ready;
    const failure = failed();
    if (failure?.error instanceof WindowOwnerMismatch) throw failure.error;
  };

  const live = async () => {
    await phases.starting;
    const failure = failed();
    // A log that could not be read is the store's failure, not a refusal: it is passed on as it is.
    if (failure?.reason === "unreadableLog") throw failure.error;
    if (failure !== undefined)
      throw promptRefused("windowFailed", "this window's conversation failed; open it again");
    const running = conversation();
    if (closed() || running === undefined) throw promptRefused("closed", "this window is closed");
    return running;
  };

  /** What the window does as its own writer: everything, on a store without leases. */
  const local = localOps({
    deps,
    clientId,
    user: () => user,
    log,
    phases,
    live,
    turns,
    confirmations,
    record,
    text,
    step,
  });
  const ops = writerOps({
    local,
    writer,
    routing: deps.routing,
    clientId,
    owner,
    log,
    clock: deps.clock,
    ready: async () => {
      if (assistant === undefined) throw promptRefused("noAssistant", "this app has no assistant");
      await live();
    },
    started: () => live().then(() => undefined),
    owned,
    turn: currentTurn,
  });

  const view = windowView({
    log,
    clientId,
    clock: deps.clock,
    live: deps.live,
    onIdle: deps.onIdle,
    owned,
    starting: () => phases.starting,
    failed,
    closed,
    actor: conversation,
    questions: () => confirmations.made()?.pending().length ?? 0,
    streams: { owner, max: deps.maxStreamsPerWindow, counts: deps.userStreams },
  });
  const window: OpenWindow = {
    clientId,
    key,
    ready,
    supervised,
    phases,
    setUser: (next) => {
      user = next;
    },
    catchUp: (toSeq) => {
      // Another owner's log closes the window: opened again, it is refused.
      const catchUp = () => {
        if (!closed()) lease().catchUp(toSeq, () => void window.close().catch(() => undefined));
      };
      // Without leases, a notice is mostly of this window's own append, told before it resolved:
      // looked at once the appends in flight are stored, so that none makes the lease for nothing.
      if (deps.routing !== undefined || toSeq === undefined) catchUp();
      else if (toSeq > log.lastSeq())
        void log.idle().then(() => toSeq > log.lastSeq() && catchUp());
    },
    prompt: promptAnew(ops.prompt, failed, () => deps.reopen(clientId, user)),
    confirm: ops.confirm,
    // Checked at subscription, not at the call: a query opened after the window closed is refused.
    live: (command, args) =>
      defer(() =>
        closed()
          ? throwError(
              () => new LiveQueryRefused({ reason: "closed", detail: "this window is closed" }),
            )
          : deps.live.subscribe({ clientId, user, currentUser: () => user }, command, args),
      ),
    select: ops.select,
    stop: ops.stop,
    reset: ops.reset,
    answer: ops.answer,
    ...view,
    close: () => {
      if (closing !== undefined) return closing;
      // A turn still running ends Stopped, so its prompt settles and its log is whole.
      const running = conversation();
      if (running !== undefined && !running.getSnapshot().matches("idle")) {
        text.flush();
        running.send({ type: "STOP", streamed: step.streamed() });
      }
      const givenUp = failed() !== undefined;
      phases.send({ type: "CLOSE" });
      deps.live.close(clientId);
      // A window given up has nothing left with the supervisor (and may have been opened anew).
      if (!givenUp) deps.supervisor(key).send({ type: "CLOSE", window: key });
      closing = (async () => {
        await log.idle().catch(() => undefined);
        turns.refuse(() => promptRefused("closed", "this window closed before the turn ended"));
        // Every stream of the window ends, after what was stored: clients open the window again.
        log.close();
        if (!deps.store.durable) await deps.store.drop(log.stream);
        phases.send({ type: "CLOSED" });
      })();
      // Forgotten now; a window opened on this client id reads the log once this one is done.
      deps.onClose(
        clientId,
        window,
        closing.catch(() => undefined),
      );
      return closing;
    },
  };
  return window;
};
