/**
 * elyra-assistant/proxy: the Messages API behind the app's own sign-in, so
 * no API key ever ships in the client.
 *
 * @packageDocumentation
 */
export { createProxy, type ProxyOptions, type ProxyUsage } from "./createProxy.ts";
export {
  ProxyConfigError,
  type ProxyErrorBody,
  type ProxyErrorType,
  ProxyRefusal,
  STREAMING_REFUSED,
} from "./errors.ts";
export { MessagesRequest } from "./policy.ts";
export { DEFAULT_ANTHROPIC_VERSION } from "./upstream.ts";
