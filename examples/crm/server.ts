/**
 * The example CRM's server, on node:http: the HTML page, the browser app
 * (bundled from client.ts with esbuild when the server starts), and the
 * assistant's routes under /__assistant/. The assistant's log is in SQLite
 * beside the CRM's data, or in PostgreSQL (`databaseUrl`), which several
 * instances share (`npm run cluster`).
 */
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  createHost,
  type InspectObserver,
  type Model,
  memorySecrets,
  type Secrets,
} from "elyra-assistant";
import { assistantHttp, toNodeListener } from "elyra-assistant/http";
import { type EventStore, memoryStore } from "elyra-assistant/log";
import { sqliteStore } from "elyra-assistant/sqlite";
import { build } from "esbuild";
import { crmApp, DEMO_USER } from "./app.ts";
import { type CrmDb, openCrmDb, type SeedOptions } from "./db.ts";
import { loggingFailures, modelFromEnv, noticeFor, withUserKeys } from "./modelSource.ts";
import { shell } from "./shell.ts";

const here = dirname(fileURLToPath(import.meta.url));

/** Where the CRM keeps its databases unless told: examples/crm/.data/. */
export const DEFAULT_DATA_DIR = join(here, ".data");

export interface CrmOptions {
  /** The port to listen on; 0 (the default) takes a free one. */
  readonly port?: number;
  /** The address to listen on: 127.0.0.1 unless given (the demo signs everyone in as Ada). */
  readonly hostname?: string;
  /** The CRM's database: `<dataDir>/crm.db` unless given, `":memory:"` for one that lasts as long as the server. */
  readonly dbPath?: string;
  /** Where the databases live: examples/crm/.data/ unless given. The assistant's log is `assistant.db` beside `crm.db`, unless `databaseUrl` is given. */
  readonly dataDir?: string;
  /** The model; chosen from the environment (`ANTHROPIC_API_KEY`, `ELYRA_PROXY_URL`, else the demo model) unless given. */
  readonly model?: Model;
  /** The panel's notice: with a model given, none unless given; else the chosen model's unless given. */
  readonly notice?: string | null;
  /** How an empty database is filled, or `false` to leave it empty. */
  readonly seed?: SeedOptions | false;
  /** The environment the model is chosen from: `process.env` unless given. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * A PostgreSQL connection string: the assistant's log is `postgresStore`
   * there (several instances share it) instead of `assistant.db`. The CRM's
   * own data stays in SQLite (`crm.db`).
   */
  readonly databaseUrl?: string;
  /**
   * The token the page carries and the assistant's routes ask for: made at
   * random unless given. Instances behind one balancer share one.
   */
  readonly token?: string;
  /** This instance's name, sent as `x-elyra-instance` on every response: none unless given. */
  readonly instance?: string;
  /**
   * Where users' own API keys are kept (the panel's settings save one, and
   * that user's steps then go to Claude with it): in memory unless given, so
   * a key lasts as long as the server and is never written to disk or
   * logged; `false` for none, and the panel shows no settings.
   */
  readonly secrets?: Secrets | false;
  /** XState's inspection events of the assistant's actors (`createHost({ inspect })`): none unless given. */
  readonly inspect?: InspectObserver;
}

export interface RunningCrm {
  /** `http://localhost:<port>`. */
  readonly url: string;
  readonly port: number;
  /** Which model answers, in words. */
  readonly model: string;
  /** Where the assistant's log is, in words (never a password). */
  readonly log: string;
  /** Stops the server, the assistant and the databases. */
  readonly close: () => Promise<void>;
}

/** The browser app, bundled: client.ts with elyra-assistant/ui. */
export const bundleClient = async (): Promise<string> => {
  const result = await build({
    entryPoints: [join(here, "client.ts")],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    legalComments: "none",
    logLevel: "silent",
  });
  const [file] = result.outputFiles;
  if (file === undefined) throw new Error("esbuild wrote no bundle");
  return file.text;
};

const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

/** `host:port/database` of a connection string, never its user or password. */
const serverOf = (databaseUrl: string): string => {
  try {
    const url = new URL(databaseUrl);
    return `${url.host}${url.pathname}`;
  } catch {
    return "DATABASE_URL";
  }
};

type ClosableStore = EventStore & { readonly close?: () => Promise<void> };

/**
 * The assistant's log: PostgreSQL at `databaseUrl` (connected and its table
 * made before the server starts, so a wrong URL fails here), else
 * `assistant.db` in `dir`, else (an in-memory CRM) memory.
 */
const openLog = async (
  databaseUrl: string | undefined,
  dir: string | null,
): Promise<{ readonly store: ClosableStore; readonly log: string }> => {
  if (databaseUrl !== undefined) {
    // Loaded only here: `npm start` without DATABASE_URL never loads pg.
    const { postgresStore } = await import("elyra-assistant/postgres");
    const store = postgresStore(databaseUrl);
    try {
      await store.ready();
    } catch (error) {
      await store.close();
      throw error;
    }
    return { store, log: `PostgreSQL at ${serverOf(databaseUrl)}` };
  }
  if (dir === null) return { store: memoryStore(), log: "memory" };
  // On a fresh clone the data folder (git-ignored) does not exist yet.
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "assistant.db");
  return { store: sqliteStore(path), log: `SQLite at ${path}` };
};

/** The paths the browser app routes (a link followed from the panel lands on one). */
const APP_PATH = /^\/(?:(?:customers|invoices)(?:\/\d+)?)?$/;

/**
 * Starts the CRM: opens (and on first start creates and seeds) its database,
 * bundles the browser app, and serves it with the assistant.
 *
 * @example
 * ```ts
 * const crm = await startCrm({ port: 3000 });
 * console.log(crm.url); // http://localhost:3000
 * await crm.close();
 * ```
 */
export const startCrm = async (options: CrmOptions = {}): Promise<RunningCrm> => {
  const dataDir = options.dataDir ?? DEFAULT_DATA_DIR;
  const dbPath = options.dbPath ?? join(dataDir, "crm.db");
  const inMemory = dbPath === ":memory:";
  const choice =
    options.model === undefined
      ? modelFromEnv(options.env ?? process.env)
      : {
          model: options.model,
          label: "the model given",
          notice: options.notice ?? null,
          source: "app" as const,
        };
  const secrets = options.secrets === undefined ? memorySecrets() : options.secrets;
  const keyed = secrets === false ? undefined : withUserKeys(choice, secrets);

  const { store, log } = await openLog(options.databaseUrl, inMemory ? null : dirname(dbPath));
  let script: string;
  let db: CrmDb;
  try {
    script = await bundleClient();
    db = openCrmDb(dbPath, options.seed === undefined ? {} : { seed: options.seed });
  } catch (error) {
    await store.close?.();
    throw error;
  }
  // A model that fails (a bad key, the network) is told in the panel and logged here.
  const host = createHost(crmApp(db), {
    model: loggingFailures(choice.model),
    ...(keyed === undefined ? {} : { modelFor: (user) => loggingFailures(keyed.modelFor(user)) }),
    store,
    ...(options.inspect === undefined ? {} : { inspect: options.inspect }),
  });

  // Anyone who can load the page gets the token: it proves a request comes from
  // this page (not another site), not who the user is. That is authenticate's job.
  // Instances behind one balancer share one, so each accepts the page another served.
  const token = options.token ?? randomBytes(24).toString("base64url");
  const notice = options.notice === undefined ? choice.notice : options.notice;
  const assistant = toNodeListener(
    assistantHttp(host, {
      token,
      // The demo signs everyone in as Ada. A real app reads its own session
      // here (the session cookie on the request) and returns null without one.
      authenticate: () => DEMO_USER,
      // The panel's settings: which source answers, and a key of the user's own to keep.
      ...(keyed === undefined || secrets === false ? {} : { secrets, source: keyed.source }),
      // The banner, asked with the source: it goes once a key of the user's answers instead.
      notice: noticeFor({ ...choice, notice }),
    }),
  );
  const page = shell({ token, notice });

  const send = (
    res: ServerResponse,
    status: number,
    type: string,
    body: string,
    method: string | undefined,
  ) => {
    res.writeHead(status, {
      "content-type": type,
      "content-length": Buffer.byteLength(body),
      "cache-control": "no-store",
      ...SECURITY_HEADERS,
    });
    res.end(method === "HEAD" ? undefined : body);
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    // Set before any handler writes its head: it keeps it (writeHead merges).
    if (options.instance !== undefined) res.setHeader("x-elyra-instance", options.instance);
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (path === "/__assistant" || path.startsWith("/__assistant/")) {
      assistant(req, res);
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.setHeader("allow", "GET, HEAD");
      send(res, 405, "text/plain; charset=utf-8", "Method not allowed\n", req.method);
    } else if (path === "/app.js") {
      send(res, 200, "text/javascript; charset=utf-8", script, req.method);
    } else if (path === "/favicon.ico") {
      res.writeHead(204, SECURITY_HEADERS).end();
    } else if (APP_PATH.test(path)) {
      send(res, 200, "text/html; charset=utf-8", page, req.method);
    } else {
      send(res, 404, "text/plain; charset=utf-8", "Not found\n", req.method);
    }
  });

  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 0, options.hostname ?? "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    await host.close();
    await store.close?.();
    db.close();
    throw error;
  }
  const { port } = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  return {
    url: `http://localhost:${port}`,
    port,
    model: choice.label,
    log,
    close: () => {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          // Event streams and live queries stay open until their connections are cut.
          server.closeAllConnections();
        });
        await host.close();
        await store.close?.();
        db.close();
      })();
      return closing;
    },
  };
};
