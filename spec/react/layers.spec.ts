/**
 * The layer rules for src/adapters/react (.dependency-cruiser.mjs) bite: it
 * may import the ui adapter's store and client but not ui's entry (which
 * defines the panel element), no other adapter, and no Node built-in.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "..", "..");
const depcruise = join(repo, "node_modules", "dependency-cruiser", "bin", "dependency-cruise.mjs");
const work = mkdtempSync(join(tmpdir(), "elyra-react-layers-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A tree of `files` (path → imports), cruised with the repository's rules. */
const cruise = (name: string, files: Record<string, string[]>) => {
  const root = join(work, name);
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, "tsconfig.json"), "{}");
  for (const [path, imports] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    const lines = imports.map(
      (to, i) => `import * as m${i} from "${to}";\nexport const u${i} = m${i};`,
    );
    writeFileSync(join(root, path), `${lines.join("\n")}\nexport const here = 1;\n`);
  }
  return new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      process.execPath,
      [depcruise, "src", "--config", join(repo, ".dependency-cruiser.mjs"), "--output-type", "err"],
      { cwd: root },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : Number(error.code), output: stdout + stderr }),
    );
  });
};

const CLEAN = {
  "src/runtime/command.ts": [],
  "src/adapters/peer.ts": [],
  "src/adapters/web/wire.ts": ["../../runtime/command.ts"],
  "src/adapters/http/handler.ts": ["../web/wire.ts"],
  "src/adapters/ui/panel.ts": ["./assistantStore.ts"],
  "src/adapters/ui/assistantStore.ts": ["../web/wire.ts"],
  "src/adapters/ui/index.ts": ["./assistantStore.ts", "./panel.ts"],
  "src/adapters/react/reactPeer.ts": ["../peer.ts"],
  "src/adapters/react/index.ts": [
    "./reactPeer.ts",
    "../ui/assistantStore.ts",
    "../web/wire.ts",
    "../../runtime/command.ts",
  ],
};

describe.concurrent("the rules for src/adapters/react", () => {
  it("pass a tree where it imports the ui adapter's store", async () => {
    const { code, output } = await cruise("clean", CLEAN);
    expect(output).toMatch(/no dependency violations found/);
    expect(code).toBe(0);
  });

  it.each([
    ["react-binds-the-browser-store", "ui's entry", "../ui/index.ts"],
    ["react-binds-the-browser-store", "another adapter", "../http/handler.ts"],
    ["browser-entry-has-no-node", "a Node built-in", "node:fs"],
  ])("refuse a tree that breaks %s: it imports %s", async (rule, _, to) => {
    const { code, output } = await cruise(`${rule}-${to.replace(/\W/g, "")}`, {
      ...CLEAN,
      "src/adapters/react/index.ts": ["./reactPeer.ts", to],
    });
    expect(output).toContain(`error ${rule}:`);
    expect(code).not.toBe(0);
  });
});
