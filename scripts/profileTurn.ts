/**
 * `npm run profile:turn [turns]`: where a streamed turn's CPU goes. Serves
 * the streamedTurn bench's stand-in Messages API (3 tool steps, then 4 KB
 * in 1 000 pieces) in this process, runs `turns` turns (300 unless given)
 * in a child on the compiled package under V8's CPU profiler, and prints the
 * top frames by self time and the package's own functions by total time;
 * then the same turns by the bare SDK loop in a child of its own, and where
 * each side's CPU goes, in ms a turn, side by side (docs/performance.md shows
 * a run). Needs `npm run build:lib` first.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type StandInRequest, says, standInMessagesApi, toolCall } from "elyra-assistant/testing";

const ANSWER = "Invoice one for Ada Lovelace is overdue by twelve days and owes 1 200 euros. "
  .repeat(60)
  .slice(0, 4096);
const STEPS = [
  { name: "invoices_index", input: { overdue: true } },
  { name: "customers_show", input: { id: 42 } },
  { name: "customers_show", input: { id: 43 } },
] as const;

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { functionName: string; url: string; lineNumber: number };
  readonly hitCount: number;
  readonly children?: ReadonlyArray<number>;
}

/** `name file:line`, the file from node_modules/ or dist/ on. */
const frameOf = (node: ProfileNode) => {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName || "(anonymous)"} ${url.replace(/^.*\/(node_modules\/|dist\/)/, "$1")}:${lineNumber + 1}`;
};

interface Profile {
  readonly nodes: ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: ReadonlyArray<number>;
}

/** Where a frame's time is counted in the side-by-side table: a dependency, a folder of the package, or the runtime. */
const placeOf = ({ callFrame: { functionName, url } }: ProfileNode): string => {
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (dependency !== null) return dependency[1] as string;
  const own = /\/dist\/(.*)\/[^/]+$/.exec(url);
  if (own !== null) return `the package: ${own[1]}/`;
  if (/undici/.test(url)) return "undici (fetch)";
  if (functionName === "(garbage collector)") return "the garbage collector";
  return "Node and V8, the rest";
};

const readProfile = (file: string): Profile => JSON.parse(readFileSync(file, "utf8")) as Profile;

/** Each place's self time, in ms a turn. */
const placesOf = (profile: Profile, turns: number): Map<string, number> => {
  const msPerSample = (profile.endTime - profile.startTime) / profile.samples.length / 1000;
  const places = new Map<string, number>();
  for (const n of profile.nodes) {
    if (n.hitCount === 0 || n.callFrame.functionName === "(idle)") continue;
    const place = placeOf(n);
    places.set(place, (places.get(place) ?? 0) + (n.hitCount * msPerSample) / turns);
  }
  return places;
};

/** The two sides' places, largest difference first. */
const sideBySide = (bare: Map<string, number>, library: Map<string, number>) => {
  const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  console.log("\n| where (self time) | bare loop, ms a turn | library, ms a turn | added |");
  console.log("| --- | ---: | ---: | ---: |");
  const row = (place: string, b: number, l: number) =>
    console.log(`| ${place} | ${b.toFixed(2)} | ${l.toFixed(2)} | ${(l - b).toFixed(2)} |`);
  row("all, while busy", sum(bare), sum(library));
  const places = [...new Set([...bare.keys(), ...library.keys()])]
    .map((p) => [p, bare.get(p) ?? 0, library.get(p) ?? 0] as const)
    .filter(([, b, l]) => Math.abs(l - b) >= 0.02 || l >= 0.1)
    .sort((x, y) => y[2] - y[1] - (x[2] - x[1]));
  for (const [place, b, l] of places) row(place, b, l);
};

const summary = ({ nodes }: Profile) => {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let busy = 0;
  for (const n of nodes) {
    if (n.hitCount === 0 || n.callFrame.functionName === "(idle)") continue;
    busy += n.hitCount;
    self.set(frameOf(n), (self.get(frameOf(n)) ?? 0) + n.hitCount);
    const seen = new Set<string>();
    for (let id: number | undefined = n.id; id !== undefined; id = parent.get(id)) {
      const frame = frameOf(byId.get(id) as ProfileNode);
      if (seen.has(frame)) continue;
      seen.add(frame);
      total.set(frame, (total.get(frame) ?? 0) + n.hitCount);
    }
  }
  const table = (title: string, rows: ReadonlyArray<[string, number]>) => {
    console.log(`\n| ${title} | frame |\n| ---: | --- |`);
    for (const [frame, hits] of rows)
      console.log(`| ${((100 * hits) / busy).toFixed(1)} % | \`${frame}\` |`);
  };
  table("self", [...self].sort((a, b) => b[1] - a[1]).slice(0, 20));
  table(
    "total",
    [...total]
      .filter(([frame]) => / dist\//.test(frame))
      .sort((a, b) => b[1] - a[1])
      .slice(0, 25),
  );
};

const turns = Number(process.argv[2] ?? 300);
const root = fileURLToPath(new URL("..", import.meta.url));
if (!existsSync(join(root, "dist", "index.js"))) {
  console.error("profile:turn profiles the compiled package: run `npm run build:lib` first");
  process.exit(1);
}
const api = await standInMessagesApi((request: StandInRequest) => {
  const messages = (request.body as { messages: Array<{ role: string }> }).messages;
  const call = STEPS[messages.filter((m) => m.role === "assistant").length];
  return call === undefined
    ? says(ANSWER, { pieces: 1_000, paceMs: 0 })
    : toolCall(call.name, call.input, { paceMs: 0 });
});
/** Runs `turns` turns of `side` in a child under the profiler; the profile's path. */
const profiled = async (side: "library" | "bare", dir: string): Promise<string> => {
  const child = spawn(
    process.execPath,
    [
      "--cpu-prof",
      `--cpu-prof-dir=${dir}`,
      join(root, "scripts", "profileTurn.child.mjs"),
      api.url,
      String(turns),
      ...(side === "bare" ? ["bare"] : []),
    ],
    { cwd: root, stdio: ["ignore", "inherit", "inherit"] },
  );
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  const [profile] = readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"));
  if (code !== 0 || profile === undefined) {
    console.error(`the profiled child (${side}) exited ${String(code)}`);
    process.exit(1);
  }
  return join(dir, profile);
};
const dir = mkdtempSync(join(tmpdir(), "elyra-profile-"));
const library = await profiled("library", mkdtempSync(join(dir, "library-")));
const bare = await profiled("bare", mkdtempSync(join(dir, "bare-")));
await api.close();
console.log(`${turns} turns; busy samples only (idle left out); ${library}`);
const libraryProfile = readProfile(library);
summary(libraryProfile);
sideBySide(placesOf(readProfile(bare), turns), placesOf(libraryProfile, turns));
if (process.env.KEEP_PROFILE === undefined) rmSync(dir, { recursive: true, force: true });
