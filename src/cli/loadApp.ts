/**
 * Loading an app from a module named on the command line: its `default`
 * export, else its `app` export, which must be an App made by `createApp`.
 * A `.js`/`.mjs` module loads as it is; a TypeScript one loads where the
 * runtime strips types (Node 22.18+, Bun, Deno), or else through tsx when it
 * is installed.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { Data } from "effect";
import type { App } from "../runtime/commands/app.ts";

/** The app (`Loaded`), or why there is none (`NotLoaded`), in a sentence for the terminal. */
export type LoadOutcome =
  | { readonly _tag: "Loaded"; readonly app: App }
  | { readonly _tag: "NotLoaded"; readonly reason: string };

/**
 * A TypeScript app module that this runtime can't load by itself, with no tsx
 * installed to load it through. `loadApp` answers it as `NotLoaded`.
 */
export class TypeScriptNotLoadable extends Data.TaggedError("TypeScriptNotLoadable")<{
  /** The runtime's version, `process.version`. */
  readonly nodeVersion: string;
}> {
  override get message(): string {
    return `it is TypeScript, which Node ${this.nodeVersion} can't load by itself: install tsx beside elyra-assistant (npm install -D tsx), run Node 22.18 or later, or name its compiled .js`;
  }
}

/** Whether a value has the shape `createApp` returns. */
export const isApp = (value: unknown): value is App => {
  if (typeof value !== "object" || value === null) return false;
  const app = value as Partial<Record<keyof App, unknown>>;
  return (
    app.commands instanceof Map &&
    typeof app.userAbilities === "function" &&
    "assistant" in app &&
    "mcp" in app
  );
};

const TYPESCRIPT = /\.[cm]?tsx?$/;

/** The errors a runtime gives for a TypeScript module it can't load by itself. */
const TYPESCRIPT_REFUSED: ReadonlySet<unknown> = new Set([
  "ERR_UNKNOWN_FILE_EXTENSION",
  "ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX",
  "ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING",
]);

const refusedAsTypeScript = (error: unknown): boolean =>
  typeof error === "object" &&
  error !== null &&
  TYPESCRIPT_REFUSED.has((error as { code?: unknown }).code);

/** Imports the module at `path`; a TypeScript module the runtime refuses is tried again through tsx. */
const importModule = async (path: string): Promise<Record<string, unknown>> => {
  const url = pathToFileURL(path).href;
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (error) {
    if (!TYPESCRIPT.test(path) || !refusedAsTypeScript(error)) throw error;
    let tsx: { register: () => unknown };
    try {
      tsx = await import("tsx/esm/api");
    } catch {
      throw new TypeScriptNotLoadable({ nodeVersion: process.version });
    }
    tsx.register();
    // A URL of its own: the runtime keeps the failed import under the first one.
    return (await import(`${url}?tsx`)) as Record<string, unknown>;
  }
};

const describe = (value: unknown): string => {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (typeof value === "function") return "a function (call it to make the app, then export that)";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object that isn't an app" : `a ${typeof value}`;
};

/**
 * Imports `specifier` (a path, relative to `cwd`) and finds its app.
 *
 * @example
 * ```ts
 * const loaded = await loadApp("./app.ts", process.cwd());
 * if (loaded._tag === "NotLoaded") console.error(loaded.reason);
 * ```
 */
export const loadApp = async (specifier: string, cwd: string): Promise<LoadOutcome> => {
  const path = resolve(cwd, specifier);
  if (!existsSync(path)) return { _tag: "NotLoaded", reason: `${specifier}: no such file` };
  let module: Record<string, unknown>;
  try {
    module = await importModule(path);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { _tag: "NotLoaded", reason: `${specifier} could not be loaded: ${message}` };
  }
  const candidate = module.default !== undefined ? module.default : module.app;
  const which = module.default !== undefined ? "default export" : "`app` export";
  if (!isApp(candidate)) {
    return {
      _tag: "NotLoaded",
      reason:
        module.default === undefined && module.app === undefined
          ? `${specifier} has no default or \`app\` export: export the App made by createApp`
          : `${specifier}: its ${which} is ${describe(candidate)}, not an App made by createApp`,
    };
  }
  return { _tag: "Loaded", app: candidate };
};
