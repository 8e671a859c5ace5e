/**
 * A {@link redisStore}'s money: each key's spend in one fixed period as a
 * small hash (`spent`, `reserved`, one `told:<mark>` per warning told), in
 * whole nano-dollars, written only by Lua scripts, so every instance
 * reserves and settles atomically against the same totals. A period's hash
 * expires two periods after its last write: a late settlement still finds
 * it, and no user's old periods pile up.
 */

import {
  fromNanos,
  type SpendAsk,
  type SpendGrant,
  type SpendPeriod,
  type SpendSettled,
  type SpendSettlement,
  type SpendTotals,
  toNanos,
} from "../../../runtime/ports/usageStore.ts";
import type { RedisClient as Redis } from "./client.ts";
import { script } from "./script.ts";

// KEYS[1] the period's hash; ARGV: budget, want, least (whole nano-dollars), the expiry in ms.
// grantOf (usageStore.ts) in Lua. Returns {0, spent, reserved} refused, or {1, grant, spent,
// reserved}. Integers are written with '%d': Lua's own tostring keeps 14 digits (1e+15).
const RESERVE = `
local spent = tonumber(redis.call('HGET', KEYS[1], 'spent') or '0')
local reserved = tonumber(redis.call('HGET', KEYS[1], 'reserved') or '0')
local room = tonumber(ARGV[1]) - spent - reserved
local grant = tonumber(ARGV[2])
if room < grant then
  if room < tonumber(ARGV[3]) then return {0, spent, reserved} end
  grant = room
end
redis.call('HINCRBY', KEYS[1], 'reserved', string.format('%d', grant))
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {1, grant, spent, reserved + grant}
`;

// KEYS[1] the period's hash; ARGV: the reservation let go, the cost (whole nano-dollars), the
// expiry in ms, then the warning marks. Returns {spent, reserved, the 1-based index of each mark
// reached for the first time}; HSETNX tells each mark once, whichever instance settles past it.
const SETTLE = `
local reserved = tonumber(redis.call('HGET', KEYS[1], 'reserved') or '0') - tonumber(ARGV[1])
if reserved < 0 then reserved = 0 end
redis.call('HSET', KEYS[1], 'reserved', string.format('%d', reserved))
local spent = redis.call('HINCRBY', KEYS[1], 'spent', ARGV[2])
local out = {spent, reserved}
for i = 4, #ARGV do
  if spent >= tonumber(ARGV[i]) and redis.call('HSETNX', KEYS[1], 'told:' .. ARGV[i], 1) == 1 then
    out[#out + 1] = i - 3
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return out
`;

const reserveScript = script(RESERVE);
const settleScript = script(SETTLE);

const nanos = (dollars: number): string => String(toNanos(dollars));
const dollars = (value: unknown): number => fromNanos(value == null ? 0 : Number(value));
/** A period's hash lives two periods after its last write. */
const expiry = (period: SpendPeriod): string => String(Math.max(1, Math.ceil(2 * period.ms)));

/** The money methods of a redisStore, on `client`, its keys under `prefix`. */
export const redisSpend = (client: Redis, prefix: string) => {
  const keyOf = (key: string, period: SpendPeriod) =>
    `${prefix}spend:${period.ms}:${period.start}:${key}`;
  return {
    reserve: async (key: string, ask: SpendAsk): Promise<SpendGrant> => {
      const [granted, ...rest] = (await reserveScript(client, keyOf(key, ask.period), [
        nanos(ask.budget),
        nanos(ask.want),
        nanos(ask.least),
        expiry(ask.period),
      ])) as number[];
      if (granted === 1) {
        const [grant, spent, reserved] = rest;
        return {
          _tag: "Reserved",
          dollars: dollars(grant),
          spent: dollars(spent),
          reserved: dollars(reserved),
        };
      }
      const [spent, reserved] = rest;
      return { _tag: "Refused", spent: dollars(spent), reserved: dollars(reserved) };
    },
    settle: async (key: string, settlement: SpendSettlement): Promise<SpendSettled> => {
      const marks = settlement.warnAt ?? [];
      const [spent, reserved, ...told] = (await settleScript(
        client,
        keyOf(key, settlement.period),
        [
          nanos(settlement.reserved),
          nanos(settlement.dollars),
          expiry(settlement.period),
          ...marks.map(nanos),
        ],
      )) as number[];
      return {
        spent: dollars(spent),
        reserved: dollars(reserved),
        crossed: told.map((index) => marks[index - 1] as number),
      };
    },
    spend: async (key: string, period: SpendPeriod): Promise<SpendTotals> => {
      const [spent, reserved] = await client.hmget(keyOf(key, period), "spent", "reserved");
      return { spent: dollars(spent), reserved: dollars(reserved) };
    },
  };
};
