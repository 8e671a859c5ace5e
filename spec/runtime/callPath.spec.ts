import { Schema } from "effect";
import {
  type AnyCommand,
  type CallContext,
  type Confirmer,
  createApp,
  createCallPath,
  defineCommand,
  formatOutcome,
  type RateDecision,
  ran,
} from "elyra-assistant";
import type { Activity, AgentCalled } from "elyra-assistant/log";
import {
  answeringConfirmer,
  countingIds,
  failingRateLimitStore,
  silentConfirmer,
  simulatedClock,
} from "elyra-assistant/testing";
import { describe, expect, it, vi } from "vitest";
import { spyCommands, type TestUser } from "../fixtures/spyCommands.ts";

const setup = (
  options: { assistant?: object; mcp?: object; abilities?: string[]; extra?: AnyCommand[] } = {},
) => {
  const spies = spyCommands();
  const user = { name: "Ada", abilities: options.abilities ?? ["*"] } as {
    name: string;
    abilities: string[];
  };
  const app = createApp({
    commands: [...spies.commands, ...(options.extra ?? [])],
    userAbilities: (u) => (u as TestUser).abilities,
    assistant: (options.assistant ?? { allow: ["*"], confirm: ["customers.delete"] }) as never,
    mcp: (options.mcp ?? {
      allow: ["customers.*", "invoices.view"],
      confirm: ["customers.delete"],
    }) as never,
  });
  const clock = simulatedClock(1_000);
  const path = createCallPath(app, {
    clock,
    ids: countingIds("call"),
    confirmIds: countingIds("c"),
  });
  const activity: Activity[] = [];
  const audit: AgentCalled[] = [];
  path.activity$.subscribe((a) => activity.push(a));
  path.audit$.subscribe((a) => audit.push(a));
  const ctx = (more: Partial<CallContext> = {}): CallContext => ({
    user,
    origin: { kind: "assistant" },
    scope: "window-1",
    ...more,
  });
  return { spies, user, app, clock, path, activity, audit, ctx };
};

const told = (outcome: Parameters<typeof formatOutcome>[0]) => formatOutcome(outcome).text;

describe("1. resolving the tool", () => {
  it.each([
    "customers_purge",
    "__proto__",
    "constructor",
    "toString",
    "hasOwnProperty",
    "valueOf",
    "",
  ])("%j is an unknown tool and nothing runs", async (tool) => {
    const { path, ctx, spies } = setup();
    const outcome = await path.call({ tool, input: {} }, ctx());
    expect(outcome._tag).toBe("UnknownTool");
    expect(told(outcome)).toBe(`unknown tool: ${tool}`);
    expect(spies.total()).toBe(0);
  });

  it("a command without an ability is never callable", async () => {
    const { path, ctx, spies } = setup();
    expect(told(await path.call({ tool: "internal_sync", input: {} }, ctx()))).toBe(
      "unknown tool: internal_sync",
    );
    expect(spies.runs.get("internal_sync")).toBeUndefined();
  });

  it("a tool this turn did not offer is unknown to the model", async () => {
    const { path, ctx, spies } = setup();
    const outcome = await path.call(
      { tool: "customers_show", input: { id: 1 } },
      ctx({ offered: new Set(["invoices_index"]) }),
    );
    expect(told(outcome)).toBe("unknown tool: customers_show");
    expect(spies.total()).toBe(0);
  });

  it("clips a hostile tool name in what the model is told", async () => {
    const { path, ctx } = setup();
    const text = told(await path.call({ tool: "x".repeat(10_000), input: {} }, ctx()));
    expect(text).toBe(`unknown tool: ${"x".repeat(63)}…`);
  });
});

describe("2. the grant", () => {
  it("a command outside the grant is an unknown tool, even for a user who has its ability", async () => {
    const { path, ctx, spies } = setup({ assistant: { allow: ["invoices.*"] } });
    expect(told(await path.call({ tool: "customers_delete", input: { id: 1 } }, ctx()))).toBe(
      "unknown tool: customers_delete",
    );
    expect(spies.total()).toBe(0);
  });

  it("an app with no assistant grant runs nothing for the assistant", async () => {
    const spies = spyCommands();
    const app = createApp({ commands: spies.commands, userAbilities: () => ["*"] });
    const outcome = await createCallPath(app).call(
      { tool: "customers_show", input: { id: 1 } },
      { user: {}, origin: { kind: "assistant" }, scope: "w" },
    );
    expect(outcome._tag).toBe("UnknownTool");
    expect(spies.total()).toBe(0);
  });
});

describe("3. the user's abilities", () => {
  it("refuses with the ability named, and nothing runs", async () => {
    const { path, ctx, spies } = setup({ abilities: ["customers.view"] });
    const outcome = await path.call({ tool: "customers_delete", input: { id: 1 } }, ctx());
    expect(outcome._tag).toBe("Denied");
    expect(told(outcome)).toBe("the user may not do this: it takes customers.delete");
    expect(spies.total()).toBe(0);
  });

  it("an ability lost mid-turn is the denial, given before any question is asked", async () => {
    const { path, ctx, spies, user } = setup({ abilities: ["customers.*"] });
    const confirmer = answeringConfirmer("accepted");
    user.abilities = ["customers.view"];
    const outcome = await path.call(
      { tool: "customers_delete", input: { id: 1 } },
      ctx({ offered: new Set(["customers_delete"]), confirmer }),
    );
    expect(told(outcome)).toBe("the user may not do this: it takes customers.delete");
    expect(confirmer.asked).toHaveLength(0);
    expect(spies.total()).toBe(0);
  });

  it("MCP has no user-ability check: the MCP grant decides", async () => {
    const { path, ctx, spies } = setup({ abilities: [] });
    const outcome = await path.call(
      { tool: "customers_show", input: { id: 1 } },
      ctx({ origin: { kind: "agent", client: "claude-desktop" } }),
    );
    expect(outcome._tag).toBe("Succeeded");
    const outside = await path.call(
      { tool: "admin_reindex", input: {} },
      ctx({ origin: { kind: "agent", client: "cursor" } }),
    );
    expect(told(outside)).toBe("unknown tool: admin_reindex");
    expect(spies.runs.get("customers_show")).toBe(1);
    expect(spies.runs.get("admin_reindex")).toBeUndefined();
  });
});

describe("4. rate limits", () => {
  it("refuses past the limit with the wait, per tool and per window", async () => {
    const { path, ctx, clock, spies } = setup({
      assistant: { allow: ["*"], rateLimit: { calls: 2, perSeconds: 60 } },
    });
    const show = { tool: "customers_show", input: { id: 1 } };
    expect((await path.call(show, ctx()))._tag).toBe("Succeeded");
    clock.increment(10_000);
    expect((await path.call(show, ctx()))._tag).toBe("Succeeded");
    clock.increment(5_500);
    const limited = await path.call(show, ctx());
    expect(told(limited)).toBe("rate limit reached for customers_show: try again in 45 s");
    expect(spies.runs.get("customers_show")).toBe(2);
    // Another tool, and another window, have their own count.
    expect((await path.call({ tool: "invoices_index", input: {} }, ctx()))._tag).toBe("Succeeded");
    expect((await path.call(show, ctx({ scope: "window-2" })))._tag).toBe("Succeeded");
    clock.increment(44_500);
    expect((await path.call(show, ctx()))._tag).toBe("Succeeded");
  });

  it("a command's own limit overrides the grant's", async () => {
    const strict = defineCommand({
      name: "reports_run",
      description: "Run a report.",
      can: "reports.run",
      rateLimit: { calls: 1, perSeconds: 3600 },
      args: {},
      run: () => "done",
    });
    const { path, ctx } = setup({
      extra: [strict],
      assistant: { allow: ["*"], rateLimit: { calls: 100, perSeconds: 1 } },
    });
    await path.call({ tool: "reports_run", input: {} }, ctx());
    expect(told(await path.call({ tool: "reports_run", input: {} }, ctx()))).toBe(
      "rate limit reached for reports_run: try again in 3600 s",
    );
  });

  it("reads a store of the app's own by its tags: Allowed runs, Limited refuses with the store's wait", async () => {
    const spies = spyCommands();
    const app = createApp({
      commands: spies.commands,
      userAbilities: () => ["*"],
      assistant: { allow: ["*"], rateLimit: { calls: 5, perSeconds: 1 } },
    });
    const decisions: RateDecision[] = [
      { _tag: "Allowed" },
      { _tag: "Limited", retryAfterMs: 1_500 },
    ];
    const path = createCallPath(app, {
      rateLimits: { take: async () => decisions.shift() ?? { _tag: "Allowed" } },
    });
    const show = { tool: "customers_show", input: { id: 1 } };
    const context = { user: {}, origin: { kind: "assistant" as const }, scope: "w" };
    expect((await path.call(show, context))._tag).toBe("Succeeded");
    const limited = await path.call(show, context);
    expect(limited).toMatchObject({ _tag: "RateLimited", retryAfterMs: 1_500 });
    expect(told(limited)).toBe("rate limit reached for customers_show: try again in 2 s");
    expect(spies.runs.get("customers_show")).toBe(1);
  });

  it("fails closed when the store fails", async () => {
    const spies = spyCommands();
    const app = createApp({
      commands: spies.commands,
      userAbilities: () => ["*"],
      assistant: { allow: ["*"], rateLimit: { calls: 5, perSeconds: 1 } },
    });
    const path = createCallPath(app, { rateLimits: failingRateLimitStore() });
    const outcome = await path.call(
      { tool: "customers_show", input: { id: 1 } },
      { user: {}, origin: { kind: "assistant" }, scope: "w" },
    );
    expect(told(outcome)).toBe(
      "the rate limit for customers_show could not be checked, so it did not run",
    );
    expect(spies.total()).toBe(0);
    const rejecting = createCallPath(app, {
      rateLimits: { take: () => Promise.reject(new Error("redis down")) },
    });
    expect(
      (
        await rejecting.call(
          { tool: "customers_show", input: { id: 1 } },
          { user: {}, origin: { kind: "assistant" }, scope: "w" },
        )
      )._tag,
    ).toBe("RateLimitUnavailable");
    expect(spies.total()).toBe(0);
  });
});

describe("5. arguments", () => {
  it("gives one line per issue naming the field, and nothing runs", async () => {
    const { path, ctx, spies } = setup();
    const outcome = await path.call(
      { tool: "customers_update", input: { id: "42", email: "not-an-email" } },
      ctx(),
    );
    expect(told(outcome)).toBe('id: expected number, got "42"\nemail: must be a valid email');
    expect(formatOutcome(outcome).isError).toBe(true);
    expect(spies.total()).toBe(0);
  });

  it.each([
    ["a string", '{"id": 1'],
    ["null", null],
    ["an array", [1]],
    ["extra fields", { id: 1, admin: true }],
  ])("refuses %s as arguments", async (_title, input) => {
    const { path, ctx, spies } = setup();
    const outcome = await path.call({ tool: "customers_show", input }, ctx());
    expect(outcome._tag).toBe("InvalidArguments");
    expect(spies.total()).toBe(0);
  });
});

describe("5. arguments nested too deep (issue 16)", () => {
  const nested = (levels: number, leaf: unknown = 1): unknown => {
    let value = leaf;
    for (let i = 0; i < levels; i++) value = i % 2 === 0 ? { a: value } : [value];
    return value;
  };
  const any = defineCommand({
    name: "any_value",
    description: "Takes anything.",
    can: "x.y",
    args: { value: Schema.Unknown },
    run: () => null,
  });

  it.each([
    ["customers_show", { id: nested(10_000) }],
    ["customers_update", { id: 1, email: nested(10_000) }],
    ["any_value", { value: nested(10_000) }],
    ["any_value", { value: nested(64) }],
  ])("%s: invalid arguments, nothing runs, and the call is audited", async (tool, input) => {
    const { path, ctx, spies, audit } = setup({ extra: [any] });
    const outcome = await path.call({ tool, input }, ctx());
    expect(outcome._tag).toBe("InvalidArguments");
    expect(told(outcome)).toBe("arguments: nested deeper than 64 levels");
    expect(spies.total()).toBe(0);
    expect(audit.map((r) => r.outcome)).toEqual(["invalidArguments"]);
  });

  it("64 levels in all are taken", async () => {
    const { path, ctx } = setup({ extra: [any] });
    const outcome = await path.call({ tool: "any_value", input: { value: nested(63) } }, ctx());
    expect(outcome._tag).toBe("Succeeded");
  });

  it("a cycle given in-process is too deep, not a hang", async () => {
    const { path, ctx } = setup({ extra: [any] });
    const cycle: { self?: unknown } = {};
    cycle.self = cycle;
    const outcome = await path.call({ tool: "any_value", input: { value: cycle } }, ctx());
    expect(told(outcome)).toBe("arguments: nested deeper than 64 levels");
  });
});

describe("6. calls from code", () => {
  it("refuses a confirm tool called from code, without asking, whatever the model sent", async () => {
    const { path, ctx, spies } = setup();
    const confirmer = answeringConfirmer("accepted");
    const outcome = await path.call(
      {
        tool: "customers_delete",
        input: { id: 1 },
        caller: { type: "code", toolId: "srvtoolu_1" },
      },
      ctx({ confirmer }),
    );
    expect(told(outcome)).toBe("call it directly, so the user can confirm it");
    expect(confirmer.asked).toHaveLength(0);
    expect(spies.total()).toBe(0);
  });

  it("lets code call a tool that needs no confirmation", async () => {
    const { path, ctx, activity } = setup();
    const outcome = await path.call(
      { tool: "invoices_index", input: {}, caller: { type: "code", toolId: "srvtoolu_1" } },
      ctx(),
    );
    expect(outcome._tag).toBe("Succeeded");
    expect(activity[0]).toMatchObject({
      type: "started",
      caller: { type: "code", toolId: "srvtoolu_1" },
    });
  });
});

describe("7. confirmation", () => {
  it("asks with a fresh id, the tool, its description and the arguments; runs once accepted", async () => {
    const { path, ctx, spies } = setup();
    const confirmer = answeringConfirmer("accepted");
    const outcome = await path.call(
      { tool: "customers_delete", input: { id: 42 }, callId: "toolu_1" },
      ctx({ confirmer }),
    );
    expect(outcome._tag).toBe("Succeeded");
    expect(confirmer.asked).toEqual([
      {
        confirmId: "c-1",
        callId: "toolu_1",
        tool: "customers_delete",
        description: "Delete a customer. It cannot be undone.",
        // For people: the command's title (read from its name when it declares none).
        title: "Delete a customer",
        args: { id: 42 },
        digest: expect.stringMatching(/^[0-9a-f]{64}$/),
        scope: "window-1",
        destructive: true,
        action: "Delete",
        editable: [],
      },
    ]);
    expect(spies.runs.get("customers_delete")).toBe(1);
  });

  it("declined: the documented sentence, and nothing runs", async () => {
    const { path, ctx, spies } = setup();
    const outcome = await path.call(
      { tool: "customers_delete", input: { id: 42 } },
      ctx({ confirmer: answeringConfirmer("declined") }),
    );
    expect(told(outcome)).toBe("The user didn't confirm customers_delete, so it did not run.");
    expect(spies.total()).toBe(0);
  });

  it("times out after 5 minutes on the simulated clock, and nothing runs", async () => {
    const { path, ctx, spies, clock } = setup();
    const confirmer = silentConfirmer();
    const pending = path.call({ tool: "customers_delete", input: { id: 42 } }, ctx({ confirmer }));
    await vi.waitFor(() => expect(confirmer.asked).toHaveLength(1));
    clock.increment(5 * 60 * 1000 - 1);
    let settled = false;
    void pending.then(() => {
      settled = true;
    });
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    clock.increment(1);
    const outcome = await pending;
    expect(outcome).toMatchObject({ _tag: "NotConfirmed", answer: "timedOut" });
    expect(told(outcome)).toBe("The user didn't confirm customers_delete, so it did not run.");
    expect(spies.total()).toBe(0);
  });

  it("without a confirmer, a confirm tool is not confirmed", async () => {
    const { path, ctx, spies } = setup();
    expect(told(await path.call({ tool: "customers_delete", input: { id: 1 } }, ctx()))).toBe(
      "The user didn't confirm customers_delete, so it did not run.",
    );
    expect(spies.total()).toBe(0);
  });

  it("Stop while waiting: not run, and the wait ends at once", async () => {
    const { path, ctx, spies } = setup();
    const stop = new AbortController();
    const confirmer = silentConfirmer();
    const pending = path.call(
      { tool: "customers_delete", input: { id: 1 } },
      ctx({ confirmer, signal: stop.signal }),
    );
    await vi.waitFor(() => expect(confirmer.asked).toHaveLength(1));
    stop.abort();
    const outcome = await pending;
    expect(told(outcome)).toBe("customers_delete was stopped before it ran");
    expect(spies.total()).toBe(0);
  });

  it("a reply that names another id, tool or digest is not a confirmation", async () => {
    for (const change of [
      { confirmId: "c-999" },
      { tool: "customers_show" },
      { digest: "0".repeat(64) },
    ]) {
      const { path, ctx, spies } = setup();
      const confirmer: Confirmer = {
        ask: async (r) => ({
          confirmId: r.confirmId,
          tool: r.tool,
          digest: r.digest,
          answer: "accepted",
          ...change,
        }),
      };
      const outcome = await path.call(
        { tool: "customers_delete", input: { id: 1 } },
        ctx({ confirmer }),
      );
      expect(outcome).toMatchObject({ _tag: "NotConfirmed", answer: "declined" });
      expect(spies.total()).toBe(0);
    }
  });

  it("arguments changed while the user was asked: not run", async () => {
    const { path, ctx, spies } = setup();
    const input = { id: 1 };
    const confirmer = answeringConfirmer(() => {
      input.id = 2;
      return "accepted";
    });
    const outcome = await path.call({ tool: "customers_delete", input }, ctx({ confirmer }));
    expect(outcome._tag).toBe("NotConfirmed");
    expect(spies.total()).toBe(0);
  });

  it("a confirmer that fails is not a confirmation", async () => {
    const { path, ctx, spies } = setup();
    const confirmer: Confirmer = { ask: () => Promise.reject(new Error("window closed")) };
    expect(
      (await path.call({ tool: "customers_delete", input: { id: 1 } }, ctx({ confirmer })))._tag,
    ).toBe("NotConfirmed");
    expect(spies.total()).toBe(0);
  });

  it("MCP confirms by the MCP grant's own confirm list", async () => {
    const { path, ctx } = setup({
      assistant: { allow: ["*"] },
      mcp: { allow: ["*"], confirm: ["customers.update"] },
    });
    const confirmer = answeringConfirmer("declined");
    const agent = ctx({ origin: { kind: "agent", client: "cursor" }, confirmer });
    expect((await path.call({ tool: "customers_delete", input: { id: 1 } }, agent))._tag).toBe(
      "Succeeded",
    );
    expect(
      (await path.call({ tool: "customers_update", input: { id: 1, email: "a@b.co" } }, agent))
        ._tag,
    ).toBe("NotConfirmed");
    expect(confirmer.asked.map((r) => r.tool)).toEqual(["customers_update"]);
  });
});

describe("8. running", () => {
  it("passes the user, the origin and an abort signal", async () => {
    const seen: unknown[] = [];
    const probe = defineCommand({
      name: "probe",
      description: "Probe.",
      can: "probe.run",
      args: {},
      run: (_args, ctx) => {
        seen.push(ctx);
        return null;
      },
    });
    const { path, ctx, user } = setup({ extra: [probe], mcp: { allow: ["*"] } });
    const stop = new AbortController();
    await path.call({ tool: "probe", input: {} }, ctx({ signal: stop.signal }));
    await path.call(
      { tool: "probe", input: {} },
      ctx({ origin: { kind: "agent", client: "cursor" } }),
    );
    expect(seen[0]).toEqual({ user, origin: { kind: "assistant" }, signal: stop.signal });
    expect(seen[1]).toMatchObject({ origin: { kind: "agent", client: "cursor" } });
    expect((seen[1] as { signal: AbortSignal }).signal).toBeInstanceOf(AbortSignal);
  });

  it("a call stopped before it runs does not run", async () => {
    const { path, ctx, spies } = setup();
    const stop = new AbortController();
    stop.abort();
    expect(
      (await path.call({ tool: "customers_show", input: { id: 1 } }, ctx({ signal: stop.signal })))
        ._tag,
    ).toBe("Stopped");
    expect(spies.total()).toBe(0);
  });

  it("a command that throws is a failed call, told as lines", async () => {
    const failing = defineCommand({
      name: "failing",
      description: "Fails.",
      can: "x.y",
      args: {},
      run: () => {
        throw new Error("no customer has id 9\nask for another id");
      },
    });
    const { path, ctx } = setup({ extra: [failing] });
    const outcome = await path.call({ tool: "failing", input: {} }, ctx());
    expect(outcome._tag).toBe("Failed");
    expect(ran(outcome)).toBe(true);
    expect(formatOutcome(outcome)).toEqual({
      isError: true,
      text: "no customer has id 9\nask for another id",
    });
  });

  it("a result that does not match its schema is a failed call", async () => {
    const liar = defineCommand({
      name: "liar",
      description: "Lies.",
      can: "x.y",
      args: {},
      result: Schema.Struct({ id: Schema.Number }),
      run: () => ({ id: "seven" }) as never,
    });
    const { path, ctx } = setup({ extra: [liar] });
    expect(told(await path.call({ tool: "liar", input: {} }, ctx()))).toBe(
      'the command\'s result did not match its schema\nid: expected number, got "seven"',
    );
  });
});

describe("8. a result JSON can't hold (issue 16)", () => {
  const returning = (name: string, make: () => unknown) =>
    defineCommand({ name, description: "Returns it.", can: "x.y", args: {}, run: make });
  const cyclic = () => {
    const order: { id: number; lines: Array<{ order?: unknown }> } = { id: 1, lines: [{}] };
    (order.lines[0] as { order?: unknown }).order = order;
    return order;
  };

  it.each([
    ["bigint", () => ({ id: 1, rowid: 7n }), "result.rowid is a BigInt (7n)"],
    ["bare_bigint", () => 12n, "result is a BigInt (12n)"],
    ["cycle", cyclic, "result.lines[0].order refers back to result (a cycle)"],
    [
      "bad_to_json",
      () => ({
        when: {
          toJSON: () => {
            throw new Error("no clock");
          },
        },
      }),
      "result.when: its toJSON threw: no clock",
    ],
  ])(
    "%s: a failed call naming the problem, told, published and audited",
    async (name, make, problem) => {
      const { path, ctx, audit, activity } = setup({ extra: [returning(name, make)] });
      const outcome = await path.call({ tool: name, input: {} }, ctx());
      expect(outcome._tag).toBe("Failed");
      expect(ran(outcome)).toBe(true);
      expect(formatOutcome(outcome)).toEqual({
        isError: true,
        text: `the command's result can't be sent as JSON: ${problem}`,
      });
      expect(audit.map((r) => r.outcome)).toEqual(["failed"]);
      expect(activity.at(-1)).toMatchObject({ type: "finished", ok: false });
    },
  );

  it("formatOutcome never throws: a success made by hand that JSON can't hold is told as an error", () => {
    expect(formatOutcome({ _tag: "Succeeded", callId: "c", tool: "t", result: { n: 1n } })).toEqual(
      {
        isError: true,
        text: "the command's result can't be sent as JSON: result.n is a BigInt (1n)",
      },
    );
  });
});

describe("9. activity and audit", () => {
  it("publishes started and finished with the link on success, and no arguments", async () => {
    const { path, ctx, activity } = setup();
    await path.call({ tool: "customers_show", input: { id: 42 }, callId: "toolu_9" }, ctx());
    expect(activity).toEqual([
      {
        type: "started",
        callId: "toolu_9",
        tool: "customers_show",
        caller: { type: "direct" },
        origin: { kind: "assistant" },
        scope: "window-1",
      },
      {
        type: "finished",
        callId: "toolu_9",
        tool: "customers_show",
        ok: true,
        link: "/customers/42",
        origin: { kind: "assistant" },
        scope: "window-1",
      },
    ]);
  });

  it("a link comes from the result when the template says so", async () => {
    const { path, ctx, activity } = setup();
    const outcome = await path.call(
      {
        tool: "invoices_create",
        input: { customerId: 42, amount: 10, address: { street: "Main", zip: "12345" } },
      },
      ctx(),
    );
    expect(outcome).toMatchObject({ _tag: "Succeeded", link: "/invoices/7" });
    expect(activity.at(-1)).toMatchObject({ ok: true, link: "/invoices/7" });
  });

  it("a refused call publishes no activity", async () => {
    const { path, ctx, activity } = setup({ abilities: [] });
    await path.call({ tool: "customers_show", input: { id: 1 } }, ctx());
    expect(activity).toEqual([]);
  });

  it("records one AgentCalled per call, refusals included, with no arguments", async () => {
    const { path, ctx, audit, clock } = setup({ abilities: ["customers.view"] });
    const slow = path.call({ tool: "customers_show", input: { id: 1 } }, ctx());
    clock.increment(0);
    await slow;
    await path.call({ tool: "customers_delete", input: { id: 1 } }, ctx());
    await path.call(
      { tool: "nope", input: { secret: "hunter2" } },
      ctx({ origin: { kind: "agent", client: "cursor" } }),
    );
    expect(audit.map((r) => ({ ...r }))).toEqual([
      {
        _tag: "AgentCalled",
        client: "assistant",
        tool: "customers_show",
        outcome: "ok",
        durationMs: 0,
      },
      {
        _tag: "AgentCalled",
        client: "assistant",
        tool: "customers_delete",
        outcome: "denied",
        durationMs: 0,
      },
      {
        _tag: "AgentCalled",
        client: "cursor",
        tool: "nope",
        outcome: "unknownTool",
        durationMs: 0,
      },
    ]);
    expect(JSON.stringify(audit)).not.toContain("hunter2");
  });

  it("measures the duration on the injected clock", async () => {
    const slowCommand = defineCommand({
      name: "slow",
      description: "Slow.",
      can: "x.y",
      args: {},
      run: () => new Promise<null>((resolve) => clock.setTimeout(() => resolve(null), 1500)),
    });
    const { path, ctx, audit, clock } = setup({ extra: [slowCommand] });
    const pending = path.call({ tool: "slow", input: {} }, ctx());
    await new Promise((r) => setImmediate(r));
    clock.increment(1500);
    await pending;
    expect(audit[0]).toMatchObject({ tool: "slow", outcome: "ok", durationMs: 1500 });
  });
});

describe("10. formatting", () => {
  it("a success is the result as JSON text", async () => {
    const { path, ctx } = setup();
    expect(
      formatOutcome(await path.call({ tool: "customers_show", input: { id: 42 } }, ctx())),
    ).toEqual({
      isError: false,
      text: '{"id":42,"name":"Ada"}',
    });
  });
});

describe("faults and edges", () => {
  it("a userAbilities that throws denies (fails closed) and the call is still audited", async () => {
    const spies = spyCommands();
    const app = createApp({
      commands: spies.commands,
      userAbilities: () => {
        throw new Error("directory down");
      },
      assistant: { allow: ["*"] },
    });
    const path = createCallPath(app);
    const audit: AgentCalled[] = [];
    path.audit$.subscribe((r) => audit.push(r));
    const outcome = await path.call(
      { tool: "customers_show", input: { id: 1 } },
      { user: {}, origin: { kind: "assistant" }, scope: "w" },
    );
    expect(outcome._tag).toBe("Denied");
    expect(spies.total()).toBe(0);
    expect(audit.map((r) => r.outcome)).toEqual(["denied"]);
  });

  it("a call stopped before it begins takes nothing from the rate limit", async () => {
    const { path, ctx } = setup({
      assistant: { allow: ["*"], rateLimit: { calls: 1, perSeconds: 60 } },
    });
    const stop = new AbortController();
    stop.abort();
    expect(
      (await path.call({ tool: "customers_show", input: { id: 1 } }, ctx({ signal: stop.signal })))
        ._tag,
    ).toBe("Stopped");
    expect((await path.call({ tool: "customers_show", input: { id: 1 } }, ctx()))._tag).toBe(
      "Succeeded",
    );
  });

  it("the audit record clips a hostile tool name", async () => {
    const { path, ctx, audit } = setup();
    await path.call({ tool: "y".repeat(100_000), input: {} }, ctx());
    expect(audit[0]?.tool).toBe(`${"y".repeat(127)}…`);
  });

  it("confirmation ids are random by default, whatever ids the calls get", async () => {
    const spies = spyCommands();
    const app = createApp({
      commands: spies.commands,
      userAbilities: () => ["*"],
      assistant: { allow: ["*"], confirm: ["*"] },
    });
    const confirmer = answeringConfirmer("declined");
    await createCallPath(app, { ids: countingIds("call") }).call(
      { tool: "customers_show", input: { id: 1 } },
      { user: {}, origin: { kind: "assistant" }, scope: "w", confirmer },
    );
    expect(confirmer.asked[0]?.callId).toBe("call-1");
    expect(confirmer.asked[0]?.confirmId).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });
});
