/**
 * A TypeScript consumer of the packed package, with its declaration files
 * checked (`skipLibCheck: false`) under the strictest flags people set:
 * the README's samples and every entry point, under `nodenext` (a Node app:
 * no DOM lib) and under `bundler` (with the DOM lib: the browser entry,
 * /react with React's types, and /mcp, whose SDK's declarations name DOM
 * types), with TypeScript 5.9 (this repository's), 6.0 and 7.0.
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import pkg from "../../package.json" with { type: "json" };
import { FIXTURES, figure, makeProject, npmInstall, REPO, spawned, TOOLS } from "./project.ts";

const tarball = inject("tarball");
const work = inject("work");

/** Just enough of Vitest for the README's test sample: this checks elyra-assistant's types, not Vitest's. */
const VITEST_STUB = `declare module "vitest" {
  interface Matchers {
    toBe(expected: unknown): void;
    toEqual(expected: unknown): void;
  }
  export function expect(actual: unknown): Matchers;
  export function test(name: string, body: () => Promise<void> | void): void;
}
`;

/**
 * The README's TypeScript samples, each a file of its own. A sample over the
 * repository's own example CRM (it imports `examples/crm/…`) needs the
 * repository, not the package: it is left out here, and run as written by the
 * spec it is quoted from (spec/testing/docs.spec.ts checks it is the same).
 */
const readmeSamples = (): string[] =>
  [...readFileSync(join(REPO, "README.md"), "utf8").matchAll(/```ts\n([\s\S]*?)```/g)]
    .map((match) => match[1] ?? "")
    .filter((sample) => !sample.includes("/examples/crm/"));

const STRICT = {
  strict: true,
  skipLibCheck: false,
  noEmit: true,
  noPropertyAccessFromIndexSignature: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  noImplicitOverride: true,
  verbatimModuleSyntax: true,
  erasableSyntaxOnly: true,
  isolatedModules: true,
  types: ["node"],
};

const CONFIGS = {
  nodenext: {
    ...STRICT,
    module: "NodeNext",
    moduleResolution: "NodeNext",
    target: "ES2022",
    lib: ["ES2022"],
  },
  bundler: {
    ...STRICT,
    module: "ESNext",
    moduleResolution: "bundler",
    target: "ES2020",
    lib: ["ES2020", "DOM", "DOM.Iterable"],
  },
};

const TYPESCRIPTS = {
  "5.9": join(REPO, "node_modules", "typescript", "bin", "tsc"),
  "6.0": join(TOOLS, "node_modules", "typescript-6", "bin", "tsc"),
  "7.0": join(TOOLS, "node_modules", "typescript-7", "bin", "tsc"),
};

let dir: string;
let samples: string[];

beforeAll(async () => {
  dir = makeProject(work, "typescript");
  await npmInstall(dir, [
    tarball,
    "effect@3",
    "@anthropic-ai/sdk",
    "@modelcontextprotocol/sdk",
    "ioredis",
    "@types/node@20",
    "react",
    "@types/react",
  ]);
  samples = readmeSamples();
  for (const [i, sample] of samples.entries()) {
    writeFileSync(join(dir, `readme-${i + 1}.ts`), sample);
  }
  writeFileSync(join(dir, "vitest.d.ts"), VITEST_STUB);
  for (const file of ["app.ts", "entries.ts", "browser.ts", "mcp.ts", "react.ts"]) {
    cpSync(join(FIXTURES, "consumer", file), join(dir, file));
  }
  // Every entry package.json exports, whatever the files above use: a new subpath is checked too.
  // But /machines: its declarations are XState's, which do not check under these flags (decision (x)).
  const every = Object.keys(pkg.exports)
    .filter((key) => key !== "./package.json" && key !== "./machines")
    .map((key, i) => `export * as e${i} from "elyra-assistant${key === "." ? "" : key.slice(1)}";`);
  writeFileSync(join(dir, "every-entry.ts"), `${every.join("\n")}\n`);
});

describe.each(Object.keys(TYPESCRIPTS) as Array<keyof typeof TYPESCRIPTS>)(
  "TypeScript %s",
  (version) => {
    it.each(Object.keys(CONFIGS) as Array<keyof typeof CONFIGS>)(
      "compiles the README's samples and every entry point under %s with 0 errors",
      async (name) => {
        expect(samples.length).toBeGreaterThanOrEqual(3);
        const files = [
          ...samples.map((_, i) => `readme-${i + 1}.ts`),
          "vitest.d.ts",
          "entries.ts",
          ...(name === "bundler" ? ["browser.ts", "mcp.ts", "react.ts", "every-entry.ts"] : []),
        ];
        const config = `tsconfig.${name}.json`;
        writeFileSync(
          join(dir, config),
          JSON.stringify({ compilerOptions: CONFIGS[name], files }, null, 2),
        );
        const ran = await spawned(
          "node",
          [TYPESCRIPTS[version], "-p", config, "--pretty", "false"],
          {
            cwd: dir,
          },
        );
        expect(ran.stdout + ran.stderr).toBe("");
        expect(ran.code).toBe(0);
        figure(`consumer tsc (${name}, TS ${version})`, `${(ran.ms / 1000).toFixed(1)} s`);
      },
    );
  },
);
