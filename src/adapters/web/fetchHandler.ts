/** A fetch handler: what Hono, Bun, Deno and workers serve, and `toNodeListener` on Node. */
export type FetchHandler = (request: Request) => Promise<Response>;
