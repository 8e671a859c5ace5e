/**
 * `npm run mcp`: the example CRM's app as an MCP server for external agents,
 * over stdio (as Claude Desktop starts it), its data in CRM_DATA_DIR
 * (examples/crm/.data/ unless set).
 *
 * `npm run mcp -- --http [port]` serves it over Streamable HTTP on loopback
 * instead (port 3001 unless given, 0 for a free one) and prints the URL.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { VERSION } from "elyra-assistant";
import { toNodeListener } from "elyra-assistant/http";
import { mcpHttp, serveMcpStdio } from "elyra-assistant/mcp";
import { crmApp, DEMO_USER } from "./app.ts";
import { openCrmDb } from "./db.ts";
import { DEFAULT_DATA_DIR } from "./server.ts";
import { stopWhenAsked } from "./stopping.ts";

/** The names this machine's loopback goes by. */
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** Whether a Host header names loopback (any port). */
const loopback = (host: string | undefined): boolean =>
  host !== undefined && LOOPBACK.has(host.replace(/:\d+$/, ""));

/** Whether an Origin header is a page served from loopback (http or https, any port). */
const loopbackOrigin = (origin: string): boolean => {
  try {
    const url = new URL(origin);
    return (url.protocol === "http:" || url.protocol === "https:") && LOOPBACK.has(url.hostname);
  } catch {
    return false;
  }
};

const args = process.argv.slice(2);
const httpAt = args.indexOf("--http");
const rest = httpAt === -1 ? args : args.filter((_, i) => i !== httpAt && i !== httpAt + 1);
const portArg = httpAt === -1 ? undefined : args[httpAt + 1];
const port = portArg === undefined ? 3001 : Number(portArg);
if (rest.length > 0 || !Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error("Usage: npm run mcp [-- --http [port]]");
  process.exit(2);
}

const db = openCrmDb(join(process.env.CRM_DATA_DIR || DEFAULT_DATA_DIR, "crm.db"));
const app = crmApp(db);

if (httpAt === -1) {
  // Stdout carries the protocol: anything for people goes to stderr.
  const served = await serveMcpStdio(app, { name: "elyra-crm", version: VERSION, user: DEMO_USER });
  console.error("Elyra CRM over MCP on stdio");
  await served.closed;
  db.close();
} else {
  // The demo signs everyone in as Ada. A real app reads its own session (a bearer token) here.
  const handle = mcpHttp(app, {
    name: "elyra-crm",
    version: VERSION,
    authenticate: () => DEMO_USER,
  });
  const listener = toNodeListener(handle);
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    // Loopback only: a Host or Origin of anywhere else is refused, so a DNS-rebound site or
    // another site's page can't reach it; a page on this machine's own origin may.
    if (
      !loopback(req.headers.host) ||
      !(req.headers.origin === undefined || loopbackOrigin(req.headers.origin))
    ) {
      res.writeHead(403, { "content-type": "text/plain" }).end("Forbidden\n");
    } else if (url.pathname === "/mcp") {
      listener(req, res);
    } else {
      res.writeHead(404, { "content-type": "text/plain" }).end("Not found\n");
    }
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const { port: bound } = server.address() as AddressInfo;
  console.log(`Elyra CRM over MCP: http://127.0.0.1:${bound}/mcp`);

  stopWhenAsked(async () => {
    await handle.close();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    db.close();
  }, "Elyra CRM over MCP stopped.");
}
