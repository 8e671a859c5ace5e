import { type Observable, Subject } from "rxjs";
import { type Actor, type AnyActorRef, createActor } from "xstate";
import { confirmationMachine } from "../../machines/confirmationMachine.ts";
import type { AnswerResult, ConfirmEcho } from "../../runtime/calls/answerResult.ts";
import { canonicalJson, digestOf } from "../../runtime/calls/canonicalJson.ts";
import {
  CONFIRM_TIMEOUT_MS,
  type ConfirmAnswer,
  type Confirmer,
  type ConfirmReply,
  type ConfirmRequest,
} from "../../runtime/calls/confirmer.ts";
import { editWithin } from "../../runtime/commands/confirmation.ts";
import { type Clock, systemClock } from "../../runtime/ports/clock.ts";
import type { InspectObserver } from "../support/inspection.ts";
import { stopActor } from "../support/stopActor.ts";

/** An answer from the app's dialog. */
export interface ConfirmationAnswer extends ConfirmEcho {
  readonly confirmId: string;
  readonly accept: boolean;
  /** The window answering: only the asking window may answer. */
  readonly scope: string;
}

/** What became of an answer: the contract is `runtime/calls/answerResult.ts`'s. */
export type { AnswerResult };

/** How a confirmation ended, as the log records it. */
export interface ConfirmationSettled {
  readonly request: ConfirmRequest;
  readonly answer: ConfirmAnswer;
  /** Accepted with arguments the user changed. */
  readonly edited: boolean;
  /** With `edited`: the whole arguments as the user changed them (a copy of their JSON), what the call path runs. */
  readonly args?: unknown;
}

/** A confirmer that asks through the app's own dialog and takes answers by id. */
export interface ConfirmationBroker extends Confirmer {
  /** Each request to show, as it is made. */
  readonly requests$: Observable<ConfirmRequest>;
  /** Each confirmation that ended: answered, declined, mismatched (declined) or timed out. */
  readonly settled$: Observable<ConfirmationSettled>;
  /** Requests waiting for an answer. */
  readonly pending: () => ReadonlyArray<ConfirmRequest>;
  /**
   * Answers a request once. An unknown or already answered id, another
   * window's id, or a tool or arguments other than those asked are refused;
   * a mismatch also settles the request as declined.
   */
  readonly answer: (answer: ConfirmationAnswer) => Promise<AnswerResult>;
}

export interface ConfirmationBrokerOptions {
  /** Drives the 5-minute timeout; XState's `SimulatedClock` in tests. */
  readonly clock?: Clock;
  readonly timeoutMs?: number;
  /** XState's inspection events of each confirmation machine (see `HostOptions.inspect`). */
  readonly inspect?: InspectObserver;
  /**
   * The actor each confirmation is a child of (a window's conversation): it
   * then runs in that actor's system, on its clock, seen by its inspector.
   *
   * @internal
   */
  readonly parent?: () => AnyActorRef | undefined;
}

/** One machine per timeout, shared by every broker: an idle window pays for none. */
const machines = new Map<number, typeof confirmationMachine>();
const machineFor = (timeoutMs: number) => {
  let machine = machines.get(timeoutMs);
  if (machine === undefined) {
    machine = confirmationMachine.provide({ delays: { timeout: timeoutMs } });
    machines.set(timeoutMs, machine);
  }
  return machine;
};

/**
 * The in-memory confirmation broker: each request is a confirmation machine
 * (pending → accepted | declined | timedOut after 5 minutes), and each id is
 * redeemable once, by the window that asked.
 *
 * @example
 * ```ts
 * const broker = confirmationBroker();
 * broker.requests$.subscribe((r) => showDialog(r.tool, r.description, r.args, r.confirmId));
 * await broker.answer({ confirmId, accept: true, scope: "window-1" });
 * ```
 */
export const confirmationBroker = (options: ConfirmationBrokerOptions = {}): ConfirmationBroker => {
  const clock = options.clock ?? systemClock;
  const machine = machineFor(options.timeoutMs ?? CONFIRM_TIMEOUT_MS);
  type Waiting = {
    request: ConfirmRequest;
    actor: Actor<typeof machine>;
    edited?: unknown;
    /** The answer being weighed: the next waits for it. */
    answering: Promise<void>;
  };
  const waiting = new Map<string, Waiting>();
  const requests = new Subject<ConfirmRequest>();
  const settled = new Subject<ConfirmationSettled>();
  /** What an answer does to the question it answers, still waiting when it starts. */
  const weigh = async (
    entry: Waiting,
    { accept, tool, args, edited }: ConfirmationAnswer,
  ): Promise<AnswerResult> => {
    const { request } = entry;
    const toolDiffers = tool !== undefined && tool !== request.tool;
    const argsDiffer =
      args !== undefined && (await digestOf(args).catch(() => "")) !== request.digest;
    // Settled meanwhile (timed out, or the call path gave up): nothing left to answer.
    if (entry.actor.getSnapshot().status !== "active") return UNKNOWN;
    const change = accept && edited !== undefined ? editOf(request, edited) : NO_CHANGE;
    if (toolDiffers || argsDiffer || change === OUT_OF_BOUNDS) {
      entry.actor.send({ type: "ANSWER", accept: false });
      return { _tag: "Mismatch" };
    }
    if (change !== NO_CHANGE) {
      const issues = request.checkEdit?.(change) ?? [];
      // Still asked: the dialog shows what to fix.
      if (issues.length > 0) return { _tag: "InvalidEdit", issues };
      entry.edited = change;
    }
    entry.actor.send({ type: "ANSWER", accept });
    if (!accept) return { _tag: "Answered", answer: "declined" };
    return change === NO_CHANGE
      ? { _tag: "Answered", answer: "accepted" }
      : { _tag: "Answered", answer: "accepted", edited: true };
  };
  return {
    requests$: requests.asObservable(),
    settled$: settled.asObservable(),
    pending: () => [...waiting.values()].map((w) => w.request),
    ask: (request, signal) =>
      new Promise<ConfirmReply>((resolve, reject) => {
        if (signal.aborted) return reject(signal.reason);
        const parent = options.parent?.();
        const actor = createActor(machine, {
          // One name for every confirmation: its parent is told `xstate.done.actor.confirmation`,
          // and a machine keeps what it looked up for each event name it ever saw.
          id: "confirmation",
          input: { confirmId: request.confirmId, tool: request.tool, digest: request.digest },
          clock,
          ...(parent === undefined ? {} : { parent }),
          ...(options.inspect === undefined ? {} : { inspect: options.inspect }),
        });
        const entry: Waiting = { request, actor, answering: Promise.resolve() };
        const forget = () => {
          if (waiting.get(request.confirmId)?.actor === actor) waiting.delete(request.confirmId);
          stopActor(actor);
          reject(signal.reason);
        };
        actor.subscribe((snapshot) => {
          if (snapshot.status !== "done") return;
          signal.removeEventListener("abort", forget);
          waiting.delete(request.confirmId);
          const answer = snapshot.output as ConfirmAnswer;
          const edited = answer === "accepted" ? entry.edited : undefined;
          settled.next(
            edited === undefined
              ? { request, answer, edited: false }
              : // The log's own copy: what it holds (and freezes) is not what the call path runs.
                { request, answer, edited: true, args: structuredClone(edited) },
          );
          resolve({
            confirmId: request.confirmId,
            tool: request.tool,
            digest: request.digest,
            answer,
            ...(edited === undefined ? {} : { edited }),
          });
        });
        signal.addEventListener("abort", forget, { once: true });
        waiting.set(request.confirmId, entry);
        actor.start();
        requests.next(request);
      }),
    answer: (answer) => {
      const entry = waiting.get(answer.confirmId);
      if (entry === undefined) return Promise.resolve({ _tag: "UnknownConfirmation" });
      if (entry.request.scope !== answer.scope) return Promise.resolve({ _tag: "OtherWindow" });
      // One answer at a time: the next is weighed only once the one before has settled the
      // question or left it waiting (an invalid edit), so a decline is never lost to it.
      const result = entry.answering.then(() =>
        waiting.get(answer.confirmId) === entry ? weigh(entry, answer) : UNKNOWN,
      );
      entry.answering = result.then(noop, noop);
      return result;
    },
  };
};

const UNKNOWN: AnswerResult = { _tag: "UnknownConfirmation" };
const noop = () => {};
const NO_CHANGE = Symbol("no change");
const OUT_OF_BOUNDS = Symbol("out of bounds");

/**
 * The edited arguments as a copy of their JSON (what the dialog sent can't
 * change after it is checked), `NO_CHANGE` when they are the arguments
 * asked, `OUT_OF_BOUNDS` when something not editable changed or they are
 * not JSON.
 */
const editOf = (
  request: ConfirmRequest,
  edited: unknown,
): unknown | typeof NO_CHANGE | typeof OUT_OF_BOUNDS => {
  let json: string;
  let copy: unknown;
  try {
    json = canonicalJson(edited);
    copy = JSON.parse(json);
  } catch {
    return OUT_OF_BOUNDS;
  }
  if (!editWithin(request.args, copy, request.editable)) return OUT_OF_BOUNDS;
  return json === canonicalJson(request.args) ? NO_CHANGE : copy;
};
