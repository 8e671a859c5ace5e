import { Schema } from "effect";
import {
  createApp,
  createCallPath,
  defineCommand,
  LiveQueryRefused,
  type LiveResult,
} from "elyra-assistant";
import { firstValueFrom, type Observable } from "rxjs";
import { TestScheduler } from "rxjs/testing";
import { describe, expect, it } from "vitest";
import { liveQueries, rerunOnWrites } from "../../src/actors/support/liveQueries.ts";
import { spyCommands, userOf } from "../fixtures/spyCommands.ts";

const scheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

describe("rerunOnWrites (marbles)", () => {
  it("runs at once, then again after exactly the writes that change its resource", () => {
    scheduler().run(({ hot, cold, expectObservable }) => {
      const writes = hot("--a--b--c--d|", {
        a: ["customers"],
        b: ["invoices"],
        c: ["customers", "invoices"],
        d: ["customersx"],
      });
      const run = () => cold("-(r|)", { r: "result" });
      expectObservable(rerunOnWrites(writes, "customers", run)).toBe("-r-r-----r--|", {
        r: "result",
      });
      expectObservable(rerunOnWrites(writes, "invoices", run)).toBe("-r----r--r--|", {
        r: "result",
      });
    });
  });

  it("a write of a resource re-runs the queries below it, not beside it", () => {
    scheduler().run(({ hot, cold, expectObservable }) => {
      const writes = hot("--a--b|", { a: ["billing"], b: ["billing.invoices.lines"] });
      const run = () => cold("(r|)", { r: 1 });
      expectObservable(rerunOnWrites(writes, "billing.invoices", run)).toBe("r-r---|", { r: 1 });
    });
  });

  it("a newer run replaces one still in flight", () => {
    scheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const writes = hot("-a--|", { a: ["customers"] });
      const slow = cold("---(r|)", { r: 1 });
      expectObservable(rerunOnWrites(writes, "customers", () => slow)).toBe("----(r|)", { r: 1 });
      expectSubscriptions(slow.subscriptions).toBe(["^!", "-^--!"]);
    });
  });
});

const setup = (abilities: ReadonlyArray<string> = ["customers.*", "invoices.view"]) => {
  const spies = spyCommands();
  const app = createApp({
    commands: spies.commands,
    userAbilities: (user) => (user as { abilities: string[] }).abilities,
    assistant: { allow: ["*"] },
    mcp: { allow: ["invoices.view"] },
  });
  const path = createCallPath(app);
  const live = liveQueries(app, path.activity$);
  const user = userOf(abilities);
  return { spies, app, path, live, user };
};

/** Subscribes and collects results; `settle` waits for the runs in flight. */
const collect = (source: Observable<LiveResult>) => {
  const results: LiveResult[] = [];
  let error: unknown;
  const subscription = source.subscribe({
    next: (r) => results.push(r),
    error: (e) => (error = e),
  });
  return { results, error: () => error, subscription };
};
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("the live registry", () => {
  it("a write through the call path re-runs exactly the live queries it affects", async () => {
    const { spies, path, live, user } = setup();
    const customer = collect(
      live.subscribe({ clientId: "w1", user }, "customers_show", { id: 42 }),
    );
    const invoices = collect(live.subscribe({ clientId: "w1", user }, "invoices_index", {}));
    await settle();
    expect(spies.runs.get("customers_show")).toBe(1);
    expect(spies.runs.get("invoices_index")).toBe(1);
    expect(customer.results).toEqual([{ _tag: "Result", value: { id: 42, name: "Ada" } }]);

    const outcome = await path.call(
      { tool: "customers_update", input: { id: 42, email: "ada@example.com" } },
      { user, origin: { kind: "assistant" }, scope: "w1" },
    );
    expect(outcome._tag).toBe("Succeeded");
    await settle();
    expect(spies.runs.get("customers_show")).toBe(2);
    expect(spies.runs.get("invoices_index")).toBe(1);
    expect(customer.results).toHaveLength(2);

    // A refused write changes nothing, so nothing runs again.
    await path.call(
      { tool: "customers_update", input: { id: 42, email: "nope" } },
      { user, origin: { kind: "assistant" }, scope: "w1" },
    );
    await settle();
    expect(spies.runs.get("customers_show")).toBe(2);

    // The app's own writes are told with invalidate.
    live.invalidate(["invoices"]);
    await settle();
    expect(spies.runs.get("invoices_index")).toBe(2);
    customer.subscription.unsubscribe();
    invoices.subscription.unsubscribe();
  });

  it("keeps client, command, named arguments and origin of each open query, until it ends", async () => {
    const { live, user } = setup();
    const a = collect(live.subscribe({ clientId: "w1", user }, "customers_show", { id: 1 }));
    const b = collect(
      live.subscribe(
        { clientId: "w1", user, origin: "agent", agent: "claude-code" },
        "invoices_index",
        {
          overdue: true,
        },
      ),
    );
    expect(live.queries("w1")).toEqual([
      { clientId: "w1", command: "customers_show", args: { id: 1 }, origin: "frontend" },
      { clientId: "w1", command: "invoices_index", args: { overdue: true }, origin: "agent" },
    ]);
    a.subscription.unsubscribe();
    expect(live.queries("w1").map((q) => q.command)).toEqual(["invoices_index"]);
    b.subscription.unsubscribe();
    expect(live.queries("w1")).toEqual([]);
  });

  it("a window closing ends its queries, and no write runs them again", async () => {
    const { spies, live, user } = setup();
    let completed = false;
    live.subscribe({ clientId: "w1", user }, "customers_show", { id: 1 }).subscribe({
      complete: () => (completed = true),
    });
    const other = collect(live.subscribe({ clientId: "w2", user }, "customers_show", { id: 2 }));
    await settle();
    live.close("w1");
    expect(completed).toBe(true);
    expect(live.queries("w1")).toEqual([]);
    live.invalidate(["customers"]);
    await settle();
    expect(spies.runs.get("customers_show")).toBe(3); // w1 once, w2 twice
    expect(other.results).toHaveLength(2);
  });

  it("refuses what the user could not see with a button, and runs nothing", async () => {
    const { spies, live, user } = setup(["invoices.view"]);
    const refusals = [
      [live.subscribe({ clientId: "w", user }, "customers_show", { id: 1 }), "notAllowed"],
      [live.subscribe({ clientId: "w", user }, "customers_update", { id: 1 }), "notLive"],
      [live.subscribe({ clientId: "w", user }, "__proto__", {}), "unknownCommand"],
      [live.subscribe({ clientId: "w", user }, "constructor", {}), "unknownCommand"],
      [
        live.subscribe({ clientId: "w", user }, "invoices_index", { overdue: "yes" }),
        "badArguments",
      ],
    ] as const;
    for (const [source, reason] of refusals) {
      const error = await firstValueFrom(source).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LiveQueryRefused);
      expect((error as LiveQueryRefused).reason).toBe(reason);
    }
    await settle();
    expect(spies.total()).toBe(0);
    expect(live.queries("w")).toEqual([]);
  });

  it("asks the user's rights again before each run: taken away, the next run tells so and runs nothing", async () => {
    const spies = spyCommands();
    let abilities = ["customers.view"];
    const app = createApp({ commands: spies.commands, userAbilities: () => abilities });
    const live = liveQueries(app, createCallPath(app).activity$);
    const seen = collect(live.subscribe({ clientId: "w", user: {} }, "customers_show", { id: 1 }));
    await settle();
    abilities = [];
    live.invalidate(["customers"]);
    await settle();
    expect(spies.runs.get("customers_show")).toBe(1);
    expect(seen.results.at(-1)).toEqual({
      _tag: "Failed",
      error: "the user may not do this: it takes customers.view",
    });
  });

  it("a userAbilities that throws refuses the query, it does not throw", async () => {
    const spies = spyCommands();
    const app = createApp({
      commands: spies.commands,
      userAbilities: () => {
        throw new Error("the session store is down");
      },
    });
    const live = liveQueries(app, createCallPath(app).activity$);
    const error = await firstValueFrom(
      live.subscribe({ clientId: "w", user: {} }, "customers_show", { id: 1 }),
    ).catch((e: unknown) => e);
    expect((error as LiveQueryRefused).reason).toBe("notAllowed");
    expect(spies.total()).toBe(0);
  });

  it("an agent's query is bounded by the MCP grant, not the user's abilities", async () => {
    const { spies, live, user } = setup(["*"]);
    const error = await firstValueFrom(
      live.subscribe({ clientId: "s", user, origin: "agent" }, "customers_show", { id: 1 }),
    ).catch((e: unknown) => e);
    expect((error as LiveQueryRefused).reason).toBe("notAllowed");
    expect(spies.runs.get("customers_show")).toBeUndefined();
  });

  it("a failing run is told, and the query stays open for the next write", async () => {
    let fail = true;
    const flaky = defineCommand({
      name: "things_show",
      description: "Show things.",
      can: "things.view",
      live: true,
      args: {},
      result: Schema.Array(Schema.Number),
      run: () => {
        if (fail) throw new Error("the database is down");
        return [1, 2];
      },
    });
    const app = createApp({ commands: [flaky], userAbilities: () => ["*"] });
    const live = liveQueries(app, createCallPath(app).activity$);
    const seen = collect(live.subscribe({ clientId: "w", user: {} }, "things_show", {}));
    await settle();
    fail = false;
    live.invalidate(["things"]);
    await settle();
    expect(seen.results).toEqual([
      { _tag: "Failed", error: "the database is down" },
      { _tag: "Result", value: [1, 2] },
    ]);
    expect(seen.error()).toBeUndefined();
  });

  it("a result JSON cannot hold (a BigInt, a cycle) is a failure naming it, not a throw in the stream", async () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    let value: unknown = { count: 3n };
    const odd = defineCommand({
      name: "things_count",
      description: "Count things.",
      can: "things.view",
      live: true,
      args: {},
      result: Schema.Unknown,
      run: () => value,
    });
    const app = createApp({ commands: [odd], userAbilities: () => ["*"] });
    const live = liveQueries(app, createCallPath(app).activity$);
    const seen = collect(live.subscribe({ clientId: "w", user: {} }, "things_count", {}));
    await settle();
    value = cycle;
    live.invalidate(["things"]);
    await settle();
    value = { count: 3 };
    live.invalidate(["things"]);
    await settle();
    expect(seen.results).toHaveLength(3);
    expect(seen.results[0]).toMatchObject({ _tag: "Failed" });
    expect((seen.results[0] as { error: string }).error).toContain("result.count");
    expect(seen.results[1]).toMatchObject({ _tag: "Failed" });
    expect(seen.results[2]).toEqual({ _tag: "Result", value: { count: 3 } });
    expect(seen.error()).toBeUndefined();
  });

  it("refuses a window's query past the bound, and a command's run sees the frontend origin", async () => {
    const origins: unknown[] = [];
    const shows = defineCommand({
      name: "things_show",
      description: "Show things.",
      can: "things.view",
      live: true,
      args: { id: Schema.Number },
      run: (_a, ctx) => {
        origins.push(ctx.origin);
        return null;
      },
    });
    const app = createApp({ commands: [shows], userAbilities: () => ["*"] });
    const live = liveQueries(app, createCallPath(app).activity$);
    const open = Array.from({ length: 64 }, (_, id) =>
      collect(live.subscribe({ clientId: "w", user: {} }, "things_show", { id })),
    );
    const over = collect(live.subscribe({ clientId: "w", user: {} }, "things_show", { id: 99 }));
    expect((over.error() as LiveQueryRefused).reason).toBe("tooMany");
    await settle();
    expect(origins).toHaveLength(64);
    expect(origins[0]).toEqual({ kind: "frontend" });
    // Closing queries frees their places.
    for (const o of open.slice(0, 1)) o.subscription.unsubscribe();
    const again = collect(live.subscribe({ clientId: "w", user: {} }, "things_show", { id: 100 }));
    expect(again.error()).toBeUndefined();
    expect(live.queries("w")).toHaveLength(64);
  });
});
