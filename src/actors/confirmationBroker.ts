import { type Observable, Subject } from "rxjs";
import { digestOf } from "../runtime/canonicalJson.ts";
import type {
  ConfirmAnswer,
  Confirmer,
  ConfirmReply,
  ConfirmRequest,
} from "../runtime/confirmation.ts";

/** An answer from the app's dialog. `tool` and `args`, when sent, must be what was asked. */
export interface ConfirmationAnswer {
  readonly confirmId: string;
  readonly accept: boolean;
  /** The window answering: only the asking window may answer. */
  readonly scope: string;
  readonly tool?: string;
  readonly args?: unknown;
}

/** What became of an answer. Only `Answered` settled a confirmation. */
export type AnswerResult =
  | { readonly _tag: "Answered"; readonly answer: ConfirmAnswer }
  | { readonly _tag: "UnknownConfirmation" }
  | { readonly _tag: "OtherWindow" }
  | { readonly _tag: "Mismatch" };

/** A confirmer that asks through the app's own dialog and takes answers by id. */
export interface ConfirmationBroker extends Confirmer {
  /** Each request to show, as it is made. */
  readonly requests$: Observable<ConfirmRequest>;
  /** Requests waiting for an answer. */
  readonly pending: () => ReadonlyArray<ConfirmRequest>;
  /**
   * Answers a request once. An unknown or already answered id, another
   * window's id, or a tool or arguments other than those asked are refused;
   * a mismatch also settles the request as declined.
   */
  readonly answer: (answer: ConfirmationAnswer) => Promise<AnswerResult>;
}

/**
 * The in-memory confirmation broker: each id is redeemable once, by the
 * window that asked.
 *
 * @example
 * ```ts
 * const broker = confirmationBroker();
 * broker.requests$.subscribe((r) => showDialog(r.tool, r.description, r.args, r.confirmId));
 * await broker.answer({ confirmId, accept: true, scope: "window-1" });
 * ```
 */
export const confirmationBroker = (): ConfirmationBroker => {
  const waiting = new Map<
    string,
    { request: ConfirmRequest; settle: (reply: ConfirmReply) => void }
  >();
  const requests = new Subject<ConfirmRequest>();
  return {
    requests$: requests.asObservable(),
    pending: () => [...waiting.values()].map((w) => w.request),
    ask: (request, signal) =>
      new Promise<ConfirmReply>((resolve, reject) => {
        if (signal.aborted) return reject(signal.reason);
        const forget = () => {
          if (waiting.get(request.confirmId)?.request === request)
            waiting.delete(request.confirmId);
          reject(signal.reason);
        };
        signal.addEventListener("abort", forget, { once: true });
        waiting.set(request.confirmId, {
          request,
          settle: (reply) => {
            signal.removeEventListener("abort", forget);
            resolve(reply);
          },
        });
        requests.next(request);
      }),
    answer: async ({ confirmId, accept, scope, tool, args }) => {
      const entry = waiting.get(confirmId);
      if (entry === undefined) return { _tag: "UnknownConfirmation" };
      if (entry.request.scope !== scope) return { _tag: "OtherWindow" };
      // Claimed before anything is awaited: a second answer finds nothing.
      waiting.delete(confirmId);
      const { request } = entry;
      const reply = (answer: ConfirmAnswer): ConfirmReply => ({
        confirmId,
        tool: request.tool,
        digest: request.digest,
        answer,
      });
      const toolDiffers = tool !== undefined && tool !== request.tool;
      const argsDiffer =
        args !== undefined && (await digestOf(args).catch(() => "")) !== request.digest;
      if (toolDiffers || argsDiffer) {
        entry.settle(reply("declined"));
        return { _tag: "Mismatch" };
      }
      const answer = accept ? "accepted" : "declined";
      entry.settle(reply(answer));
      return { _tag: "Answered", answer };
    },
  };
};
