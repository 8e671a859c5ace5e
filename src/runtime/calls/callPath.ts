import { Either } from "effect";
import { type Observable, Subject } from "rxjs";
import { clip } from "../clip.ts";
import { type App, type Grant, userHas } from "../commands/app.ts";
import { grantOf } from "../commands/catalog.ts";
import type { Command } from "../commands/command.ts";
import { editWithin } from "../commands/confirmation.ts";
import { type Issue, issuesOf } from "../commands/issues.ts";
import type { Caller, Origin, User } from "../commands/origin.ts";
import { toolTitle } from "../commands/toolHints.ts";
import { type Clock, systemClock } from "../ports/clock.ts";
import { type Ids, randomIds } from "../ports/ids.ts";
import type { Activity, AgentCalled } from "./audit.ts";
import { digestOf, jsonCopyOf } from "./canonicalJson.ts";
import {
  CONFIRM_TIMEOUT_MS,
  type ConfirmAnswer,
  type Confirmer,
  type ConfirmRequest,
} from "./confirmer.ts";
import { labelOf } from "./confirmLabel.ts";
import { type AuditOutcome, auditOutcome, type CallOutcome } from "./outcome.ts";
import { memoryRateLimitStore, type RateDecision, type RateLimitStore } from "./rateLimit.ts";
import { errorLines, outcomeOfResult } from "./runOutcome.ts";

/** A tool call as the model (or an MCP client) made it. */
export interface ToolCall {
  readonly tool: string;
  /** The arguments as sent: untrusted. */
  readonly input: unknown;
  /** The model's `tool_use` id; one is made when absent. */
  readonly callId?: string;
  /** Direct, or from code; direct when absent. */
  readonly caller?: Caller;
}

/** Who a call is made for and where it belongs. */
export interface CallContext {
  readonly user: User;
  /** `{ kind: "assistant" }` uses the assistant's grant and checks the user; `agent` uses MCP's. */
  readonly origin: Origin;
  /** The window (or MCP session): rate limits and confirmations are kept per scope. */
  readonly scope: string;
  /** Aborted by Stop: a call not yet running is not run; a running command sees it. */
  readonly signal?: AbortSignal;
  /** The tools offered this turn; a call to any other is an unknown tool. */
  readonly offered?: ReadonlySet<string>;
  /** Who asks the user; without one, a call that needs confirming is not confirmed. */
  readonly confirmer?: Confirmer;
  /**
   * After an accepted confirmation and every check after it, just before the
   * command runs: resolves once the answer is stored where it counts (a
   * window's log, appended under its lease), so that a host that lost the
   * window while the user was asked runs nothing. The call path waits for
   * it; when it rejects, the command does not run and `call` rejects with
   * its reason.
   */
  readonly confirmed?: (callId: string) => Promise<unknown>;
}

/** Options of {@link createCallPath}; every one has a default. */
export interface CallPathOptions {
  readonly clock?: Clock;
  /** Ids for calls that come without one. */
  readonly ids?: Ids;
  /**
   * Confirmation ids: 128 random bits from WebCrypto by default. They must be
   * unguessable; inject predictable ones only in tests.
   */
  readonly confirmIds?: Ids;
  readonly rateLimits?: RateLimitStore;
  /** How long a confirmation waits: 5 minutes. */
  readonly confirmTimeoutMs?: number;
}

/** The one call path: every tool call, from the assistant or MCP, goes through `call`. */
export interface CallPath {
  readonly call: (call: ToolCall, ctx: CallContext) => Promise<CallOutcome>;
  /** Commands starting and finishing (no arguments). */
  readonly activity$: Observable<Activity>;
  /** One `AgentCalled` record per call, refusals included (no arguments). */
  readonly audit$: Observable<AgentCalled>;
}

const NEVER_ABORTED = new AbortController().signal;

/** How a question ended, with the arguments the user approved when they changed them. */
type Answered = { readonly answer: ConfirmAnswer; readonly edited?: unknown };

type Admission =
  | { readonly _tag: "Admitted"; readonly args: unknown }
  | { readonly _tag: "Refused"; readonly outcome: CallOutcome };

const refused = (outcome: CallOutcome): Admission => ({ _tag: "Refused", outcome });

/** 5. The arguments, decoded with the command's schema. */
const decodeArguments = (
  command: Command,
  input: unknown,
  callId: string,
  tool: string,
): Admission => {
  const decoded = command.decode(input);
  return Either.isLeft(decoded)
    ? refused({ _tag: "InvalidArguments", callId, tool, issues: issuesOf(decoded.left) })
    : { _tag: "Admitted", args: decoded.right };
};

/** The edit check a dialog is told of: the command's own decoding of the whole arguments. */
const checkEditOf =
  (command: Command) =>
  (edited: unknown): ReadonlyArray<Issue> => {
    const decoded = command.decode(edited);
    return Either.isLeft(decoded) ? issuesOf(decoded.left) : [];
  };

/**
 * Makes the app's call path (the ten steps of docs/commands.md): resolve,
 * grant, user ability, rate limit, arguments, code caller, confirmation, run,
 * publish, format.
 *
 * @example
 * ```ts
 * const path = createCallPath(app);
 * const outcome = await path.call(
 *   { tool: "customers_show", input: { id: 42 } },
 *   { user, origin: { kind: "assistant" }, scope: "window-1" },
 * );
 * formatOutcome(outcome).text; // '{"id":42,"name":"Ada"}'
 * ```
 */
export const createCallPath = (app: App, options: CallPathOptions = {}): CallPath => {
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? randomIds();
  const confirmIds = options.confirmIds ?? randomIds();
  const rateLimits = options.rateLimits ?? memoryRateLimitStore();
  const confirmTimeoutMs = options.confirmTimeoutMs ?? CONFIRM_TIMEOUT_MS;
  const activity = new Subject<Activity>();
  const audit = new Subject<AgentCalled>();

  const record = (ctx: CallContext, tool: string, outcome: AuditOutcome, startedAt: number) => {
    if (!audit.observed) return;
    const client = ctx.origin.kind === "agent" ? ctx.origin.client : "assistant";
    const name = clip(tool, MAX_AUDIT_NAME);
    audit.next({
      _tag: "AgentCalled",
      client,
      tool: name,
      outcome,
      durationMs: clock.now() - startedAt,
    });
  };

  const call = async (call: ToolCall, ctx: CallContext): Promise<CallOutcome> => {
    const startedAt = clock.now();
    const callId = call.callId ?? ids.next();
    const tool = typeof call.tool === "string" ? call.tool : String(call.tool);
    const outcome = await decide(call, ctx, callId, tool);
    record(ctx, outcome.tool, auditOutcome(outcome), startedAt);
    return outcome;
  };

  const decide = async (
    call: ToolCall,
    ctx: CallContext,
    callId: string,
    tool: string,
  ): Promise<CallOutcome> => {
    const signal = ctx.signal ?? NEVER_ABORTED;
    // Stopped before it began: nothing is checked, nothing is taken from the rate limit.
    if (signal.aborted) return { _tag: "Stopped", callId, tool };
    // 1. Resolve (a Map, so no prototype lookups), within what this turn offered.
    const grant: Grant | undefined = grantOf(
      app,
      ctx.origin.kind === "assistant" ? "assistant" : "mcp",
    );
    const command: Command | undefined = grant?.tools.get(tool);
    if (
      grant === undefined ||
      command === undefined ||
      (ctx.offered !== undefined && !ctx.offered.has(tool))
    ) {
      return { _tag: "UnknownTool", callId, tool };
    }
    // 2. The grant covers the ability (its catalog holds only what it covers; checked again here).
    const ability = command.can as string;
    if (!grant.covers(ability)) return { _tag: "UnknownTool", callId, tool };
    // 3–5. The user's ability, the rate limit, the arguments.
    const admission = admit(command, grant, call.input, ctx, callId, tool);
    const admitted = admission instanceof Promise ? await admission : admission;
    if (admitted._tag === "Refused") return admitted.outcome;
    let decoded: unknown = admitted.args;
    let input: unknown = call.input;
    let edited: unknown;
    const caller: Caller = call.caller ?? { type: "direct" };
    if (grant.needsConfirm(ability)) {
      // 6. Code may not call what needs the user's confirmation.
      if (caller.type === "code") return { _tag: "CodeCallerRefused", callId, tool };
      // 7. Ask, bound to this id, tool and argument digest; single-use; 5 minutes.
      const digest = await digestOf(call.input).catch(() => undefined);
      if (digest === undefined) return { _tag: "NotConfirmed", callId, tool, answer: "declined" };
      const { confirmation } = command;
      const label = await labelOf(command, decoded, ctx.user, signal, clock);
      const reply = await confirm(ctx, {
        callId,
        tool,
        description: command.description,
        title: command.title ?? toolTitle(command.name),
        ...(command.summary === undefined ? {} : { summary: command.summary }),
        args: call.input,
        digest,
        ...(label === undefined ? {} : { label }),
        destructive: confirmation.destructive,
        action: confirmation.action,
        editable: confirmation.editable,
        ...(confirmation.editable.length === 0 ? {} : { checkEdit: checkEditOf(command) }),
      });
      if (reply === "stopped") return { _tag: "Stopped", callId, tool };
      if (reply.answer !== "accepted") {
        return { _tag: "NotConfirmed", callId, tool, answer: reply.answer };
      }
      // The edit is read once, as a JSON copy: what is checked is what runs, whatever getters
      // a Confirmer's object has. Arguments edited to what was asked are a plain acceptance;
      // ones JSON can't hold, none.
      const copy = reply.edited === undefined ? undefined : jsonCopyOf(reply.edited);
      const approved =
        reply.edited === undefined
          ? digest
          : copy === undefined
            ? undefined
            : await digestOf(copy.value).catch(() => undefined);
      if (approved !== digest) {
        // Edited: a new call of the same tool, checked again from the user's ability on; only
        // editable arguments may differ, and what runs is exactly what was approved.
        if (
          approved === undefined ||
          copy === undefined ||
          !editWithin(call.input, copy.value, confirmation.editable)
        )
          return { _tag: "NotConfirmed", callId, tool, answer: "declined" };
        input = copy.value;
        edited = input;
        // The same call: the rate limit it took when it was asked is not taken again.
        const again = await admit(command, grant, input, ctx, callId, tool, false);
        if (again._tag === "Refused") return { ...again.outcome, edited };
        if ((await digestOf(input).catch(() => undefined)) !== approved)
          return { _tag: "NotConfirmed", callId, tool, answer: "declined", edited };
        decoded = again.args;
      } else {
        // What runs is what was confirmed: the arguments are read and checked again, and the
        // user still has the ability after the wait.
        if ((await digestOf(call.input).catch(() => undefined)) !== digest)
          return { _tag: "NotConfirmed", callId, tool, answer: "declined" };
        const again = command.decode(call.input);
        if (Either.isLeft(again)) return { _tag: "NotConfirmed", callId, tool, answer: "declined" };
        if (ctx.origin.kind === "assistant" && !userHas(app, ctx.user, ability))
          return { _tag: "Denied", callId, tool, ability };
        decoded = again.right;
      }
    }
    // A confirmed call runs only once its answer is stored, under the window's lease now.
    if (grant.needsConfirm(ability) && ctx.confirmed !== undefined) await ctx.confirmed(callId);
    if (signal.aborted) return { _tag: "Stopped", callId, tool };
    // 8. Run, with the origin, the user and the abort signal. 9. Publish activity.
    const scope = ctx.scope;
    const origin = ctx.origin;
    activity.next({ type: "started", callId, tool, caller, origin, scope });
    let outcome: CallOutcome;
    try {
      const value = await command.run(decoded, { user: ctx.user, origin, signal });
      outcome = outcomeOfResult(command, input, value, callId, tool);
    } catch (error) {
      outcome = { _tag: "Failed", callId, tool, lines: errorLines(error) };
    }
    if (edited !== undefined) outcome = { ...outcome, edited };
    const link = outcome._tag === "Succeeded" ? outcome.link : undefined;
    activity.next({
      type: "finished",
      callId,
      tool,
      ok: outcome._tag === "Succeeded",
      ...(link ? { link } : {}),
      origin,
      scope,
    });
    return outcome;
  };

  /**
   * Steps 3 to 5, for the model's arguments and again for arguments the user
   * edited. Synchronous unless the rate-limit store answers with a promise:
   * a call on the in-memory store waits on no extra turn of the event loop.
   */
  const admit = (
    command: Command,
    grant: Grant,
    input: unknown,
    ctx: CallContext,
    callId: string,
    tool: string,
    takeLimit = true,
  ): Admission | Promise<Admission> => {
    const ability = command.can as string;
    // 3. Assistant only: the user has the ability now. A userAbilities that throws denies.
    if (ctx.origin.kind === "assistant" && !userHas(app, ctx.user, ability)) {
      return refused({ _tag: "Denied", callId, tool, ability });
    }
    // 4. The tool's rate limit, per scope; a failing store refuses (fail closed).
    const limit = command.rateLimit ?? grant.rateLimit;
    if (limit === undefined || !takeLimit) return decodeArguments(command, input, callId, tool);
    let taken: RateDecision | Promise<RateDecision>;
    try {
      taken = rateLimits.take(
        `${grant.surface}\u0000${ctx.scope}\u0000${tool}`,
        limit,
        clock.now(),
      );
    } catch {
      return refused({ _tag: "RateLimitUnavailable", callId, tool });
    }
    const decided = (decision: RateDecision): Admission =>
      decision._tag === "Limited"
        ? refused({ _tag: "RateLimited", callId, tool, retryAfterMs: decision.retryAfterMs })
        : decodeArguments(command, input, callId, tool);
    return taken instanceof Promise
      ? taken.then(decided, () => refused({ _tag: "RateLimitUnavailable", callId, tool }))
      : decided(taken);
  };

  const confirm = (
    ctx: CallContext,
    request: Omit<ConfirmRequest, "confirmId" | "scope">,
  ): Promise<Answered | "stopped"> => {
    const confirmer = ctx.confirmer;
    if (confirmer === undefined) return Promise.resolve({ answer: "declined" });
    const outer = ctx.signal ?? NEVER_ABORTED;
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
      const timer = clock.setTimeout(() => settle({ answer: "timedOut" }), confirmTimeoutMs);
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

  return { call, activity$: activity.asObservable(), audit$: audit.asObservable() };
};

const MAX_AUDIT_NAME = 128;
