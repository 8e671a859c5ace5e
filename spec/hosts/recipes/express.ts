import { BASE_PATH, type FetchHandler, toNodeListener } from "elyra-assistant/http";
import type { Express } from "express";

/**
 * Serves the assistant's routes in an Express 5 app, at the root, ahead of
 * the app's body parsers and compression: the handler reads the body itself
 * and writes event streams straight to Node's response, and a middleware
 * registered after this one never sees its requests.
 *
 * @example
 * ```ts
 * const app = express();
 * mountAssistant(app, assistantHttp(host, { token, authenticate }));
 * app.use(express.json()); // after it
 * ```
 */
export const mountAssistant = (app: Express, handle: FetchHandler, basePath = BASE_PATH) => {
  const assistant = toNodeListener(handle);
  // Not app.use(basePath, …): Express would cut the path off req.url, which the handler routes by.
  app.use((req, res, next) => (req.url.startsWith(`${basePath}/`) ? assistant(req, res) : next()));
};
