/**
 * Idle windows (the targets in docs/architecture.md): the heap one open
 * conversation costs while it waits, at 1 000 and 10 000 windows in one
 * process. Baseline: the same process before the windows were opened (the
 * host, the app and the modules loaded). Targets (issue 31): ≤ 8 KB per window
 * just opened, ≤ 10 KB per window after one turn.
 *
 * Two kinds of idle window: one just opened (its actor spawned, nothing said),
 * and one after a short answered turn, its log kept in the memory store.
 *
 * Each case runs in a child process (idleWindows.child.mjs) under plain
 * `node --expose-gc`, against the compiled package in dist/ — what users
 * install — built first when dist/ is missing or older than src/. Not under
 * tsx: tsx compiles with esbuild's keepNames, which wraps every named function
 * in `__name(fn, "x")`; defining `name` gives each closure an out-of-object
 * property array (~256 B), and a window holds dozens of closures, so the
 * sources under tsx cost some 10 KB a window more than the package does. That
 * figure is kept as an informational column (sourcePerWindowKb), each case
 * again in a child, under tsx with the source condition.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { buildSync } from "esbuild";
import { crmCommands } from "../examples/crm/commands.ts";
import { SOURCE_NODE_ARGS } from "../spec/fixtures/sourceNode.ts";
import { buildIfStale } from "./dist.ts";
import type { Benchmark, BenchResult } from "./report.ts";

/** The heap one idle window may cost: just opened, and after one turn. */
const TARGET_KB = { opened: 8, turn: 10 } as const;

const root = fileURLToPath(new URL("..", import.meta.url));
const child = fileURLToPath(new URL("idleWindows.child.mjs", import.meta.url));

type Mode = "dist" | "source";

interface Measured {
  readonly before: number;
  readonly after: number;
  readonly commands: unknown;
}

/** One case in a fresh process: the compiled package under plain node, or the sources under tsx. */
const measure = async (mode: Mode, windows: number, turn: boolean): Promise<Measured> => {
  const args = [
    "--expose-gc",
    ...(mode === "source" ? SOURCE_NODE_ARGS : []),
    child,
    mode,
    String(windows),
    turn ? "turn" : "opened",
  ];
  const { stdout } = await promisify(execFile)(process.execPath, args, {
    cwd: root,
    maxBuffer: 16 * 2 ** 20,
  });
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as Measured;
};

/** The commands as the child reports them, for the example's own: the JavaScript copy must match. */
const described = () =>
  JSON.parse(
    JSON.stringify(
      crmCommands().map((c) => ({
        name: c.name,
        description: c.description,
        can: c.can,
        live: c.live,
        invalidates: c.invalidates,
        link: c.link,
        argumentNames: c.argumentNames,
        inputSchema: c.inputSchema,
        outputSchema: c.outputSchema,
      })),
    ),
  ) as unknown;

const perWindowKb = ({ before, after }: Measured, windows: number) =>
  (after - before) / windows / 1024;

/**
 * examples/crm/commands.ts as plain node loads it (bench/.crmCommands.mjs): its own code, with
 * `elyra-assistant` and `effect` left as imports, so the dist child runs the example's commands
 * over the compiled package rather than a copy that drifts.
 */
const compileCommands = () =>
  buildSync({
    entryPoints: [join(root, "examples/crm/commands.ts")],
    outfile: join(root, "bench/.crmCommands.mjs"),
    bundle: true,
    format: "esm",
    platform: "node",
    external: ["effect", "elyra-assistant"],
    logLevel: "error",
  });

const run = async (): Promise<BenchResult> => {
  const build = buildIfStale();
  compileCommands();
  const expected = JSON.stringify(described());
  const rows = [];
  for (const turn of [false, true]) {
    for (const windows of [1_000, 10_000]) {
      const dist = await measure("dist", windows, turn);
      if (JSON.stringify(dist.commands) !== expected) {
        throw new Error(
          "the compiled bench/.crmCommands.mjs does not describe its commands as examples/crm/commands.ts does",
        );
      }
      const source = await measure("source", windows, turn);
      const kb = perWindowKb(dist, windows);
      rows.push({
        case: `${windows.toLocaleString("en-US")} windows, ${turn ? "after one turn" : "just opened"}`,
        baselineHeapMb: Math.round((dist.before / 2 ** 20) * 10) / 10,
        heapMb: Math.round((dist.after / 2 ** 20) * 10) / 10,
        perWindowKb: Math.round(kb * 100) / 100,
        sourcePerWindowKb: Math.round(perWindowKb(source, windows) * 100) / 100,
        pass: kb <= (turn ? TARGET_KB.turn : TARGET_KB.opened),
      });
    }
  }
  return {
    title: "idle windows (1 000 and 10 000 in one process), the compiled package",
    baseline: "the same process's heap before the windows were opened",
    target: `≤ ${TARGET_KB.opened} KB per window just opened, ≤ ${TARGET_KB.turn} KB after one turn (dist/ under plain node)`,
    pass: rows.every((r) => r.pass),
    headline: "perWindowKb",
    columns: ["case", "baselineHeapMb", "heapMb", "perWindowKb", "sourcePerWindowKb", "pass"],
    rows,
    notes: [
      "heapUsed after three forced collections, before and after opening the windows; " +
        "each case in a fresh child process.",
      `perWindowKb, baselineHeapMb, heapMb: dist/ (${build}) under plain \`node --expose-gc\`, ` +
        "the CRM's commands compiled from examples/crm/commands.ts by esbuild (bench/.crmCommands.mjs, over the compiled package).",
      "sourcePerWindowKb (informational, no target): src/ under tsx, whose esbuild keepNames " +
        "wraps each named function in __name(), costing each closure an out-of-object property array.",
      "An idle window: its conversation actor, its confirmation broker, its log's projections; " +
        "after one turn its log (a memory store) holds the turn's 6 events.",
      "The runner counts these child processes' CPU as other processes': a warning that they " +
        "took much of it concerns this bench's own children (and heap figures do not depend on CPU).",
    ],
  };
};

export const benchmark: Benchmark = { name: "idleWindows", run };
