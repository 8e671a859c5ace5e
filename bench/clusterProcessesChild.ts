/**
 * One host of `bench/clusterProcesses.bench.ts`, in a process of its own:
 *
 *   node --import tsx bench/clusterProcessesChild.ts
 *
 * with STORE (`postgres` or `sqlite`), DATABASE_URL and SCHEMA (postgres) or
 * SQLITE_PATH (sqlite), HOST_ID and TOKEN set. It serves the HTTP host
 * (that token, everyone Ada) on a free loopback port and prints
 * `listening <url>`; its model answers every prompt at once, a word at a
 * time. A line `cpu` on its stdin is answered `cpu <µs> <counts>` (its own
 * user and system CPU so far, `process.cpuUsage`, and the statements its pg
 * connections sent so far by kind, as JSON), so the bench counts each host's
 * CPU and round trips between two points; the end of stdin (or SIGTERM) closes it cleanly, so a
 * `--cpu-prof` run writes its profile.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createInterface } from "node:readline";
import { createApp, createHost, type Model } from "elyra-assistant";
import { assistantHttp, toNodeListener } from "elyra-assistant/http";
import type { EventStore } from "elyra-assistant/log";
import { postgresStore } from "elyra-assistant/postgres";
import { sqliteStore } from "elyra-assistant/sqlite";
import { responseOf, wordsOf } from "elyra-assistant/testing";
import pg from "pg";
import { spyCommands, type TestUser } from "../spec/fixtures/spyCommands.ts";

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined || value === "") throw new Error(`clusterProcessesChild: set ${name}`);
  return value;
};

const ANSWER = "Ada Lovelace owes 1 200 euros on two overdue invoices.";
const WORDS = wordsOf(ANSWER);
const answer = responseOf({ text: ANSWER });
const model: Model = {
  step: async (_request, { onText }) => {
    for (const word of WORDS) onText?.(word);
    return answer;
  },
};

/** Statements sent on every pg connection of this process, by their first words (round trips). */
const counts: Record<string, number> = {};
const kindOf = (text: unknown): string => {
  const sql = typeof text === "string" ? text : String((text as { text?: unknown })?.text ?? "?");
  const words = sql.replace(/\s+/g, " ").trim().split(" ");
  // One round trip each: BEGIN, the lock, the statement and COMMIT in one query.
  if (sql.includes("WITH found AS")) return "append (one query)";
  if (sql.includes("WITH lease AS")) return "lease take (one query)";
  if (sql.includes("WITH last AS")) return "read to end (one query)";
  if (words[0] === "BEGIN" || words[0] === "COMMIT" || words[0] === "ROLLBACK") return words[0];
  if (sql.includes("pg_advisory_xact_lock")) return "lock";
  if (sql.includes("pg_notify")) return sql.includes("_messages") ? "send" : "insert+notify";
  if (sql.includes('_leases" l LEFT JOIN')) return "lease read";
  if (sql.includes('_hosts" (holder, expires_at)')) return "heartbeat";
  if (sql.includes("AS held")) return "check (seq, lease)";
  if (sql.includes("DELETE FROM") && sql.includes("_leases")) return "lease give";
  if (sql.includes("INSERT INTO") && sql.includes("_leases")) return "lease take";
  if (sql.includes("data::text AS data")) return "read";
  if (sql.includes("coalesce(max(seq), 0)::text AS seq FROM")) return "last seq";
  return words.slice(0, 3).join(" ");
};
const clientQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
  const kind = kindOf(args[0]);
  counts[kind] = (counts[kind] ?? 0) + 1;
  return clientQuery.apply(this, args);
} as typeof pg.Client.prototype.query;

// NOTIFYs this process's LISTEN connections were told: every host hears every append's.
const clientEmit = pg.Client.prototype.emit as (...args: unknown[]) => boolean;
pg.Client.prototype.emit = function (this: unknown, event: unknown, ...rest: unknown[]) {
  if (event === "notification") counts["(NOTIFY heard)"] = (counts["(NOTIFY heard)"] ?? 0) + 1;
  return clientEmit.call(this, event, ...rest);
} as typeof pg.Client.prototype.emit;

const app = createApp({
  commands: spyCommands().commands,
  userAbilities: (u) => (u as TestUser).abilities,
  assistant: { allow: ["customers.*", "invoices.view"], confirm: ["customers.delete"] },
});
const hostId = env("HOST_ID");
const store: EventStore & { close: () => Promise<void> } =
  env("STORE") === "sqlite"
    ? sqliteStore(env("SQLITE_PATH"))
    : postgresStore(env("DATABASE_URL"), { schema: env("SCHEMA") });
await (store as { ready?: () => Promise<void> }).ready?.();
const host = createHost(app, {
  model,
  store,
  hostId,
  onError: (error) => console.error(`${hostId}: ${String(error)}`),
});
const ada: TestUser = { name: "Ada", abilities: ["customers.*", "invoices.view"] };
const server = createServer(
  toNodeListener(assistantHttp(host, { token: env("TOKEN"), authenticate: () => ada })),
);
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`listening http://127.0.0.1:${port}\n`);
});

let closing = false;
const close = () => {
  if (closing) return;
  closing = true;
  server.closeAllConnections();
  server.close();
  void host
    .close()
    .then(() => store.close())
    .finally(() => process.exit(0));
};
const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (line.trim() !== "cpu") return;
  const { user, system } = process.cpuUsage();
  process.stdout.write(`cpu ${user + system} ${JSON.stringify(counts)}\n`);
});
lines.on("close", close);
process.once("SIGTERM", close);
