import { trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type SpanExporter,
} from "@opentelemetry/sdk-trace-base";

/**
 * Registers a tracer provider, before the host is made: each turn, model
 * step and command call is then a span, sent to `exporter` (an OTLP
 * exporter in production). Returns the provider: `shutdown()` flushes it.
 */
export const startTracing = (exporter: SpanExporter): BasicTracerProvider => {
  const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] });
  trace.setGlobalTracerProvider(provider);
  return provider;
};
