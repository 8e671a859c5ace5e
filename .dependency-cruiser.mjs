/**
 * The layers of src/, as docs/architecture.md draws them, checked by
 * `npm run lint` (dependency-cruiser). Each layer depends only on the layers
 * below it: runtime ← machines ← actors ← adapters (← cli, testing, the
 * entry points, src/<subpath>.ts, each held to the rules of the folder it
 * re-exports); inside actors, its rooms do so too. An adapter never imports another, except the shared web/
 * toolkit; nothing imports in a circle.
 */
const ADAPTER = "^src/adapters/([^/]+)/";
/** What an adapter (and its entry file) may import: the layers below, its own folder ($1), the web/ toolkit, the peer loader. */
const ADAPTER_MAY_IMPORT = [
  "^src/(runtime|machines|actors)/",
  "^src/adapters/$1/",
  "^src/adapters/web/",
  "^src/adapters/peer\\.ts$",
];
/** The prebuilt browser module's source, which only re-exports the ui entry. */
const UI_BUNDLE = "^src/adapters/ui/bundle\\.ts$";

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "A cycle makes the layers meaningless: break it by moving the shared piece down.",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "runtime-is-the-floor",
      severity: "error",
      comment: "src/runtime is pure domain code: it imports nothing of ours above it.",
      from: { path: "^src/runtime/" },
      to: { path: "^src/", pathNot: "^src/runtime/" },
    },
    {
      name: "machines-import-only-runtime",
      severity: "error",
      comment:
        "src/machines holds XState machines without I/O: they import runtime only; so does their entry, src/machines.ts.",
      from: { path: "^src/machines(/|\\.ts$)" },
      to: { path: "^src/", pathNot: "^src/(runtime|machines)/" },
    },
    {
      name: "actors-import-runtime-and-machines",
      severity: "error",
      comment: "src/actors runs the system: it imports runtime and machines, never an adapter.",
      from: { path: "^src/actors/" },
      to: { path: "^src/", pathNot: "^src/(runtime|machines|actors)/" },
    },
    // The rooms of src/actors, bottom to top: support, the window's interface
    // (assistantWindow.ts), log, turn, cluster, window, host. A room imports
    // only the rooms below it (docs/architecture.md, Layers).
    {
      name: "actors-support-is-the-floor",
      severity: "error",
      comment: "src/actors/support holds what every room uses: it imports no other room.",
      from: { path: "^src/actors/support/" },
      to: { path: "^src/actors/", pathNot: "^src/actors/support/" },
    },
    {
      name: "actors-interface-imports-support-only",
      severity: "error",
      comment: "The window's interface (src/actors/*.ts) is below every room but support.",
      from: { path: "^src/actors/[^/]+\\.ts$" },
      to: { path: "^src/actors/", pathNot: "^src/actors/(support/|[^/]+\\.ts$)" },
    },
    {
      name: "actors-log-below-turn",
      severity: "error",
      comment: "src/actors/log is a window's log: it knows nothing of turns, hosts or the cluster.",
      from: { path: "^src/actors/log/" },
      to: { path: "^src/actors/(turn|cluster|window|host)/" },
    },
    {
      name: "actors-turn-below-cluster",
      severity: "error",
      comment: "src/actors/turn runs a turn's actors: it imports the log and support, never up.",
      from: { path: "^src/actors/turn/" },
      to: { path: "^src/actors/(cluster|window|host)/" },
    },
    {
      name: "actors-cluster-below-window",
      severity: "error",
      comment:
        "src/actors/cluster is who writes a window among hosts: it imports no window or host.",
      from: { path: "^src/actors/cluster/" },
      to: { path: "^src/actors/(window|host)/" },
    },
    {
      name: "actors-window-below-host",
      severity: "error",
      comment: "src/actors/window is one window: the host opens it, it never imports the host.",
      from: { path: "^src/actors/window/" },
      to: { path: "^src/actors/host/" },
    },
    {
      name: "adapters-import-inward",
      severity: "error",
      comment:
        "An adapter translates at the edge: it imports runtime, machines and actors, its own folder and the shared web/ toolkit.",
      from: { path: ADAPTER, pathNot: ["^src/adapters/react/", UI_BUNDLE] },
      to: { path: "^src/", pathNot: ADAPTER_MAY_IMPORT },
    },
    {
      name: "adapter-entry-imports-its-adapter",
      severity: "error",
      comment:
        "An adapter's entry (src/http.ts for src/adapters/http, …) imports what its adapter may: runtime, machines, actors, that adapter's folder and the shared web/ toolkit.",
      from: { path: "^src/(http|proxy|mcp|ui)\\.ts$" },
      to: { path: "^src/", pathNot: ADAPTER_MAY_IMPORT },
    },
    {
      name: "ui-bundle-is-the-ui-entry",
      severity: "error",
      comment:
        "src/adapters/ui/bundle.ts is elyra-assistant/ui prebuilt: it imports the ui entry (src/ui.ts) and nothing else of ours.",
      from: { path: UI_BUNDLE },
      to: { path: "^src/", pathNot: "^src/ui\\.ts$" },
    },
    {
      name: "react-binds-the-browser-store",
      severity: "error",
      comment:
        "src/adapters/react and its entry (src/react.ts) are the browser store (ui/) as hooks: they import what an adapter may and ui's modules, never ui's entry (src/ui.ts), which defines the panel element as it loads.",
      from: { path: "^src/(adapters/react/|react\\.ts$)" },
      to: {
        path: "^src/",
        pathNot: [
          "^src/(runtime|machines|actors)/",
          "^src/adapters/(react|web)/",
          "^src/adapters/ui/(?!bundle\\.ts$)",
          "^src/adapters/peer\\.ts$",
        ],
      },
    },
    {
      name: "web-toolkit-is-shared-not-sharing",
      severity: "error",
      comment: "src/adapters/web is the toolkit the web adapters share: it imports no adapter.",
      from: { path: "^src/adapters/web/" },
      to: { path: "^src/adapters/", pathNot: "^src/adapters/web/" },
    },
    {
      name: "testing-is-a-user-of-the-core",
      severity: "error",
      comment:
        "src/testing ships to users: in-memory twins built on runtime, machines and actors; its entry, src/testing.ts, imports the same.",
      from: { path: "^src/testing(/|\\.ts$)" },
      to: { path: "^src/", pathNot: "^src/(runtime|machines|actors|testing)/" },
    },
    {
      name: "nothing-imports-the-cli",
      severity: "error",
      comment: "The CLI is a top: only its bin imports it.",
      from: { path: "^src/", pathNot: "^src/cli/" },
      to: { path: "^src/cli/" },
    },
    {
      name: "browser-entry-has-no-node",
      severity: "error",
      comment:
        "The browser code (src/adapters/ui, src/adapters/react and their entries src/ui.ts, src/react.ts) runs in a page: no Node built-ins.",
      from: { path: "^src/(adapters/(ui|react)/|(ui|react)\\.ts$)" },
      to: { dependencyTypes: ["core"] },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // Our files and Node's built-ins (for the browser rule); npm packages are not followed.
    exclude: { path: "node_modules" },
    // Type-only imports count: a layer that names a type of the layer above depends on it.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      conditionNames: ["import", "types", "default"],
    },
  },
};
