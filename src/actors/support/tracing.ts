/**
 * OpenTelemetry spans of the running system: one for a turn, one for each
 * model step and one for each command call, children of the turn. Only the
 * API is used: with no SDK registered every call is a no-op. Attributes name
 * what happened (tool, outcome, tokens), never arguments or text.
 */
import {
  type Attributes,
  type Context,
  context,
  type Span,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";

const TRACER = "elyra-assistant";

/** Starts a span, a child of `parent` when given. */
export const startSpan = (name: string, attributes: Attributes, parent?: Context): Span =>
  trace.getTracer(TRACER).startSpan(name, { attributes }, parent ?? context.active());

/** The context whose active span is `span`, for its children. */
export const contextOf = (span: Span): Context => trace.setSpan(context.active(), span);

/** Ends a span with what happened; a failure sets its status to error. */
export const endSpan = (span: Span, attributes: Attributes, failure?: string): void => {
  span.setAttributes(attributes);
  if (failure !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: failure });
  span.end();
};

/** Ends `span` when a turn's end settles: with its outcome, or `refused` when it is refused. */
export const spanEndsWith = <T extends { readonly _tag: string; readonly error?: string }>(
  span: Span,
  end: Promise<T>,
): Promise<T> =>
  end.then(
    (ended) => {
      endSpan(
        span,
        { "elyra.outcome": ended._tag },
        ended._tag === "Failed" ? ended.error : undefined,
      );
      return ended;
    },
    (error: unknown) => {
      endSpan(span, { "elyra.outcome": "refused" }, String(error));
      throw error;
    },
  );
