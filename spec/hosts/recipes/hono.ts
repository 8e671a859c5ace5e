import { BASE_PATH, type FetchHandler } from "elyra-assistant/http";
import type { Env, Hono, Schema } from "hono";

/**
 * Serves the assistant's routes in a Hono app, handing the handler the
 * request as it came: its full URL, its body unread, its signal.
 *
 * @example
 * ```ts
 * const app = new Hono();
 * mountAssistant(app, assistantHttp(host, { token, authenticate }));
 * serve({ fetch: app.fetch, port: 3000 }); // @hono/node-server
 * ```
 */
export const mountAssistant = <E extends Env, S extends Schema, B extends string>(
  app: Hono<E, S, B>,
  handle: FetchHandler,
  basePath = BASE_PATH,
) => {
  app.all(`${basePath}/*`, (c) => handle(c.req.raw));
};
