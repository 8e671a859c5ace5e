import type { ConfirmAnswer, Confirmer, ConfirmRequest } from "../runtime/calls/confirmer.ts";

/** A confirmer that records what it was asked. */
type Recording = Confirmer & { readonly asked: ReadonlyArray<ConfirmRequest> };

/** Answers each request as `decide` says, echoing its id, tool and digest, and records it. */
const recording = (
  decide: (
    request: ConfirmRequest,
  ) => Promise<{ readonly answer: ConfirmAnswer; readonly edited?: unknown }>,
): Recording => {
  const asked: ConfirmRequest[] = [];
  return {
    asked,
    ask: async (request) => {
      asked.push(request);
      const { confirmId, tool, digest } = request;
      return { confirmId, tool, digest, ...(await decide(request)) };
    },
  };
};

/**
 * A confirmer that answers every request at once, by a fixed answer or a
 * function of the request; it records what it was asked.
 *
 * @example
 * ```ts
 * const confirmer = answeringConfirmer((r) => (r.tool === "customers_delete" ? "declined" : "accepted"));
 * ```
 */
export const answeringConfirmer = (
  answer: ConfirmAnswer | ((request: ConfirmRequest) => ConfirmAnswer | Promise<ConfirmAnswer>),
): Recording =>
  recording(async (request) => ({
    answer: typeof answer === "function" ? await answer(request) : answer,
  }));

/**
 * A confirmer that never answers: the call path's timeout decides.
 *
 * @example
 * ```ts
 * const confirmer = silentConfirmer();
 * // … a call that needs a confirmation times out, then:
 * confirmer.asked.length; // 1
 * ```
 */
export const silentConfirmer = (): Recording => {
  const asked: ConfirmRequest[] = [];
  return {
    asked,
    ask: (request, signal) => {
      asked.push(request);
      return new Promise((_resolve, reject) => {
        signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
    },
  };
};

/**
 * A confirmer that accepts every request with the arguments `edit` makes of
 * the ones asked (as a dialog's editable fields would send them); it records
 * what it was asked.
 *
 * @example
 * ```ts
 * const confirmer = editingConfirmer((r) => ({ ...(r.args as object), amount: 90 }));
 * ```
 */
export const editingConfirmer = (edit: (request: ConfirmRequest) => unknown): Recording =>
  recording(async (request) => ({ answer: "accepted", edited: edit(request) }));
