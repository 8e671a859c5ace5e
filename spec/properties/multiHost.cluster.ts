/**
 * The hosts of one run of the multi-host property (multiHost.spec.ts): N
 * hosts in this process, each a `postgresStore` made from a connection
 * string through a proxy of its own (spec/fixtures/pgProxy.ts), on one
 * database, with one simulated clock for the hosts' own waits (an ask's
 * time to an answer, a follower's probe of the holder). What the run keeps
 * of them: which host stored each event, under which lease and when, and
 * each run of `customers_delete`, on one tick counter, so that the spec can
 * say what had been stored before a command ran.
 */
import { createApp, createHost, type Host, type Model } from "elyra-assistant";
import type { EventStore, LogEvent, StoreChange } from "elyra-assistant/log";
import {
  type PostgresStore,
  type PostgresStoreOptions,
  postgresStore,
} from "elyra-assistant/postgres";
import { countingIds, fakeModel, simulatedClock } from "elyra-assistant/testing";
import type pg from "pg";
import { loopModel } from "../fixtures/loopModel.ts";
import type { PgProxy } from "../fixtures/pgProxy.ts";
import { spyCommands, type TestUser } from "../fixtures/spyCommands.ts";

export const ada: TestUser = { name: "Ada", abilities: ["customers.*"] };

/** An event as it was stored: by which host, under which lease, at which tick. */
export interface Stored {
  readonly host: number;
  readonly token: number | undefined;
  readonly at: number;
}

/** A run of `customers_delete`: by which host, for which customer, at which tick. */
export interface Run {
  readonly host: number;
  readonly id: number;
  readonly at: number;
}

export interface Cluster {
  readonly clock: ReturnType<typeof simulatedClock>;
  readonly hosts: ReadonlyArray<Host>;
  readonly hostIds: ReadonlyArray<string>;
  readonly clientId: string;
  readonly stream: string;
  readonly stored: Map<number, Stored>;
  readonly runs: Run[];
  readonly errors: string[];
  /** What each host's store told, of this run's stream: Appended seqs, and Resyncs. */
  readonly told: ReadonlyArray<StoreChange[]>;
  /** The window as a request to host `i` finds it (opened again if it had failed). */
  readonly window: (i: number) => ReturnType<Host["window"]>;
  /** Kills every backend of host `i`'s connections; resolves with how many. */
  readonly kill: (i: number) => Promise<number>;
  /**
   * Host `i` stops (its proxy holds every byte) past its lease: once nothing
   * of it runs at the server, its heartbeat is made to have lapsed, as it
   * has after `leaseMs` without beats.
   */
  readonly pause: (i: number) => Promise<void>;
  readonly resume: (i: number) => void;
  /** The log as stored. */
  readonly log: () => Promise<LogEvent[]>;
  readonly close: () => Promise<void>;
}

export interface ClusterSetup {
  /** One store per host, each through its proxy, its connections named `names[i]`: kept across runs. */
  readonly stores: ReadonlyArray<PostgresStore>;
  readonly names: ReadonlyArray<string>;
  readonly proxies: ReadonlyArray<PgProxy>;
  readonly admin: pg.Pool;
  readonly schema: string;
}

/** The stores of a setup: `leaseMs` and `heartbeatMs` at the server, `idleInTransactionMs` too. */
export const clusterStores = (
  url: (port: number, name: string) => string,
  proxies: ReadonlyArray<PgProxy>,
  options: Omit<PostgresStoreOptions, "table">,
) => {
  const names = proxies.map((_, i) => `mh_h${i}`);
  const stores = proxies.map((proxy, i) =>
    postgresStore(url(proxy.port, names[i] as string), options),
  );
  return { names, stores };
};

/**
 * The model: asked to delete, it deletes one customer (loopModel.ts); a
 * prompt that starts with "hello" is answered in words.
 */
const model = (): Model => {
  const deletes = loopModel();
  return {
    step: (request, options) => {
      const last = request.messages.at(-1);
      const hello = typeof last?.content === "string" && last.content.startsWith("hello");
      return (hello ? fakeModel().says("Hello.") : deletes).step(request, options);
    },
  };
};

/** Real time one wait of a run may take before the run fails as hung. */
export const HUNG_MS = 15_000;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Resolves with `promise`, or rejects naming `what` after HUNG_MS of real time. */
export const inTime = <A>(promise: Promise<A>, what: string): Promise<A> => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`hung: ${what}`)), HUNG_MS);
  });
  return Promise.race([promise, hung]).finally(() => clearTimeout(timer));
};
/** Polls `check` every 10 ms until it holds; false after `ms` of real time. */
export const until = async (
  check: () => boolean | Promise<boolean>,
  ms: number,
): Promise<boolean> => {
  for (const end = performance.now() + ms; performance.now() < end; await sleep(10))
    if (await check()) return true;
  return check();
};

/** The hosts of run `run`, one per proxy, on a window of their own. */
export const cluster = (setup: ClusterSetup, run: number): Cluster => {
  const { admin, schema, proxies, stores, names } = setup;
  const clock = simulatedClock(Date.parse("2026-12-02T09:00:00Z"));
  const clientId = `w${run}`;
  const stream = `conversation/${clientId}`;
  const hostIds = proxies.map((_, i) => `r${run}_h${i}`);
  const stored = new Map<number, Stored>();
  const runs: Run[] = [];
  const errors: string[] = [];
  let tick = 0;
  const told = proxies.map((): StoreChange[] => []);
  const replies = model();
  const hosts = stores.map((pgStore, i) => {
    const store: EventStore = {
      ...pgStore,
      append: async (s, events, expectedSeq, writer) => {
        const added = await pgStore.append(s, events, expectedSeq, writer);
        const at = ++tick;
        if (s === stream)
          for (const e of added) stored.set(e.seq, { host: i, token: writer?.token, at });
        return added;
      },
      changes: (listener) =>
        pgStore.changes((change) => {
          if (change._tag === "Resync" || change.stream === stream) told[i]?.push(change);
          listener(change);
        }),
    };
    const spies = spyCommands();
    const app = createApp({
      commands: spies.commands.map((c) =>
        c.name !== "customers_delete"
          ? c
          : {
              ...c,
              run: ((args: { readonly id: number }, ctx: unknown) => {
                runs.push({ host: i, id: args.id, at: ++tick });
                return (c.run as (a: unknown, b: unknown) => unknown)(args, ctx);
              }) as typeof c.run,
            },
      ),
      userAbilities: (u) => (u as TestUser).abilities,
      assistant: { allow: ["customers.*"], confirm: ["customers.delete"] },
    });
    return createHost(app, {
      model: replies,
      store,
      clock,
      hostId: hostIds[i] as string,
      confirmIds: countingIds(`h${i}-confirm`),
      onError: (e) => void errors.push(`h${i}: ${(e as Error)?.name}: ${(e as Error)?.message}`),
    });
  });
  const backends = async (i: number, where = "true") =>
    (
      await admin.query(
        `SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND ${where}`,
        [names[i]],
      )
    ).rows.length;

  return {
    clock,
    hosts,
    hostIds,
    clientId,
    stream,
    stored,
    runs,
    errors,
    told,
    window: (i) => (hosts[i] as Host).window(clientId, { user: ada }),
    kill: async (i) =>
      (
        await admin.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
           WHERE application_name = $1 AND pid <> pg_backend_pid()`,
          [names[i]],
        )
      ).rows.length,
    pause: async (i) => {
      proxies[i]?.pause();
      // What it sent before it stopped runs to its end at the server (a statement waiting for a
      // lock of its own paused transaction, until the server ends that transaction).
      for (let waited = 0; waited < 3_000 && (await backends(i, "state = 'active'")) > 0; )
        waited += await sleep(5).then(() => 5);
      await admin.query(
        `UPDATE ${schema}.elyra_events_hosts SET expires_at = clock_timestamp() - interval '1 ms'
         WHERE holder = $1`,
        [hostIds[i]],
      );
    },
    resume: (i) => proxies[i]?.resume(),
    log: async () =>
      (
        await admin.query(
          `SELECT data::text AS data FROM ${schema}.elyra_events WHERE stream = $1 ORDER BY seq`,
          [stream],
        )
      ).rows.map((row: { data: string }) => JSON.parse(row.data) as LogEvent),
    close: async () => {
      for (const proxy of proxies) {
        proxy.resume();
        proxy.notices("pass");
      }
      await Promise.all(
        hosts.map((h) => Promise.race([h.close().catch(() => undefined), sleep(5_000)])),
      );
    },
  };
};

/** An operation of a run's plan, on host `host` (multiHost.spec.ts says what each does). */
export type Op =
  | { op: "prompt" | "stop" | "reset" | "pause" | "resume" | "kill" | "settle"; host: number }
  | { op: "confirm"; host: number; pick: number; accept: boolean }
  | { op: "notices"; host: number; mode: "drop" | "hold" | "pass" }
  | { op: "advance"; ms: number };

/** Counterexamples the property found, shrunk (each reached about once in 100 random runs). */
export const KNOWN: ReadonlyArray<ReadonlyArray<Op>> = [
  [
    { op: "prompt", host: 1 },
    { op: "settle", host: 0 },
  ],
  [
    { op: "prompt", host: 2 },
    { op: "confirm", host: 0, pick: 0, accept: false },
    { op: "kill", host: 2 },
    { op: "advance", ms: 2_100 },
  ],
  [
    { op: "prompt", host: 0 },
    { op: "confirm", host: 2, pick: 0, accept: false },
    { op: "stop", host: 0 },
    { op: "kill", host: 0 },
  ],
  // A stop asked on a paused host reached the holder (its LISTEN cut) after the end's turn began.
  [
    { op: "reset", host: 0 },
    { op: "kill", host: 0 },
    { op: "pause", host: 1 },
    { op: "stop", host: 1 },
  ],
];
