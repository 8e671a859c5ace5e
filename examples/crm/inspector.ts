/**
 * `ELYRA_INSPECT=1 npm start`: every actor of the assistant's host (the
 * supervisor, each window's conversation and what it invokes, each
 * confirmation and coalescer) sent to Stately's inspector, through
 * `@statelyai/inspect`'s relay for Node: `createInspectorServer` serves a
 * page on localhost and relays over a WebSocket, `createWebSocketInspector`
 * sends to it. Nothing leaves the machine from this process; the page, in a
 * browser, frames Stately's inspector UI from stately.ai, so that browser
 * needs the internet. Without the flag nothing here is loaded.
 */
import { createServer } from "node:net";
import type { InspectObserver } from "elyra-assistant";

/** The relay's port unless `ELYRA_INSPECT_PORT` says otherwise: the package's default. */
export const INSPECT_PORT = 8080;

export interface Inspecting {
  /** For `createHost({ inspect })`. */
  readonly inspect: InspectObserver;
  /** The relay's port, on every interface of the machine. */
  readonly port: number;
  /** The page to open: `http://localhost:<port>`. */
  readonly url: string;
  /** Stops sending and closes the relay. */
  readonly close: () => void;
}

/** `ELYRA_INSPECT` set and not blank, `0` or `false`. */
const on = (value: string | undefined): boolean =>
  value !== undefined && !["", "0", "false"].includes(value.trim().toLowerCase());

/** Fails with a sentence when something listens on `port` already (the relay would crash on it). */
const ensureFree = (port: number): Promise<void> =>
  new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          error.code === "EADDRINUSE"
            ? `port ${port} is taken: pick another with ELYRA_INSPECT_PORT`
            : error.message,
        ),
      ),
    );
    // No address, as the relay listens: every interface.
    probe.listen(port, () => probe.close(() => resolve()));
  });

/**
 * The inspector the environment asks for: none unless `ELYRA_INSPECT` is set
 * (then `@statelyai/inspect` is imported, its relay started on
 * `ELYRA_INSPECT_PORT`, 8080 by default, without opening a browser).
 *
 * @example
 * ```ts
 * const inspecting = await inspectorFromEnv(process.env);
 * const crm = await startCrm(inspecting === undefined ? {} : { inspect: inspecting.inspect });
 * if (inspecting !== undefined) console.log(`Inspector: open ${inspecting.url}`);
 * ```
 */
export const inspectorFromEnv = async (
  env: Readonly<Record<string, string | undefined>>,
): Promise<Inspecting | undefined> => {
  if (!on(env.ELYRA_INSPECT)) return undefined;
  const given = env.ELYRA_INSPECT_PORT?.trim();
  const port = given === undefined || given === "" ? INSPECT_PORT : Number(given);
  if (!Number.isInteger(port) || port < 1 || port > 65_535)
    throw new Error(`ELYRA_INSPECT_PORT must be a port number, not ${JSON.stringify(given)}`);
  await ensureFree(port);
  const [{ createWebSocketInspector }, { createInspectorServer }] = await Promise.all([
    import("@statelyai/inspect"),
    import("@statelyai/inspect/server"),
  ]);
  const relay = createInspectorServer({ port, autoOpen: false });
  const inspector = createWebSocketInspector({ url: `ws://localhost:${port}` });
  return {
    inspect: inspector.inspect,
    port,
    url: `http://localhost:${port}`,
    close: () => {
      inspector.stop();
      relay.stop();
    },
  };
};
