/**
 * Step 7 of the call path (docs/commands.md): the user's confirmation. The
 * question is bound to a single-use id, the tool and the digest of the
 * arguments; an answer is taken only when it names all three; an accepted
 * edit is a new call of the same tool, checked again, and what runs is
 * exactly what was approved. The arguments' digest is computed once per
 * call, and the edit's once; what is read again after the wait is compared
 * by its canonical JSON, the text the digest is of.
 */
import { Either } from "effect";
import { type App, userHas } from "../commands/app.ts";
import type { Command } from "../commands/command.ts";
import { editWithin } from "../commands/confirmation.ts";
import { type Issue, issuesOf } from "../commands/issues.ts";
import type { Origin, User } from "../commands/origin.ts";
import { toolTitle } from "../commands/toolHints.ts";
import type { Clock } from "../ports/clock.ts";
import type { Ids } from "../ports/ids.ts";
import { canonicalJson, digestOfCanonical, jsonCopyOf } from "./canonicalJson.ts";
import type { ConfirmAnswer, Confirmer, ConfirmRequest } from "./confirmer.ts";
import { labelOf } from "./confirmLabel.ts";
import type { CallOutcome } from "./outcome.ts";

/**
 * What a step of the call path decided: the call goes on with these decoded
 * `args` (and, after an accepted edit, the `edited` arguments that run), or
 * it ends with `outcome`.
 */
export type Admission =
  | { readonly _tag: "Admitted"; readonly args: unknown; readonly edited?: unknown }
  | { readonly _tag: "Refused"; readonly outcome: CallOutcome };

/** What of a call's context the confirmation reads (a `CallContext` is one). */
export interface ConfirmContext {
  readonly user: User;
  readonly origin: Origin;
  readonly scope: string;
  /** Who asks the user; without one, the call is declined. */
  readonly confirmer?: Confirmer;
}

/** One call to confirm: its command, its arguments as sent and decoded. */
export interface ConfirmCall {
  readonly command: Command;
  readonly callId: string;
  readonly tool: string;
  /** The arguments as sent: what is digested, shown and checked again after the wait. */
  readonly input: unknown;
  /** The arguments as the command decoded them (its `confirmLabel` reads them). */
  readonly decoded: unknown;
  readonly ctx: ConfirmContext;
  /** Stop: the question is given up. */
  readonly signal: AbortSignal;
  /** Steps 3 to 5 again, for edited arguments, without taking from the rate limit. */
  readonly admitEdit: (edited: unknown) => Admission | Promise<Admission>;
}

/** Options of {@link confirmStep}. */
export interface ConfirmStepOptions {
  readonly app: App;
  readonly clock: Clock;
  /** Confirmation ids: unguessable. */
  readonly confirmIds: Ids;
  /** How long a question waits before it is timed out. */
  readonly timeoutMs: number;
}

/** How a question ended, with the arguments the user approved when they changed them. */
type Answered = { readonly answer: ConfirmAnswer; readonly edited?: unknown };

/** Canonical JSON of a value and its digest; undefined when it has none (a BigInt, a cycle). */
type Digested = { readonly text: string; readonly digest: string };

/** The canonical JSON of `value`, or undefined when reading it throws. */
const textOf = (value: unknown): string | undefined => {
  try {
    return canonicalJson(value);
  } catch {
    return undefined;
  }
};

const digested = async (value: unknown): Promise<Digested | undefined> => {
  const text = textOf(value);
  if (text === undefined) return undefined;
  const digest = await digestOfCanonical(text).catch(() => undefined);
  return digest === undefined ? undefined : { text, digest };
};

/** The edit check a dialog is told of: the command's own decoding of the whole arguments. */
const checkEditOf =
  (command: Command) =>
  (edited: unknown): ReadonlyArray<Issue> => {
    const decoded = command.decode(edited);
    return Either.isLeft(decoded) ? issuesOf(decoded.left) : [];
  };

const refused = (outcome: CallOutcome): Admission => ({ _tag: "Refused", outcome });

/**
 * Makes the call path's confirmation step: asks the call's confirmer and
 * returns what became of the call, `Admitted` with the arguments to run or
 * `Refused` with the outcome (`Stopped`, `NotConfirmed`, `Denied`, or a
 * refusal of the edited arguments).
 *
 * @example
 * ```ts
 * const confirm = confirmStep({ app, clock, confirmIds, timeoutMs: CONFIRM_TIMEOUT_MS });
 * const admission = await confirm({
 *   command, callId, tool, input, decoded, ctx, signal,
 *   admitEdit: (edited) => admit(command, grant, edited, ctx, callId, tool, false),
 * });
 * if (admission._tag === "Refused") return admission.outcome;
 * ```
 */
export const confirmStep = (options: ConfirmStepOptions) => {
  const { app, clock, confirmIds, timeoutMs } = options;

  const ask = (
    ctx: ConfirmContext,
    outer: AbortSignal,
    request: Omit<ConfirmRequest, "confirmId" | "scope">,
  ): Promise<Answered | "stopped"> => {
    const confirmer = ctx.confirmer;
    if (confirmer === undefined) return Promise.resolve({ answer: "declined" });
    if (outer.aborted) return Promise.resolve("stopped");
    const confirmId = confirmIds.next();
    const giveUp = new AbortController();
    return new Promise<Answered | "stopped">((resolve) => {
      let settled = false;
      const settle = (answer: Answered | "stopped") => {
        if (settled) return;
        settled = true;
        clock.clearTimeout(timer);
        outer.removeEventListener("abort", onStop);
        giveUp.abort();
        resolve(answer);
      };
      const onStop = () => settle("stopped");
      const timer = clock.setTimeout(() => settle({ answer: "timedOut" }), timeoutMs);
      outer.addEventListener("abort", onStop, { once: true });
      confirmer.ask({ ...request, confirmId, scope: ctx.scope }, giveUp.signal).then(
        (reply) => {
          const bound =
            reply.confirmId === confirmId &&
            reply.tool === request.tool &&
            reply.digest === request.digest;
          if (!bound) settle({ answer: "declined" });
          else if (reply.answer === "accepted" && reply.edited !== undefined)
            settle({ answer: "accepted", edited: reply.edited });
          else settle({ answer: reply.answer });
        },
        () => settle({ answer: "declined" }),
      );
    });
  };

  return async (call: ConfirmCall): Promise<Admission> => {
    const { command, callId, tool, input, ctx } = call;
    const declined = (edited?: unknown): Admission =>
      refused({
        _tag: "NotConfirmed",
        callId,
        tool,
        answer: "declined",
        ...(edited === undefined ? {} : { edited }),
      });
    // Ask, bound to this id, tool and argument digest; single-use; 5 minutes.
    const asked = await digested(input);
    if (asked === undefined) return declined();
    const { confirmation } = command;
    const label = await labelOf(command, call.decoded, ctx.user, call.signal, clock);
    const reply = await ask(ctx, call.signal, {
      callId,
      tool,
      description: command.description,
      title: command.title ?? toolTitle(command.name),
      ...(command.summary === undefined ? {} : { summary: command.summary }),
      args: input,
      digest: asked.digest,
      ...(label === undefined ? {} : { label }),
      destructive: confirmation.destructive,
      action: confirmation.action,
      editable: confirmation.editable,
      ...(confirmation.editable.length === 0 ? {} : { checkEdit: checkEditOf(command) }),
    });
    if (reply === "stopped") return refused({ _tag: "Stopped", callId, tool });
    if (reply.answer !== "accepted") {
      return refused({ _tag: "NotConfirmed", callId, tool, answer: reply.answer });
    }
    // The edit is read once, as a JSON copy: what is checked is what runs, whatever getters
    // a Confirmer's object has. Arguments edited to what was asked are a plain acceptance;
    // ones JSON can't hold, none.
    const copy = reply.edited === undefined ? undefined : jsonCopyOf(reply.edited);
    const approved =
      reply.edited === undefined
        ? asked
        : copy === undefined
          ? undefined
          : await digested(copy.value);
    if (approved?.digest !== asked.digest) {
      // Edited: a new call of the same tool, checked again from the user's ability on; only
      // editable arguments may differ, and what runs is exactly what was approved.
      if (
        approved === undefined ||
        copy === undefined ||
        !editWithin(input, copy.value, confirmation.editable)
      )
        return declined();
      const edited = copy.value;
      // The same call: the rate limit it took when it was asked is not taken again.
      const again = await call.admitEdit(edited);
      if (again._tag === "Refused") return refused({ ...again.outcome, edited });
      if (textOf(edited) !== approved.text) return declined(edited);
      return { _tag: "Admitted", args: again.args, edited };
    }
    // What runs is what was confirmed: the arguments are read and checked again, and the
    // user still has the ability after the wait.
    if (textOf(input) !== asked.text) return declined();
    const again = command.decode(input);
    if (Either.isLeft(again)) return declined();
    const ability = command.can as string;
    if (ctx.origin.kind === "assistant" && !userHas(app, ctx.user, ability))
      return refused({ _tag: "Denied", callId, tool, ability });
    return { _tag: "Admitted", args: again.right };
  };
};
