/**
 * Claude through `@anthropic-ai/sdk`: `anthropic()` makes the model port's
 * implementation from the SDK client's options or from a client;
 * `modelSource()` chooses one per user: the backend proxy, the user's own key,
 * or `ANTHROPIC_API_KEY`.
 *
 * @packageDocumentation
 */

export type { AnthropicStreaming } from "./adapters/model/anthropic.ts";
export { type AnthropicOptions, anthropic } from "./adapters/model/anthropic.ts";
export { type PromptCaching, withCacheBreakpoints } from "./adapters/model/cacheLayout.ts";
export type {
  BackendSource,
  ModelSource,
  ModelSourceName,
  ModelSourceOptions,
  SourceClientOptions,
} from "./adapters/model/modelSource.ts";
export { modelSource } from "./adapters/model/modelSource.ts";
export { NoKeySlot } from "./runtime/commands/userKey.ts";
