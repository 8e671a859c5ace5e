/**
 * The bounds of a turn and the sentences a turn ends with when it reaches
 * one: the token budget, the step bound, a refusal, and code mode's cap and
 * deadline. The machines enforce them; they live here so the public entry
 * can name them without the machines.
 */

/**
 * The sentence a conversation ends with when its token budget is spent.
 *
 * @example
 * ```ts
 * budgetSpent(200_000);
 * // "This conversation has used its budget of 200,000 tokens. Reset it to start a new one."
 * ```
 */
export const budgetSpent = (budget: number): string =>
  `This conversation has used its budget of ${budget.toLocaleString("en-US")} tokens. Reset it to start a new one.`;

/**
 * The sentence a turn ends with when it reaches its step bound.
 *
 * @example
 * ```ts
 * const ended = turn.panel.items.some((item) => item.kind === "error" && item.error === stepsSpent(8));
 * ```
 */
export const stepsSpent = (maxSteps: number): string =>
  `The turn stopped after ${maxSteps} model steps without an answer. Ask again to go on.`;

/**
 * What the user sees when the model refuses without saying why.
 *
 * @example
 * ```ts
 * const declined = turn.panel.items.some((item) => item.kind === "answer" && item.text === REFUSED);
 * ```
 */
export const REFUSED = "Claude declined to answer this.";

/**
 * Calls from code one prompt may make in code mode: 500. Past it the turn
 * fails, saying the task was too big; a command that does the many at once
 * (one call for all the reminders) keeps a large task under it.
 *
 * @example
 * ```ts
 * // Code mode would make one call per invoice: past the cap, the bulk command does them at once.
 * const w = host.window("tab-1", { user });
 * await w.prompt(
 *   overdue.length > MAX_CODE_CALLS
 *     ? "Send reminders for all overdue invoices with invoices_remind_all."
 *     : "Send a reminder for each overdue invoice.",
 * );
 * ```
 */
export const MAX_CODE_CALLS = 500;

/**
 * How long pending calls from code may take before they are answered with
 * an error: 3 min 30 s, under the API's ~4-minute limit on a pending call,
 * unless the host is given `codeCallDeadlineMs`.
 *
 * @example
 * ```ts
 * // Behind a gateway that drops a request after 3 minutes.
 * const host = createHost(app, { model, codeCallDeadlineMs: CODE_CALL_DEADLINE_MS - 60_000 });
 * ```
 */
export const CODE_CALL_DEADLINE_MS = 210_000;

/**
 * The sentence a turn fails with past the cap.
 *
 * @example
 * ```ts
 * tooManyCodeCalls(MAX_CODE_CALLS); // "This task made more than 500 calls from code in one prompt, …"
 * ```
 */
export const tooManyCodeCalls = (cap: number): string =>
  `This task made more than ${cap} calls from code in one prompt, more than code mode supports. Ask for a smaller part of it.`;

/**
 * The result a call gets when it was not done by the deadline.
 *
 * @example
 * ```ts
 * lateResult(CODE_CALL_DEADLINE_MS); // "error: the call did not finish within 210 s; it may still complete, …"
 * ```
 */
export const lateResult = (deadlineMs: number): string =>
  `error: the call did not finish within ${Math.round(deadlineMs / 1000)} s; it may still complete, so check before trying it again`;

/**
 * The sentence a turn in flight when its window crashed ends with (it is not run again).
 *
 * @example
 * ```ts
 * const lost = panel.items.filter((item) => item.kind === "error" && item.error === INTERRUPTED);
 * ```
 */
export const INTERRUPTED = "interrupted";
