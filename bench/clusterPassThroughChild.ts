/**
 * The baseline of `bench/clusterProcesses.bench.ts`: what any host of a
 * window on a shared PostgreSQL must do at the least, in a process of its
 * own, without the library. It serves the same two routes over HTTP:
 * `GET /__assistant/events` opens an event stream for the client;
 * `POST /__assistant/prompt` stores one row under the stream's lock and
 * tells it with `pg_notify` in one round trip (one durable, fenced-free
 * write a turn), then writes the answer's frame to the client's stream and
 * answers 202. Every process LISTENs on the channel, as every host does.
 *
 *   node --import tsx bench/clusterPassThroughChild.ts
 *
 * with DATABASE_URL and TOKEN set; prints `listening <url>`, and answers a
 * line `cpu` on stdin as the host child does (`cpu <µs> {}`).
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createInterface } from "node:readline";
import pg from "pg";

const url = process.env.DATABASE_URL;
const token = process.env.TOKEN;
if (url === undefined || token === undefined)
  throw new Error("clusterPassThroughChild: set DATABASE_URL and TOKEN");

const pool = new pg.Pool({ connectionString: url, max: 10 });
pool.on("error", () => undefined);
await pool.query(
  "CREATE TABLE IF NOT EXISTS pass_events (stream text, seq bigint, data jsonb, PRIMARY KEY (stream, seq))",
);
const listener = await pool.connect();
await listener.query("LISTEN pass_events");
let heard = 0;
listener.on("notification", () => {
  heard++;
});

const streams = new Map<string, ServerResponse>();
const ANSWER = JSON.stringify({
  _tag: "Answered",
  turn: 1,
  text: "Ada Lovelace owes 1 200 euros.",
});

const server = createServer((request, response) => {
  if (request.headers["x-elyra-token"] !== token) {
    response.writeHead(403).end();
    return;
  }
  const client = String(request.headers["x-elyra-client"] ?? "");
  if (request.method === "GET" && request.url === "/__assistant/events") {
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.write(": open\n\n");
    streams.set(client, response);
    response.on("close", () => streams.delete(client));
    return;
  }
  if (request.method === "POST" && request.url === "/__assistant/prompt") {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const stream = `conversation/${client}`;
      const data = JSON.stringify({ _tag: "TurnStarted", text });
      pool
        .query(
          `BEGIN; SELECT pg_advisory_xact_lock(hashtext($$${stream}$$));
           INSERT INTO pass_events SELECT $$${stream}$$, coalesce(max(seq), 0) + 1, $$${data}$$::jsonb
             FROM pass_events WHERE stream = $$${stream}$$;
           SELECT pg_notify('pass_events', $$${stream}$$); COMMIT`,
        )
        .then(() => {
          response.writeHead(202, { "content-type": "application/json" }).end("{}");
          streams.get(client)?.write(`id: 1\ndata: ${ANSWER}\n\n`);
        })
        .catch((error: unknown) => response.writeHead(500).end(String(error)));
    });
    return;
  }
  response.writeHead(404).end();
});
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`listening http://127.0.0.1:${port}\n`);
});

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (line.trim() !== "cpu") return;
  const { user, system } = process.cpuUsage();
  process.stdout.write(`cpu ${user + system} ${JSON.stringify({ "(NOTIFY heard)": heard })}\n`);
});
lines.on("close", () => {
  server.closeAllConnections();
  server.close();
  listener.release();
  void pool.end().finally(() => process.exit(0));
});
