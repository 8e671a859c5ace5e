/**
 * The reference model of who may run what, written apart from the call path:
 * patterns become regular expressions, and the ability each tool takes may
 * come from a table of your own rather than from the commands.
 */
import type { App } from "../runtime/commands/app.ts";
import type { Origin } from "../runtime/commands/origin.ts";

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Whether one pattern (`*`, `resource.*` or an exact ability) covers an ability, by a regular expression. */
const patternCovers = (pattern: string, ability: string): boolean => {
  const source =
    pattern === "*"
      ? ".+"
      : pattern.endsWith(".*")
        ? `${escapeRegExp(pattern.slice(0, -2))}\\..+`
        : escapeRegExp(pattern);
  return new RegExp(`^(?:${source})$`).test(ability);
};

/**
 * Whether any of `patterns` covers `ability`: `*` covers every ability,
 * `a.*` anything strictly below `a.` (at any depth), any other pattern only
 * itself. The reference's own reading of patterns, apart from the runtime's.
 */
export const coveredBy = (patterns: Iterable<string>, ability: string): boolean => {
  for (const pattern of patterns) if (patternCovers(pattern, ability)) return true;
  return false;
};

/** Who calls, the tool, and the abilities the user truly has. */
export interface MayRunCall {
  readonly tool: string;
  /** `{ kind: "assistant" }` checks the user; `{ kind: "agent", client }` (MCP) uses MCP's grant alone. */
  readonly origin: Origin;
  /** The abilities (exact or patterns) the user has, as you know them, not as the app reads them. */
  readonly has: Iterable<string>;
}

/** Options of {@link mayRun}. */
export interface MayRunOptions {
  /**
   * The ability each tool takes (tool name → ability), written apart from the
   * commands. Without it, each command's own `can` is taken for the truth, so
   * a command declared with the wrong `can` goes unseen.
   */
  readonly takes?: Readonly<Record<string, string>> | undefined;
}

/** What the reference says of a call: not a tool, a tool the user lacks, or allowed (and whether asked first). */
export type MayRun =
  | {
      readonly _tag: "UnknownTool";
      readonly tool: string;
      /** Why it is no tool, as a clause: "the assistant's grant does not allow customers.destroy". */
      readonly why: string;
    }
  | { readonly _tag: "Denied"; readonly tool: string; readonly ability: string }
  | {
      readonly _tag: "Allowed";
      readonly tool: string;
      readonly ability: string;
      /** The grant's `confirm` covers the ability: the user is asked before it runs. */
      readonly confirm: boolean;
    };

/** The surface an origin uses, as people name it. */
export const surfaceName = (origin: Origin): string =>
  origin.kind === "assistant" ? "the assistant" : "MCP";

/**
 * Who may run what: a call runs only when its origin's grant allows the
 * ability the tool takes and, from the assistant, the user has it. MCP has a
 * grant of its own and checks no user. `confirm` says whether the user is
 * asked first. Rate limits, arguments and answers are not its concern.
 *
 * @example
 * ```ts
 * const verdict = mayRun(
 *   app,
 *   { tool: "customers_destroy", origin: { kind: "assistant" }, has: ["customers.view"] },
 *   { takes: { customers_destroy: "customers.destroy" } },
 * );
 * // { _tag: "Denied", tool: "customers_destroy", ability: "customers.destroy" }
 * ```
 */
export const mayRun = (app: App, call: MayRunCall, options: MayRunOptions = {}): MayRun => {
  const { tool, origin } = call;
  const grant = origin.kind === "assistant" ? app.assistant : app.mcp;
  const surface = surfaceName(origin);
  const unknown = (why: string): MayRun => ({ _tag: "UnknownTool", tool, why });
  const ability =
    options.takes === undefined
      ? app.commands.get(tool)?.can
      : Object.hasOwn(options.takes, tool)
        ? options.takes[tool]
        : undefined;
  if (ability === undefined)
    return unknown(
      options.takes === undefined
        ? app.commands.has(tool)
          ? `${tool} takes no ability, so it is no tool`
          : `the app has no command ${tool}`
        : `takes names no ability for ${tool}`,
    );
  if (grant === undefined) return unknown(`the app gives ${surface} no grant`);
  if (!coveredBy(grant.allow, ability))
    return unknown(`${surface}'s grant does not allow ${ability}`);
  if (origin.kind === "assistant" && !coveredBy(call.has, ability))
    return { _tag: "Denied", tool, ability };
  return { _tag: "Allowed", tool, ability, confirm: coveredBy(grant.confirm, ability) };
};
