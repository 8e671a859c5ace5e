/**
 * One case of the idleWindows bench, in a process of its own: opens `windows`
 * windows (and, with `turn`, answers one prompt in each), then prints one JSON
 * line: the heap before and after, and the commands the app was built with.
 *
 *   node --expose-gc bench/idleWindows.child.mjs dist <windows> <opened|turn>
 *   node --expose-gc --import tsx \
 *     bench/idleWindows.child.mjs source <windows> <opened|turn>
 *
 * `dist` is what users install: the package compiled by tsc, run by plain
 * `node`. Plain node cannot load examples/crm/commands.ts, so the bench
 * compiles it first (bench/.crmCommands.mjs, by esbuild, importing
 * `elyra-assistant` itself, the compiled package); the bench still checks its
 * commands describe themselves as the example's do. `source` is the
 * repository's TypeScript under tsx, with the example's own commands.
 */
const [mode, windowsArg, turnArg] = process.argv.slice(2);
const windows = Number(windowsArg);
const turn = turnArg === "turn";
if (
  (mode !== "dist" && mode !== "source") ||
  !Number.isInteger(windows) ||
  windows <= 0 ||
  (turnArg !== "turn" && turnArg !== "opened")
) {
  throw new Error(`usage: idleWindows.child.mjs <dist|source> <windows> <opened|turn>`);
}
const gc = globalThis.gc;
if (typeof gc !== "function") throw new Error("run with node --expose-gc");

const lib = mode === "dist" ? await import("../dist/index.js") : await import("../src/index.ts");
const testing =
  mode === "dist" ? await import("../dist/testing.js") : await import("../src/testing.ts");
const { createApp, createHost } = lib;
const { memoryStore, responseOf } = testing;

// Under plain node, examples/crm/commands.ts as the bench compiled it, importing the compiled package.
const commands = (
  await import(mode === "dist" ? "./.crmCommands.mjs" : "../examples/crm/commands.ts")
).crmCommands();

const heapAfterGc = () => {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
};

const app = createApp({
  commands,
  userAbilities: (u) => u.abilities,
  assistant: { allow: ["customers.*", "invoices.view"], confirm: ["customers.delete"] },
});
// A model that keeps nothing (a fake model records every request, which is not the window's cost).
const answer = responseOf({ text: "There are three overdue invoices." });
const model = { step: async () => answer };
const host = createHost(app, { model, store: memoryStore() });
const user = { name: "Ada", abilities: ["customers.view", "invoices.view"] };
const before = heapAfterGc();
const opened = [];
for (let i = 0; i < windows; i++) {
  const w = host.window(`client-${i}`, { user });
  opened.push(w);
  if (turn) await w.prompt({ text: "What is overdue?", route: "/invoices" });
  else await w.ready;
}
await Promise.all(opened.map((w) => w.settled()));
const after = heapAfterGc();
await host.close();

const described = commands.map((c) => ({
  name: c.name,
  description: c.description,
  can: c.can,
  live: c.live,
  invalidates: c.invalidates,
  link: c.link,
  argumentNames: c.argumentNames,
  inputSchema: c.inputSchema,
  outputSchema: c.outputSchema,
}));
process.stdout.write(`${JSON.stringify({ before, after, commands: described })}\n`);
