/**
 * The core installed alone (`npm install elyra-assistant effect`), and with
 * the Anthropic SDK: what it pulls in, that it builds nothing, that every
 * core entry point runs a turn on Node 20 and Node 22, that an entry whose
 * optional peer is missing says what to install, and the CLI without peers.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, inject, it } from "vitest";
import pkg from "../../package.json" with { type: "json" };
import {
  cleanEnv,
  figure,
  installed,
  makeProject,
  megabytes,
  NODE22_DIR,
  npmInstall,
  OPTIONAL_PEERS,
  type Ran,
  spawned,
} from "./project.ts";

const tarball = inject("tarball");
const work = inject("work");
const node22 = cleanEnv({}, [NODE22_DIR]);

let core: string;
let install: Ran;

beforeAll(async () => {
  core = makeProject(work, "core", ["crm.mjs", "runtime.mjs", "subpaths.mjs", "app.ts", "bundle"]);
  // The README's command, as typed: npm takes the 3.x the peer asks for, not effect's newest major.
  install = await npmInstall(core, [tarball, "effect"]);
});

const runIn = (dir: string, args: string[], env = cleanEnv()) =>
  spawned("node", args, { cwd: dir, env });
const cli = (args: string[], env = cleanEnv()) =>
  runIn(
    core,
    [join(core, "node_modules", "elyra-assistant", "bin", "elyra-assistant.mjs"), ...args],
    env,
  );

describe("core only: npm install elyra-assistant effect", () => {
  it("installs a few small packages, builds nothing native and warns of no install script", () => {
    const { packages, bytes } = installed(core);
    figure(
      "core only: installed",
      `${packages} packages, ${megabytes(bytes)}, ${(install.ms / 1000).toFixed(1)} s`,
    );
    const top = readdirSync(join(core, "node_modules"));
    for (const heavy of ["better-sqlite3", "ioredis", "pg", "tsx", "esbuild"])
      expect(top).not.toContain(heavy);
    expect(existsSync(join(core, "node_modules", "@modelcontextprotocol"))).toBe(false);
    expect(existsSync(join(core, "node_modules", "@anthropic-ai"))).toBe(false);
    expect(`${install.stdout}${install.stderr}`).not.toMatch(/install-scripts|gyp|prebuild/);
    expect(packages).toBeLessThan(20);
    const effect = JSON.parse(
      readFileSync(join(core, "node_modules", "effect", "package.json"), "utf8"),
    );
    expect(effect.version).toMatch(/^3\./);
  });

  it.each([
    ["Node 20", cleanEnv()],
    ["Node 22", node22],
  ])("runs a turn with a confirmation in process and over /http on %s", async (_, env) => {
    const ran = await runIn(core, ["runtime.mjs"], env);
    expect(ran.stderr).toBe("");
    expect(ran.code).toBe(0);
    const seen = JSON.parse(ran.stdout) as { inProcess: string[]; overHttp: string[] };
    expect(seen.inProcess).toContain("ConfirmAnswered");
    expect(seen.overHttp.at(-1)).toBe("Answered");
  });

  it("imports every core entry point; one whose optional peer is missing says what to install", async () => {
    const ran = await runIn(core, ["subpaths.mjs"]);
    expect(ran.code).toBe(0);
    const results = JSON.parse(ran.stdout) as Record<
      string,
      { exports?: number; error?: string; tag?: string }
    >;
    // Every entry package.json exports is imported; those without an optional peer load.
    expect(Object.keys(results)).toHaveLength(Object.keys(pkg.exports).length - 1);
    for (const entry of Object.keys(results))
      if (OPTIONAL_PEERS[entry.slice("elyra-assistant".length)] === undefined)
        expect(results[entry]?.exports, entry).toBeGreaterThan(0);
    // The prebuilt browser module exports what the browser entry does.
    expect(results["elyra-assistant/ui/bundle.js"]).toEqual(results["elyra-assistant/ui"]);
    for (const [entry, peer] of Object.entries(OPTIONAL_PEERS)) {
      expect(results[`elyra-assistant${entry}`]).toEqual({
        error: `elyra-assistant${entry} needs the package ${peer}, which is not installed: install it beside elyra-assistant (npm install ${peer}).`,
        tag: "MissingPeerDependency",
      });
    }
  });
});

describe("the prebuilt browser module, installed", () => {
  it("is exported as elyra-assistant/ui/bundle.js: one file in the package, with no import left in it", async () => {
    const ran = await runIn(core, [
      "--input-type=module",
      "-e",
      'import { createRequire } from "node:module"; console.log(createRequire(process.cwd() + "/").resolve("elyra-assistant/ui/bundle.js"));',
    ]);
    expect(ran.stderr).toBe("");
    const path = ran.stdout.trim();
    expect(path).toBe(
      join(core, "node_modules", "elyra-assistant", "dist", "adapters", "ui", "bundle.js"),
    );
    const code = readFileSync(path, "utf8");
    expect(code).toContain("elyra-assistant-panel");
    expect(code).not.toMatch(/\bimport\s*[("'`{*]|\bfrom\s*["'`]|\brequire\s*\(/);
    expect(code.length).toBeLessThan(75_000);
    figure("the prebuilt browser module", `${code.length} bytes`);
  });
});

describe("the CLI from compiled JavaScript, with no optional peer", () => {
  it("--help lists the commands without loading any adapter; --version is the package's", async () => {
    const help = await cli(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: elyra-assistant <command> \[arguments\]/);
    expect(help.stdout).toMatch(/^ {2}mcp <app module> +Serve the app's MCP grant over stdio/m);
    const version = await cli(["--version"]);
    expect(version.stdout).toBe("0.2.0\n");
  });

  it("inspect loads a .mjs app as it is", async () => {
    const ran = await cli(["inspect", "crm.mjs", "--json"]);
    expect(ran.code).toBe(0);
    const report = JSON.parse(ran.stdout) as { assistant: { tools: Array<{ name: string }> } };
    expect(report.assistant.tools.map((t) => t.name).sort()).toEqual([
      "customers_destroy",
      "customers_show",
    ]);
  });

  it("a .ts app: on Node 20 without tsx, what to install; on Node 22, loaded by its type stripping", async () => {
    const refused = await cli(["inspect", "app.ts"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `app.ts could not be loaded: it is TypeScript, which Node ${process.version} can't load by itself: install tsx beside elyra-assistant (npm install -D tsx), run Node 22.18 or later, or name its compiled .js\n`,
    );
    const stripped = await cli(["inspect", "app.ts"], node22);
    expect(stripped.stderr).toBe("");
    expect(stripped.code).toBe(0);
    expect(stripped.stdout).toMatch(/customers_show {2}customers\.view/);
  });

  it("scan-keys finds nothing in a clean bundle and the planted key in another", async () => {
    const clean = await cli(["scan-keys", "bundle"]);
    expect(clean.code).toBe(0);
    expect(clean.stdout).toMatch(/No keys and no dangerouslyAllowBrowser in 1 file/);
    const planted = join(core, "planted");
    mkdirSync(planted, { recursive: true });
    writeFileSync(join(planted, "leak.js"), `const key = "sk-ant-api03-${"x".repeat(95)}";\n`);
    const found = await cli(["scan-keys", "planted"]);
    expect(found.code).toBe(1);
    expect(found.stdout).toMatch(/1 finding in 1 file/);
  });

  it("export-machines writes every machine docs/machines holds", async () => {
    const ran = await cli(["export-machines", "machines"]);
    expect(ran.code).toBe(0);
    const documented = readdirSync(fileURLToPath(new URL("../../docs/machines", import.meta.url)));
    expect(documented).toContain("window.json");
    expect(readdirSync(join(core, "machines")).sort()).toEqual(documented.sort());
  });

  it("mcp without the MCP SDK says what to install", async () => {
    const ran = await cli(["mcp", "crm.mjs"]);
    expect(ran.code).toBe(1);
    expect(ran.stdout).toBe("");
    expect(ran.stderr).toMatch(
      /elyra-assistant\/mcp needs the package @modelcontextprotocol\/sdk, which is not installed: install it beside elyra-assistant \(npm install @modelcontextprotocol\/sdk\)\./,
    );
  });
});

describe("core and the Anthropic SDK: npm install elyra-assistant effect @anthropic-ai/sdk", () => {
  it("installs a few more packages and runs a turn through the real SDK", async () => {
    const dir = makeProject(work, "anthropic", ["crm.mjs", "sdkTurn.mjs"]);
    const ran = await npmInstall(dir, [tarball, "effect", "@anthropic-ai/sdk"]);
    const { packages, bytes } = installed(dir);
    figure(
      "core + Anthropic: installed",
      `${packages} packages, ${megabytes(bytes)}, ${(ran.ms / 1000).toFixed(1)} s`,
    );
    expect(`${ran.stdout}${ran.stderr}`).not.toMatch(/install-scripts|gyp|prebuild/);
    const turn = await runIn(dir, ["sdkTurn.mjs"]);
    expect(turn.stderr).toBe("");
    expect(JSON.parse(turn.stdout)).toMatchObject({
      store: "memory",
      end: "Answered",
      requests: 2,
    });
  });
});
