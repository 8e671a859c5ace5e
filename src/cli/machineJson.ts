/**
 * A machine's config as JSON: the walk both `export-machines` formats share.
 *
 * XState 5 offers `machine.toJSON()` (= `machine.definition`), but that is
 * the resolved definition, not a config: `initial` becomes an object that
 * `createMachine` rejects, and eventless (`always`) transitions are left out.
 * So the config the machine was made from (`machine.config`) is walked
 * instead, with every function (context, inputs, params, inline actions and
 * guards) replaced by a name or left out, since JSON holds no code.
 */
import type { AnyStateMachine } from "xstate";

/** The name an inline guard, action or actor gets in the JSON. */
export const INLINE = "inline";

const ACTION_KEYS = new Set(["actions", "entry", "exit"]);

const toJson = (value: unknown, key: string): unknown => {
  if (typeof value === "function") {
    // Built-in actions (assign, emit, enqueueActions…) carry their type, e.g. `xstate.assign`.
    if (ACTION_KEYS.has(key)) {
      const type = (value as { type?: unknown }).type;
      return typeof type === "string" ? type : INLINE;
    }
    if (key === "guard" || key === "src") return INLINE;
    return undefined; // context, input, output, params, a delay's function
  }
  if (Array.isArray(value)) {
    return value.map((item) => toJson(item, key)).filter((item) => item !== undefined);
  }
  if (typeof value === "object" && value !== null) {
    // An actor's logic given inline (not by name) has no JSON form.
    if (key === "src") return INLINE;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const converted = toJson(v, ACTION_KEYS.has(key) && k !== "params" ? key : k);
      if (converted !== undefined) out[k] = converted;
    }
    // `{ type: "log", params: fn }` with its params gone is just `"log"`; a guard's the same.
    if (
      (ACTION_KEYS.has(key) || key === "guard") &&
      Object.keys(out).length === 1 &&
      typeof out.type === "string"
    )
      return out.type;
    return out;
  }
  return value;
};

/**
 * A machine's config as JSON: what `createMachine` takes and the Stately
 * visualizer imports. Named guards, actions, actors and delays keep their
 * names; inline ones are named {@link INLINE}.
 *
 * @example
 * ```ts
 * const json = machineJson(confirmationMachine);
 * createMachine(json as Parameters<typeof createMachine>[0]).id; // "confirmation"
 * ```
 */
export const machineJson = (machine: AnyStateMachine): Record<string, unknown> =>
  toJson(machine.config, "") as Record<string, unknown>;
