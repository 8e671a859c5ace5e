/**
 * elyra-assistant/http: the host's routes as a fetch handler, and a
 * `node:http` listener for it. The wire contract is exported too, for
 * clients that speak it.
 *
 * @packageDocumentation
 */

export {
  API_KEY_PATTERN,
  BASE_PATH,
  CLIENT_HEADER,
  ClientId,
  ConfirmBody,
  type ConfirmResponse,
  type ConfirmResult,
  type ErrorBody,
  type ErrorType,
  KeyBody,
  LastEventId,
  LiveQuery,
  MAX_BODY_BYTES,
  type PromptAccepted,
  PromptBody,
  PromptFields,
  ROUTE_METHODS,
  ROUTES,
  SelectedBody,
  type SourceName,
  type SourceResponse,
  START_OVER_EVENT,
  TOKEN_HEADER,
  type ToolInfo,
  type UsageResponse,
} from "./adapters/http/contract.ts";
export {
  type AssistantHttpOptions,
  assistantHttp,
  type FetchHandler,
  type SourceOfUsers,
} from "./adapters/http/handler.ts";
export { type NodeListenerOptions, toNodeListener } from "./adapters/web/node.ts";
