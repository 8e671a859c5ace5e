/**
 * The core on Bun and Deno (from their npm packages): a turn with a
 * confirmation on the memory store, the /http handler served by
 * `Bun.serve` / `Deno.serve` on loopback and read to the end by the /ui
 * client, and a turn through the real Anthropic SDK. (better-sqlite3, a
 * Node addon, runs on neither: docs/install.md says so.)
 */
import { beforeAll, describe, expect, inject, it } from "vitest";
import { cleanEnv, makeProject, npmInstall, spawned, tool } from "./project.ts";

const tarball = inject("tarball");
const work = inject("work");
let dir: string;

beforeAll(async () => {
  dir = makeProject(work, "runtimes", ["crm.mjs", "runtime.mjs", "sdkTurn.mjs"]);
  await npmInstall(dir, [tarball, "effect@3", "@anthropic-ai/sdk"]);
});

const RUNTIMES = {
  bun: (script: string) => [tool("bun"), [script]] as const,
  // Deno reads the project's package.json and node_modules as npm left them.
  deno: (script: string) =>
    [tool("deno"), ["run", "--allow-all", "--node-modules-dir=manual", script]] as const,
};

describe.each(Object.keys(RUNTIMES) as Array<keyof typeof RUNTIMES>)("on %s", (runtime) => {
  const runScript = (script: string) => {
    const [command, args] = RUNTIMES[runtime](script);
    return spawned(command, [...args], { cwd: dir, env: cleanEnv({ NO_COLOR: "1" }) });
  };

  it("a turn with a confirmation in process, and over its own server's /http read by the /ui client", async () => {
    const ran = await runScript("runtime.mjs");
    expect(ran.code, ran.stderr).toBe(0);
    const seen = JSON.parse(ran.stdout) as {
      runtime: string;
      inProcess: string[];
      overHttp: string[];
    };
    expect(seen.runtime).toBe(runtime);
    expect(seen.inProcess).toEqual(seen.overHttp);
    expect(seen.overHttp).toEqual([
      "TurnStarted",
      "StepStarted",
      "StepFinished",
      "ToolStarted",
      "ConfirmRequested",
      "ConfirmAnswered",
      "ToolFinished",
      "StepStarted",
      // The answer's first word is told at once; the rest gathers until the step ends.
      "TextDelta",
      "TextDelta",
      "StepFinished",
      "Answered",
    ]);
  });

  it("a turn through the real Anthropic SDK against the stand-in", async () => {
    const ran = await runScript("sdkTurn.mjs");
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout)).toMatchObject({ store: "memory", end: "Answered", requests: 2 });
  });
});
