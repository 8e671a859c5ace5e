/**
 * Claude through `@anthropic-ai/sdk`: `anthropic()` makes the model port's
 * implementation from the SDK client's options or from a client.
 *
 * @packageDocumentation
 */

export type { AnthropicStreaming } from "./adapters/model/anthropic.ts";
export { type AnthropicOptions, anthropic } from "./adapters/model/anthropic.ts";
