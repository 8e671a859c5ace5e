import { Either } from "effect";
import { type Observable, Subject } from "rxjs";
import { clip } from "../clip.ts";
import { type App, type Grant, userHas } from "../commands/app.ts";
import { grantOf } from "../commands/catalog.ts";
import type { Command } from "../commands/command.ts";
import { issuesOf } from "../commands/issues.ts";
import type { Caller, Origin, User } from "../commands/origin.ts";
import { type Clock, systemClock } from "../ports/clock.ts";
import { type Ids, randomIds } from "../ports/ids.ts";
import type { Activity, AgentCalled } from "./audit.ts";
import { CONFIRM_TIMEOUT_MS, type Confirmer } from "./confirmer.ts";
import { type Admission, confirmStep } from "./confirmStep.ts";
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
  const rateLimits = options.rateLimits ?? memoryRateLimitStore();
  const confirm = confirmStep({
    app,
    clock,
    confirmIds: options.confirmIds ?? randomIds(),
    timeoutMs: options.confirmTimeoutMs ?? CONFIRM_TIMEOUT_MS,
  });
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
      // 7. Ask; an accepted edit is checked again from the user's ability on (confirmStep.ts).
      const confirmed = await confirm({
        command,
        callId,
        tool,
        input,
        decoded,
        ctx,
        signal,
        admitEdit: (edit) => admit(command, grant, edit, ctx, callId, tool, false),
      });
      if (confirmed._tag === "Refused") return confirmed.outcome;
      decoded = confirmed.args;
      if (confirmed.edited !== undefined) {
        input = confirmed.edited;
        edited = input;
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

  return { call, activity$: activity.asObservable(), audit$: audit.asObservable() };
};

const MAX_AUDIT_NAME = 128;
