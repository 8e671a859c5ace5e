import type { Command } from "../commands/command.ts";
import { CONFIRM_LABEL_TIMEOUT_MS, labelText } from "../commands/confirmation.ts";
import type { User } from "../commands/origin.ts";
import type { Clock } from "../ports/clock.ts";

/**
 * A command's confirmation sentence for these decoded arguments, or
 * undefined for the default: when it has none, throws, rejects, gives no
 * string, takes over 2 s on `clock`, or the call is stopped first. Never
 * rejects; a label that settles late is ignored (its signal is aborted).
 *
 * @example
 * ```ts
 * await labelOf(customersDestroy, { id: 42 }, user, signal, systemClock);
 * // "Delete Grace Hamilton (customer 42) and her 3 invoices?"
 * ```
 */
export const labelOf = (
  command: Command,
  args: unknown,
  user: User,
  signal: AbortSignal,
  clock: Clock,
): Promise<string | undefined> => {
  const label = command.confirmation.label;
  if (label === undefined || signal.aborted) return Promise.resolve(undefined);
  const giveUp = new AbortController();
  return new Promise<string | undefined>((resolve) => {
    let settled = false;
    const done = (value: unknown) => {
      if (settled) return;
      settled = true;
      clock.clearTimeout(timer);
      signal.removeEventListener("abort", onStop);
      giveUp.abort();
      resolve(labelText(value));
    };
    const onStop = () => done(undefined);
    const timer = clock.setTimeout(() => done(undefined), CONFIRM_LABEL_TIMEOUT_MS);
    signal.addEventListener("abort", onStop, { once: true });
    try {
      Promise.resolve(label(args, { user, signal: giveUp.signal })).then(done, () =>
        done(undefined),
      );
    } catch {
      done(undefined);
    }
  });
};
