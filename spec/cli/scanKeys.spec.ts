/**
 * `scan-keys` (K1, K2): planted keys of each kind are caught in a text file,
 * in minified JS and in a source map, and printed only as their first 10
 * characters and length; realistic non-keys are not caught. Keys are made
 * at run time from a seeded generator, so this file holds none.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type FindingKind, SHOWN, scanKeysCommand, scanText } from "../../src/cli/scanKeys.ts";
import { runs, timeoutFor } from "../properties/runs.ts";
import { buildUiBundle } from "../ui/uiBundle.ts";

const KEY_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
const ALNUM = KEY_CHARS.slice(0, 62);
const OPENAI_MARK = "T3Blbk" + "FJ";
const ALLOW_BROWSER = "dangerously" + "AllowBrowser";

/** A small seeded generator: the same keys every run. */
const seeded = (seed: number) => () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};
const chars = (random: () => number, alphabet: string, n: number) =>
  Array.from({ length: n }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");

type KeyFormat = { readonly kind: FindingKind; readonly make: (r: () => number) => string };
const FORMATS = {
  anthropic: { kind: "anthropic-key", make: (r) => `sk-ant-api03-${chars(r, KEY_CHARS, 93)}AA` },
  anthropicAdmin: {
    kind: "anthropic-key",
    make: (r) => `sk-ant-admin01-${chars(r, KEY_CHARS, 91)}AA`,
  },
  openaiProject: {
    kind: "openai-key",
    make: (r) => `sk-proj-${chars(r, KEY_CHARS, 74)}${OPENAI_MARK}${chars(r, KEY_CHARS, 74)}`,
  },
  openaiServiceAccount: {
    kind: "openai-key",
    make: (r) => `sk-svcacct-${chars(r, KEY_CHARS, 74)}${OPENAI_MARK}${chars(r, KEY_CHARS, 74)}`,
  },
  openaiLegacy: {
    kind: "openai-key",
    make: (r) => `sk-${chars(r, ALNUM, 20)}${OPENAI_MARK}${chars(r, ALNUM, 20)}`,
  },
} satisfies Record<string, KeyFormat>;

const random = seeded(7);
const KEYS = Object.fromEntries(
  Object.entries(FORMATS).map(([name, format]) => [name, format.make(random)]),
) as Record<keyof typeof FORMATS, string>;
const keyOf = (name: string): string => KEYS[name as keyof typeof KEYS];

const run = async (args: string[], cwd: string) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await scanKeysCommand(args, {
    stdout: (s) => out.push(s),
    stderr: (s) => err.push(s),
    cwd,
  });
  return { code, out: out.join(""), err: err.join("") };
};

describe("scanText", () => {
  it("finds each kind of key with its start and length", () => {
    expect(KEYS.anthropic).toHaveLength(108);
    for (const [name, format] of Object.entries(FORMATS)) {
      const key = keyOf(name);
      const text = `const k = "${key}";`;
      expect(scanText(text), name).toEqual([
        { kind: format.kind, index: 11, length: key.length, start: key.slice(0, SHOWN) },
      ]);
    }
  });

  it("finds the browser opt-in", () => {
    expect(scanText(`new Anthropic({ ${ALLOW_BROWSER}: true })`)).toEqual([
      { kind: "allow-browser", index: 16, length: 23, start: ALLOW_BROWSER.slice(0, SHOWN) },
    ]);
  });

  it("finds a key after a JSON escape in a source map's sourcesContent", () => {
    const json = JSON.stringify({ sourcesContent: [`KEY=1\n${KEYS.anthropic}\n`] });
    const [finding] = scanText(json);
    expect(finding?.length).toBe(108);
    expect(json.slice(finding?.index, (finding?.index ?? 0) + 108)).toBe(KEYS.anthropic);
  });

  it("finds nothing in realistic non-keys", () => {
    const nonKeys = [
      "import sklearn; from sk-learn import svm", // sk- and a short word
      "task-ant-colony-optimisation", // sk-ant- inside a longer word
      "mask-ant-design-system-button-primary-large-rounded-outline-variant",
      "sk-ant-…",
      'the key "sk-ant-api03-…" goes here',
      "const API_KEY_PATTERN = /^sk-ant-[A-Za-z0-9_-]{16,256}$/;",
      "sk-ant-design-system-button-primary-large-rounded-outline-variant", // long, but no key material
      "sk-proj-settings-panel-component-wrapper-element-container",
      "sk-1234 sk-abc sk-test sk-live-demo sk-proj sk-svcacct-",
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", // a sha256
      "550e8400-e29b-41d4-a716-446655440000", // a UUID
      "sk-550e8400-e29b-41d4-a716-446655440000",
      "sha512-9K2nF+Y0Xw0q0ZbL1pQWqf1sV+3x2K0a9R7mY3b8qk5oJ0N8a3Hn7u6u0c8v1Ytz1oQ9r0z5Q==",
      "dangerouslySetInnerHTML allowBrowser",
      `sk-ant-api03-${"a".repeat(20)}x`.slice(0, 30), // cut too short to be a key
    ];
    for (const text of nonKeys) expect(scanText(text), text).toEqual([]);
  });

  // Near-miss pieces: parts of the prefixes and of key material, without a whole prefix.
  const NEAR = ["sk", "-", "ant", "proj", "svcacct", "api03", "T3Blbk", "s", "k", " ", '"', "\n"];
  const noisyText = fc
    .array(fc.oneof(fc.constantFrom(...NEAR), fc.string({ maxLength: 12 })), { maxLength: 60 })
    .map((parts) => parts.join(""));
  const withoutPrefixes = (text: string) =>
    !/sk-ant-|sk-proj-|sk-svcacct-|T3BlbkFJ|dangerouslyAllowBrowser/.test(text);

  it("finds nothing in random text without the prefixes", { timeout: timeoutFor() }, () => {
    fc.assert(
      fc.property(noisyText.filter(withoutPrefixes), (text) => {
        expect(scanText(text)).toEqual([]);
      }),
      { numRuns: runs(1000) },
    );
  });

  it("finds a planted key inside random text, with its start and length", {
    timeout: timeoutFor(),
  }, () => {
    const format = fc.constantFrom(...Object.values(FORMATS));
    const separator = fc.constantFrom(" ", '"', "'", "\n", "=", ":", "(", ",", "`", "\\n");
    fc.assert(
      fc.property(
        noisyText.filter(withoutPrefixes),
        separator,
        format,
        fc.integer({ min: 1, max: 2 ** 30 }),
        separator,
        noisyText.filter(withoutPrefixes),
        (before, open, { kind, make }, seed, close, after) => {
          const key = make(seeded(seed));
          const text = `${before}${open}${key}${close}${after}`;
          // A planted key must not be glued to key characters around it.
          fc.pre(withoutPrefixes(`${before}${open}`) && withoutPrefixes(`${close}${after}`));
          const index = before.length + open.length;
          expect(scanText(text)).toContainEqual({
            kind,
            index,
            length: key.length,
            start: key.slice(0, SHOWN),
          });
        },
      ),
      { numRuns: runs(1000) },
    );
  });
});

describe("scanKeysCommand", () => {
  const bundle = () => {
    const dir = mkdtempSync(join(tmpdir(), "scan-keys-"));
    const minified = `(()=>{var a="${KEYS.openaiProject}",b=1;function c(){return a+"${KEYS.openaiLegacy}"}})();`;
    writeFileSync(join(dir, "notes.txt"), `first line\nANTHROPIC_API_KEY=${KEYS.anthropic}\n`);
    writeFileSync(join(dir, "app.min.js"), `${"x".repeat(5000)};${minified}`);
    writeFileSync(
      join(dir, "app.min.js.map"),
      JSON.stringify({
        version: 3,
        sources: ["src/config.ts"],
        sourcesContent: [
          `export const admin = "${KEYS.anthropicAdmin}";\nexport const svc = "${KEYS.openaiServiceAccount}";\n`,
        ],
        mappings: "AAAA",
      }),
    );
    const binary = Buffer.concat([
      Buffer.from([0, 1, 2, 0, 255, 0, 0]),
      Buffer.from(KEYS.anthropic, "latin1"),
      Buffer.from([0, 0xc3, 0x28]),
    ]);
    writeFileSync(join(dir, "blob.bin"), binary);
    mkdirSync(join(dir, "node_modules", "dep"), { recursive: true });
    writeFileSync(join(dir, "node_modules", "dep", "index.js"), `"${KEYS.anthropic}"`);
    mkdirSync(join(dir, ".git"));
    writeFileSync(join(dir, ".git", "config"), `"${KEYS.anthropic}"`);
    return dir;
  };

  it("prints each planted key as its start and length, never whole, and exits 1", async () => {
    const dir = bundle();
    const { code, out } = await run(["."], dir);
    expect(code).toBe(1);
    expect(out).toContain("notes.txt:2:19  Anthropic key sk-ant-api… (108 characters)");
    expect(out).toContain(
      `app.min.js:1:5015  OpenAI key sk-proj-${KEYS.openaiProject.slice(8, 10)}…`,
    );
    expect(out).toContain(`(${KEYS.openaiLegacy.length} characters)`);
    expect(out).toContain("app.min.js.map:1:");
    expect(out).toContain("sk-ant-adm… (");
    expect(out).toContain("sk-svcacct… (");
    expect(out).toContain("blob.bin (byte 7)  Anthropic key sk-ant-api… (108 characters)");
    expect(out).toContain("6 findings in 4 files.");
    expect(out).not.toContain("node_modules");
    expect(out).not.toContain(".git");
    for (const key of Object.values(KEYS)) expect(out).not.toContain(key.slice(0, SHOWN + 1));
  });

  it("scans node_modules and .git when given directly", async () => {
    const dir = bundle();
    const { code, out } = await run(["node_modules", ".git/config"], dir);
    expect(code).toBe(1);
    expect(out).toContain("2 findings in 2 files.");
  });

  it("finds a key in an inline base64 source map", async () => {
    const dir = mkdtempSync(join(tmpdir(), "scan-keys-"));
    const map = Buffer.from(JSON.stringify({ sourcesContent: [`k="${KEYS.anthropic}"`] }));
    writeFileSync(
      join(dir, "a.js"),
      `x();\n//# sourceMappingURL=data:application/json;charset=utf-8;base64,${map.toString("base64")}\n`,
    );
    const { code, out } = await run(["a.js"], dir);
    expect(code).toBe(1);
    expect(out).toContain(
      "a.js:2:5  Anthropic key sk-ant-api… (108 characters) in an inline source map",
    );
  });

  it("exits 0 on a clean tree: this package's sources, its docs' keys, and the browser bundle", async () => {
    const { code, out } = await run(["src"], process.cwd());
    expect(out).toMatch(/^No keys and no dangerouslyAllowBrowser in \d+ files\.\n$/);
    expect(code).toBe(0);
    // The docs name the browser opt-in, but hold no key.
    const docs = await run(["docs", "README.md"], process.cwd());
    expect(docs.out).not.toMatch(/ key /);
    const result = await buildUiBundle();
    expect(scanText(result.outputFiles[0]?.text ?? "")).toEqual([]);
  });

  it("exits 2 on a usage error", async () => {
    expect((await run([], process.cwd())).code).toBe(2);
    expect((await run(["--all"], process.cwd())).code).toBe(2);
    const missing = await run(["no/such/dir"], process.cwd());
    expect(missing.code).toBe(2);
    expect(missing.err).toContain("no such file or directory: no/such/dir");
  });
});
