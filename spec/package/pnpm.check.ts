/**
 * pnpm (from the npm registry), whose strict node_modules lets a package
 * import only what it declares: the core installs without an ignored build
 * and runs a turn, and a missing peer still says what to install.
 */
import { join } from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import pkg from "../../package.json" with { type: "json" };
import { cleanEnv, makeProject, OPTIONAL_PEERS, type Ran, run, spawned, tool } from "./project.ts";

const tarball = inject("tarball");
const work = inject("work");
let dir: string;
let install: Ran;

beforeAll(async () => {
  dir = makeProject(work, "pnpm", ["crm.mjs", "runtime.mjs", "subpaths.mjs"]);
  install = await run(tool("pnpm"), ["add", tarball, "effect@3"], {
    cwd: dir,
    env: cleanEnv({ CI: "true", npm_config_store_dir: join(work, "pnpm-store") }),
  });
});

describe("pnpm add elyra-assistant effect@3", () => {
  it("installs with no build to approve", () => {
    expect(`${install.stdout}${install.stderr}`).not.toMatch(
      /IGNORED_BUILDS|Ignored build scripts|approve-builds/i,
    );
  });

  it("runs a turn with a confirmation in process and over /http", async () => {
    const ran = await spawned("node", ["runtime.mjs"], { cwd: dir, env: cleanEnv() });
    expect(ran.stderr).toBe("");
    expect(ran.code).toBe(0);
    expect((JSON.parse(ran.stdout) as { overHttp: string[] }).overHttp.at(-1)).toBe("Answered");
  });

  it("imports every core entry point, and names the missing peer of the others", async () => {
    const ran = await spawned("node", ["subpaths.mjs"], { cwd: dir, env: cleanEnv() });
    const results = JSON.parse(ran.stdout) as Record<string, { exports?: number; tag?: string }>;
    const peers = Object.keys(OPTIONAL_PEERS);
    // Every entry package.json exports: those with an optional peer name it, the others load.
    expect(Object.keys(results)).toHaveLength(Object.keys(pkg.exports).length - 1);
    for (const entry of Object.keys(results)) {
      const peered = peers.includes(entry.slice("elyra-assistant".length));
      if (peered) expect(results[entry]?.tag, entry).toBe("MissingPeerDependency");
      else expect(results[entry]?.exports, entry).toBeGreaterThan(0);
    }
  });
});
