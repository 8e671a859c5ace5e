// @vitest-environment happy-dom
/**
 * The entry itself: importing it defines no custom element (it is not
 * `elyra-assistant/ui`), and in a Node where React cannot be found it fails
 * on import saying what to install (decision (w)).
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "..", "..");

/** A loader hook under which `react` is looked up from a folder that has no node_modules: not found, in Node's own words. */
const HIDE_REACT = `export async function resolve(specifier, context, next) {
  if (specifier === "react" || specifier.startsWith("react/"))
    return next(specifier, { ...context, parentURL: "file:///nowhere/app.mjs" });
  return next(specifier, context);
}`;
const REGISTER = `import { register } from "node:module";
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HIDE_REACT)}`)});`;

describe("elyra-assistant/react", () => {
  it("defines no <elyra-assistant-panel> when it loads", async () => {
    const react = await import("elyra-assistant/react");
    expect(typeof react.useAssistant).toBe("function");
    expect(customElements.get("elyra-assistant-panel")).toBeUndefined();
  });

  it("without react, fails on import saying which package to install", async () => {
    const script = `import(${JSON.stringify(join(repo, "src/react.ts"))}).then(
      () => console.log("loaded"),
      (error) => console.log(JSON.stringify({ tag: error._tag, message: error.message })),
    );`;
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        [
          "--import",
          "tsx/esm",
          "--import",
          `data:text/javascript,${encodeURIComponent(REGISTER)}`,
          "--input-type=module",
          "-e",
          script,
        ],
        { cwd: repo },
        (error, out, err) => (error ? reject(new Error(err || String(error))) : resolve(out)),
      ),
    );
    expect(JSON.parse(stdout)).toEqual({
      tag: "MissingPeerDependency",
      message:
        "elyra-assistant/react needs the package react, which is not installed: install it beside elyra-assistant (npm install react).",
    });
  });
});
