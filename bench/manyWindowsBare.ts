/**
 * The fair baseline of bench/manyWindows.bench.ts: the bare SDK stream loop
 * per window, its text gathered by hand by the library's own rule and
 * written to the window's SSE client by a minimal node:http writer.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import Anthropic from "@anthropic-ai/sdk";

const GATHER_MS = 50;

/**
 * The library's gathering rule, by hand: a stream's first piece is written
 * at once; a piece that comes 50 ms or more after the last event written is
 * written at once with what waits; any other piece waits, and what waits is
 * written 50 ms after the last event by one timer (or by the next piece, when
 * a busy process runs that timer late). The stream's end writes what waits.
 */
const gatherer = (write: (text: string) => void) => {
  let text = "";
  let toldAt = Number.NEGATIVE_INFINITY;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tell = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (text === "") return;
    write(text);
    text = "";
    toldAt = performance.now();
  };
  return {
    push: (piece: string) => {
      const first = text === "";
      text += piece;
      const since = performance.now() - toldAt;
      if (since >= GATHER_MS) tell();
      else if (first) timer = setTimeout(tell, GATHER_MS - since);
    },
    end: tell,
  };
};

/** A started bare server: its handler for node:http, to serve on loopback. */
export const bareListener = (options: {
  readonly apiUrl: string;
  readonly apiKey: string;
  readonly model: string;
  readonly token: string;
}) => {
  const client = new Anthropic({ baseURL: options.apiUrl, apiKey: options.apiKey, maxRetries: 0 });
  const clients = new Map<string, ServerResponse>();
  const stream = async (res: ServerResponse) => {
    const events = await client.messages.create({
      model: options.model,
      max_tokens: 4096,
      messages: [{ role: "user", content: "Tell me everything." }],
      stream: true,
    });
    const gathered = gatherer((text) => res.write(`data: ${JSON.stringify({ text })}\n\n`));
    for await (const event of events) {
      if (event.type === "content_block_delta" && event.delta.type === "text_delta") {
        gathered.push(event.delta.text);
      }
    }
    gathered.end();
  };
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const id = String(req.headers["x-elyra-client"]);
    if (req.headers["x-elyra-token"] !== options.token) return void res.writeHead(401).end();
    if (req.method === "GET") {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.flushHeaders();
      clients.set(id, res);
      res.on("close", () => clients.delete(id));
      return;
    }
    req.resume();
    req.on("end", () => {
      const sse = clients.get(id);
      if (sse === undefined) return void res.writeHead(404).end();
      res.writeHead(202, { "content-type": "application/json" }).end('{"turn":1}');
      stream(sse).catch((error: unknown) => console.error("bare stream:", error));
    });
  });
};
