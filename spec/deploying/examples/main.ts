import { randomBytes } from "node:crypto";
import type { SpanExporter } from "@opentelemetry/sdk-trace-base";
import { createHost } from "elyra-assistant";
import { app, type Member } from "./app.ts";
import { modelFrom } from "./model.ts";
import { serve } from "./server.ts";
import { storeFrom } from "./store.ts";
import { startTracing } from "./tracing.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** The whole server: tracing, the store, the model, the host, the page and its routes. */
export const start = async (
  env: Env,
  authenticate: (request: Request) => Member | undefined,
  exporter: SpanExporter,
) => {
  const tracing = startTracing(exporter);
  const store = await storeFrom(env);
  const { source, secrets } = modelFrom(env);
  const host = createHost(app, { model: source, modelFor: source.forUser, store });
  // The page's token: random for one instance; with several, one secret they all share.
  const token = env.ASSISTANT_TOKEN ?? randomBytes(24).toString("base64url");
  const server = serve(host, { token, authenticate, source, ...(secrets ? { secrets } : {}) });
  server.listen(Number(env.PORT ?? 3000));
  // On SIGTERM: no new connections; the turns running end (recorded Stopped) and, on
  // PostgreSQL, their leases go back, so another instance takes the windows at once.
  const stop = async () => {
    const closed = new Promise((resolve) => server.close(resolve));
    await host.close();
    server.closeAllConnections(); // the open event streams: each tab reconnects elsewhere
    await closed;
    await store.close?.();
    await tracing.shutdown();
  };
  return { server, host, store, stop };
};
