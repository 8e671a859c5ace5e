/**
 * `inspect <app module> [--json]`: what each grant lets a model do, so a
 * reviewer sees at a glance which tools run without anyone being asked.
 */
import type { App, Grant } from "../runtime/commands/app.ts";
import type { CliIo } from "./cliCommand.ts";
import { loadApp } from "./loadApp.ts";

/**
 * How a tool runs on a surface: the user is asked first (its ability is in
 * the grant's `confirm`), it only reads (a `live` command), or it runs
 * without asking. Confirmation wins over `live`: the call path asks first
 * for any ability in `confirm`.
 */
export type ToolKind = "asks-first" | "read-only" | "runs-without-asking";

/** One tool of a grant. */
export interface InspectedTool {
  readonly name: string;
  readonly ability: string;
  readonly kind: ToolKind;
}

/** One surface's grant: its rules, its tools by name, and how many of each kind. */
export interface InspectedGrant {
  readonly surface: "assistant" | "mcp";
  readonly allow: ReadonlyArray<string>;
  readonly confirm: ReadonlyArray<string>;
  readonly tools: ReadonlyArray<InspectedTool>;
  readonly counts: {
    readonly asksFirst: number;
    readonly readOnly: number;
    readonly runsWithoutAsking: number;
  };
}

/** What `inspect` reports: each surface's grant, or `null` when the app has none. */
export interface InspectReport {
  readonly version: 1;
  readonly assistant: InspectedGrant | null;
  readonly mcp: InspectedGrant | null;
}

const kindOf = (grant: Grant, ability: string, live: boolean): ToolKind =>
  grant.needsConfirm(ability) ? "asks-first" : live ? "read-only" : "runs-without-asking";

const inspectGrant = (grant: Grant): InspectedGrant => {
  const tools = [...grant.tools.values()]
    .map((command) => {
      const ability = command.can ?? "";
      return { name: command.name, ability, kind: kindOf(grant, ability, command.live) };
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const count = (kind: ToolKind) => tools.filter((tool) => tool.kind === kind).length;
  return {
    surface: grant.surface,
    allow: [...grant.allow],
    confirm: [...grant.confirm],
    tools,
    counts: {
      asksFirst: count("asks-first"),
      readOnly: count("read-only"),
      runsWithoutAsking: count("runs-without-asking"),
    },
  };
};

/**
 * Sorts each grant's tools (by name) into asks first, read-only and runs
 * without asking. Pure: the same app gives the same report.
 *
 * @example
 * ```ts
 * const report = inspectApp(app);
 * report.assistant?.counts.runsWithoutAsking; // 3
 * ```
 */
export const inspectApp = (app: App): InspectReport => ({
  version: 1,
  assistant: app.assistant === undefined ? null : inspectGrant(app.assistant),
  mcp: app.mcp === undefined ? null : inspectGrant(app.mcp),
});

const TITLES = { assistant: "Assistant", mcp: "MCP" } as const;
const HEADINGS: ReadonlyArray<readonly [ToolKind, string]> = [
  ["asks-first", "asks first"],
  ["read-only", "read-only"],
  ["runs-without-asking", "runs without asking"],
];

const formatGrant = (surface: "assistant" | "mcp", grant: InspectedGrant | null): string[] => {
  if (grant === null) return [`${TITLES[surface]}: no grant`];
  const list = (patterns: ReadonlyArray<string>) =>
    patterns.length === 0 ? "none" : patterns.join(", ");
  const lines = [
    `${TITLES[surface]} grant (allow: ${list(grant.allow)}; confirm: ${list(grant.confirm)})`,
  ];
  if (grant.tools.length === 0) lines.push("  no tools");
  const width = Math.max(0, ...grant.tools.map((tool) => tool.name.length));
  for (const [kind, heading] of HEADINGS) {
    const tools = grant.tools.filter((tool) => tool.kind === kind);
    if (tools.length === 0) continue;
    lines.push(`  ${heading}`);
    for (const tool of tools) lines.push(`    ${tool.name.padEnd(width)}  ${tool.ability}`);
  }
  const n = grant.counts.runsWithoutAsking;
  lines.push(`  ${n} ${n === 1 ? "tool runs" : "tools run"} without asking`);
  return lines;
};

/** The report as text: per grant, its tools under each kind, then the count that runs without asking. */
export const formatInspect = (report: InspectReport): string => {
  const lines = [
    ...formatGrant("assistant", report.assistant),
    "",
    ...formatGrant("mcp", report.mcp),
  ];
  return `${lines.join("\n")}\n`;
};

const USAGE = "usage: elyra-assistant inspect <app module> [--json]\n";

/**
 * The `inspect` subcommand: 0 when the report is printed, 1 when the module
 * exports no app, 2 on a usage error.
 */
export const inspectCommand = async (args: string[], io: CliIo): Promise<number> => {
  const json = args.includes("--json");
  const rest = args.filter((arg) => arg !== "--json");
  const unknown = rest.find((arg) => arg.startsWith("-"));
  if (unknown !== undefined || rest.length !== 1) {
    io.stderr(unknown !== undefined ? `unknown option ${unknown}\n${USAGE}` : USAGE);
    return 2;
  }
  const loaded = await loadApp(rest[0] as string, io.cwd);
  if (loaded._tag === "NotLoaded") {
    io.stderr(`${loaded.reason}\n`);
    return 1;
  }
  const report = inspectApp(loaded.app);
  io.stdout(json ? `${JSON.stringify(report, null, 2)}\n` : formatInspect(report));
  return 0;
};
