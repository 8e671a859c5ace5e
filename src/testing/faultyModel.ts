/**
 * A model that fails on purpose: it wraps another model and makes its steps
 * reject as the Anthropic adapter rejects them (a network error, an API
 * error by status and type) or cuts a streamed answer off midway, as a plan
 * says. The plan is plain data or a function of the step, so a
 * property-based test can generate it and shrink it.
 */
import {
  kindOfStatus,
  kindOfType,
  type Model,
  ModelError,
  type ModelRequest,
} from "../runtime/prompt/model.ts";

/**
 * What happens to one step. Each rejects with the {@link ModelError} the
 * Anthropic adapter gives for that failure:
 *
 * - `network`: the request never got an answer (`connection`, the SDK's
 *   "Connection error." unless `message` is given);
 * - `timeout`: it timed out (`timeout`, "Request timed out.");
 * - `api`: the API answered with an error status: the kind by `status` and
 *   `type` (the type by the status unless given: 529 `overloaded_error`,
 *   429 `rate_limit_error`, 401 `authentication_error`, …), the API's
 *   message, and the status;
 * - `cut`: the answer started and broke off: the inner model is asked, the
 *   first `afterPieces` pieces of its text (0 unless given) are told, and
 *   the step rejects: with `decode` ("the stream ended before message_stop"),
 *   or, given `error`, as that `event: error` inside the stream (an
 *   `overloaded_error` is a 529, any other type has no status).
 *
 * Every fault but `cut` rejects without asking the inner model, so a
 * `fakeModel`'s script is not used up by a failed step.
 *
 * @example
 * ```ts
 * const faults: ModelFault[] = [
 *   { kind: "network" },
 *   { kind: "api", status: 429 },
 *   { kind: "cut", afterPieces: 3, error: { type: "overloaded_error" } },
 * ];
 * ```
 */
export type ModelFault =
  | { readonly kind: "network"; readonly message?: string }
  | { readonly kind: "timeout" }
  | {
      readonly kind: "api";
      readonly status: number;
      readonly type?: string;
      readonly message?: string;
    }
  | {
      readonly kind: "cut";
      readonly afterPieces?: number;
      readonly error?: { readonly type: string; readonly message?: string };
    };

/** One step the model was asked, as its plan sees it. */
export interface ModelStepInfo {
  /** The step's number among every step the model was asked, from 0. */
  readonly n: number;
  readonly request: ModelRequest;
}

/**
 * A plan: the `n`th step is given `plan[n]` (`null`, `undefined` or past the
 * end: it is the inner model's), or a function decides each step.
 */
export type ModelFaultPlan =
  | ReadonlyArray<ModelFault | null | undefined>
  | ((step: ModelStepInfo) => ModelFault | null | undefined);

/** A fault the model gave, and the step it was given to. */
export interface InjectedModelFault {
  readonly n: number;
  readonly fault: ModelFault;
}

/** A {@link faultyModel}: the model, its switch, and a record of what it did. */
export interface FaultyModel extends Model {
  /** Stops every fault from now on: each later step is the inner model's. */
  readonly heal: () => void;
  /** Whether {@link FaultyModel.heal} was called. */
  readonly healed: () => boolean;
  /** Every fault given so far, in order. */
  readonly injected: ReadonlyArray<InjectedModelFault>;
  /** How many steps the model was asked. */
  readonly steps: () => number;
}

/** An API error type by status, as the Messages API names them. */
const TYPE_OF_STATUS: Readonly<Record<number, string>> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

/** The API's message for an error type, as it words it. */
const MESSAGE_OF_TYPE: Readonly<Record<string, string>> = {
  invalid_request_error: "Invalid request",
  authentication_error: "invalid x-api-key",
  permission_error: "Your API key does not have permission to use the specified resource.",
  not_found_error: "Not found",
  request_too_large: "Request exceeds the maximum allowed number of bytes.",
  rate_limit_error: "Number of request tokens has exceeded your per-minute rate limit",
  api_error: "Internal server error",
  overloaded_error: "Overloaded",
};

const aborted = () => new ModelError({ kind: "aborted", message: "the step was stopped" });

/** The ModelError the Anthropic adapter gives for a fault that is not a cut. */
const rejectionOf = (fault: Exclude<ModelFault, { readonly kind: "cut" }>): ModelError => {
  switch (fault.kind) {
    case "network":
      return new ModelError({ kind: "connection", message: fault.message ?? "Connection error." });
    case "timeout":
      return new ModelError({ kind: "timeout", message: "Request timed out." });
    case "api": {
      const type = fault.type ?? TYPE_OF_STATUS[fault.status] ?? "api_error";
      return new ModelError({
        kind: kindOfStatus(fault.status, type),
        message: fault.message ?? MESSAGE_OF_TYPE[type] ?? "Internal server error",
        status: fault.status,
      });
    }
  }
};

/** How a cut stream rejects. */
const cutOf = (fault: Extract<ModelFault, { readonly kind: "cut" }>): ModelError => {
  if (fault.error === undefined)
    return new ModelError({
      kind: "decode",
      message: "the stream ended before message_stop (terminated)",
    });
  const { type } = fault.error;
  const message = fault.error.message ?? MESSAGE_OF_TYPE[type] ?? "Internal server error";
  return type === "overloaded_error"
    ? new ModelError({ kind: "overloaded", message, status: 529 })
    : new ModelError({ kind: kindOfType(type), message });
};

/**
 * `inner`, failing as `plan` says, until `heal()` is called. A step the plan
 * leaves alone is the inner model's; a step already aborted rejects as
 * aborted, whatever the plan.
 *
 * @example
 * ```ts
 * // The first step is a 529, the second is cut after two words, the rest answer.
 * const model = faultyModel(fakeModel().says("Three invoices are overdue."), [
 *   { kind: "api", status: 529 },
 *   { kind: "cut", afterPieces: 2 },
 * ]);
 * // Or by what is asked: every request whose last message says "fail" fails.
 * const flaky = faultyModel(fakeModel(), ({ request }) =>
 *   JSON.stringify(request.messages.at(-1)).includes("fail") ? { kind: "network" } : undefined,
 * );
 * ```
 */
export const faultyModel = (inner: Model, plan: ModelFaultPlan): FaultyModel => {
  const injected: InjectedModelFault[] = [];
  let n = 0;
  let healed = false;
  return {
    step: async (request, options) => {
      const step: ModelStepInfo = { n: n++, request };
      const fault = healed
        ? undefined
        : ((typeof plan === "function" ? plan(step) : plan[step.n]) ?? undefined);
      if (fault === undefined) return inner.step(request, options);
      injected.push({ n: step.n, fault });
      if (options.signal.aborted) throw aborted();
      if (fault.kind !== "cut") throw rejectionOf(fault);
      const keep = Math.max(0, fault.afterPieces ?? 0);
      let told = 0;
      const { onText } = options;
      // The inner model's answer is lost with the stream; its rejection (an abort) is passed on.
      await inner.step(request, {
        signal: options.signal,
        ...(onText === undefined
          ? {}
          : {
              onText: (piece: string) => {
                if (told++ < keep) onText(piece);
              },
            }),
      });
      throw cutOf(fault);
    },
    heal: () => {
      healed = true;
    },
    healed: () => healed,
    injected,
    steps: () => n,
  };
};
