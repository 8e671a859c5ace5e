/**
 * The proxy's `rateLimit` setting: a limit per user, `false` for none, and a
 * default when it is not given, so a proxy written without one does not
 * relay without bound on the server's key.
 */
import { isRateLimit, type RateLimit } from "../../runtime/calls/rateLimit.ts";
import { ProxyConfigError } from "./errors.ts";

/** Each user's limit when `rateLimit` is not given: 60 requests in any 60 s. */
export const DEFAULT_PROXY_RATE_LIMIT: RateLimit = { calls: 60, perSeconds: 60 };

/** A value as the error shows it: JSON, with NaN and the infinities named. */
const shown = (value: unknown): string =>
  JSON.stringify(value, (_, v: unknown) =>
    typeof v === "number" && !Number.isFinite(v) ? String(v) : v,
  ) ?? String(value);

const isLimitShape = (value: unknown): value is RateLimit =>
  typeof value === "object" &&
  value !== null &&
  "calls" in value &&
  "perSeconds" in value &&
  typeof value.calls === "number" &&
  typeof value.perSeconds === "number";

/**
 * The limit the proxy takes for each user: the one given, the default when
 * none is, or `undefined` for `false`. Anything else, or a limit that would
 * let everything through (NaN, 0, fractions), throws {@link ProxyConfigError}.
 *
 * @example
 * ```ts
 * proxyRateLimit(undefined); // { calls: 60, perSeconds: 60 }
 * proxyRateLimit(false); // undefined: no limit
 * proxyRateLimit(null); // throws ProxyConfigError
 * ```
 */
export const proxyRateLimit = (setting: unknown): RateLimit | undefined => {
  if (setting === undefined) return DEFAULT_PROXY_RATE_LIMIT;
  if (setting === false) return undefined;
  if (isLimitShape(setting) && isRateLimit(setting)) return setting;
  throw new ProxyConfigError({
    reason: `rateLimit must be { calls, perSeconds } with whole calls ≥ 1 over a positive, finite perSeconds, or false for no limit, not ${shown(setting)}`,
  });
};
