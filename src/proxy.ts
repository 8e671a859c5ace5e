/**
 * elyra-assistant/proxy: the Messages API behind the app's own sign-in, so
 * no API key ever ships in the client.
 *
 * @packageDocumentation
 */

export {
  BUDGET_MAX_TOKENS_HEADER,
  BUDGET_REMAINING_HEADER,
  type ProxyBudget,
  type ProxyBudgetWarning,
} from "./adapters/proxy/budget.ts";
export { createProxy, type ProxyOptions, type ProxyUsage } from "./adapters/proxy/createProxy.ts";
export {
  ProxyConfigError,
  type ProxyErrorBody,
  type ProxyErrorType,
  ProxyRefusal,
  STREAMING_REFUSED,
} from "./adapters/proxy/errors.ts";
export { MessagesRequest } from "./adapters/proxy/policy.ts";
export { DEFAULT_ANTHROPIC_VERSION } from "./adapters/proxy/upstream.ts";
export type {
  SpendAsk,
  SpendGrant,
  SpendPeriod,
  SpendSettled,
  SpendSettlement,
  SpendTotals,
} from "./runtime/ports/usageStore.ts";
export { ModelPrice, PriceTable } from "./runtime/usage/prices.ts";
