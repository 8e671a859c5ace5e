/**
 * The property kit (`elyra-assistant/testing`) over the example CRM's real
 * commands and grants: `checkCallPath` holds at 1 000 runs and touches no
 * data; it finds the planted mistakes (a `userAbilities` that leaks, a command
 * with the wrong `can`, a rate-limit store that never limits, a schema check
 * that throws) and tells each shrunk counterexample as a call. Unit
 * properties of `argumentsOf`, `invalidArgumentsOf`, `toolCallsOf`,
 * `usersOf` and `mayRun` over the CRM's commands.
 */
import { FastCheck as fc, Schema } from "effect";
import { type AnyCommand, type App, createApp, defineCommand } from "elyra-assistant";
import {
  argumentsOf,
  checkCallPath,
  invalidArgumentsOf,
  mayRun,
  toolCallsOf,
  usersOf,
} from "elyra-assistant/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type CrmUser, crmApp } from "../../examples/crm/app.ts";
import { type CrmDb, openCrmDb } from "../../examples/crm/db.ts";
import { LEAK_FOUND, WRONG_CAN_FOUND } from "./counterexamples.ts";

const TODAY = "2026-06-15";
const open: CrmDb[] = [];
const crmDb = (): CrmDb => {
  const db = openCrmDb(":memory:", { today: () => TODAY });
  open.push(db);
  return db;
};
afterEach(() => {
  for (const db of open.splice(0)) db.close();
});

/** Who may run what in the CRM, written apart from its commands: the ability each tool takes. */
const CRM_TAKES = {
  customers_index: "customers.view",
  customers_show: "customers.view",
  customers_store: "customers.create",
  customers_update: "customers.update",
  customers_destroy: "customers.destroy",
  invoices_index: "invoices.view",
  invoices_show: "invoices.view",
  invoices_store: "invoices.create",
  invoices_update: "invoices.update",
  invoices_destroy: "invoices.destroy",
};

/** A CRM user with these abilities: what the CRM's `userAbilities` reads. */
const crmUser = (abilities: ReadonlyArray<string>): CrmUser => ({ id: 1, name: "Ada", abilities });

/** A copy of the CRM app, its grants the CRM's own, with its commands or `userAbilities` changed. */
const crmWith = (
  db: CrmDb,
  change: {
    readonly commands?: (commands: ReadonlyArray<AnyCommand>) => ReadonlyArray<AnyCommand>;
    readonly userAbilities?: App["userAbilities"];
  },
): App => {
  const crm = crmApp(db);
  const grantOf = (grant: NonNullable<App["mcp"]>) => ({
    allow: grant.allow,
    confirm: grant.confirm,
    ...(grant.rateLimit ? { rateLimit: grant.rateLimit } : {}),
  });
  const commands = [...crm.commands.values()];
  return createApp({
    commands: change.commands ? change.commands(commands) : commands,
    userAbilities: change.userAbilities ?? crm.userAbilities,
    ...(crm.assistant ? { assistant: grantOf(crm.assistant) } : {}),
    ...(crm.mcp ? { mcp: grantOf(crm.mcp) } : {}),
  });
};

/** The counterexample a failing check tells, after its first line (how it was found, how to replay it). */
const counterexampleOf = async (check: Promise<unknown>): Promise<string> => {
  const error = await check.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof Error)) throw new Error("the check passed");
  const [first, ...rest] = error.message.split("\n");
  expect(first).toMatch(
    /^checkCallPath: a call broke the rules \(after \d+ runs?, shrunk \d+ times?; replay with \{ seed: -?\d+, path: "[\d:]+" \}\):$/,
  );
  return rest.join("\n");
};

describe("checkCallPath over the example CRM", () => {
  it("holds at 1 000 runs over the CRM's own commands and grants", {
    timeout: 120_000,
  }, async () => {
    const db = crmDb();
    const report = await checkCallPath(crmApp(db), {
      user: (abilities): CrmUser => ({ id: 1, name: "Ada", abilities }),
      takes: CRM_TAKES,
      numRuns: 1000,
    });
    expect(report.numRuns).toBe(1000);
    // Every rule was reached, so the property says something about each.
    for (const [ending, count] of Object.entries(report.seen)) {
      expect(count, ending).toBeGreaterThan(10);
    }
    // The commands were recorders: the CRM's data is as seeded.
    expect(db.customers({}).total).toBe(120);
    expect(db.invoices({}).total).toBe(400);
  });

  it("finds a userAbilities that gives everyone customers.destroy", async () => {
    const leaks = crmWith(crmDb(), {
      userAbilities: (user) => [...(user as CrmUser).abilities, "customers.destroy"],
    });
    const found = await counterexampleOf(
      checkCallPath(leaks, { user: crmUser, takes: CRM_TAKES, numRuns: 1000, seed: 1 }),
    );
    expect(found).toBe(LEAK_FOUND);
  });

  it("finds customers_destroy declared with customers.view", async () => {
    const db = crmDb();
    const wrongCan = crmWith(db, {
      commands: (commands) =>
        commands.map((command) =>
          command.name !== "customers_destroy"
            ? command
            : defineCommand({
                name: "customers_destroy",
                description: "Delete a customer and all of their invoices.",
                can: "customers.view",
                args: { id: Schema.Int.pipe(Schema.positive()) },
                run: ({ id }) => ({
                  deleted: id,
                  invoices_deleted: db.deleteCustomer(id).invoices,
                }),
              }),
        ),
    });
    const found = await counterexampleOf(
      checkCallPath(wrongCan, { user: crmUser, takes: CRM_TAKES, numRuns: 1000, seed: 2 }),
    );
    expect(found).toBe(WRONG_CAN_FOUND);
  });

  it("without a takes table, a wrong can goes unseen: the commands' own can is the truth", async () => {
    const db = crmDb();
    const wrongCan = crmWith(db, {
      commands: (commands) =>
        commands.map((command) =>
          command.name !== "customers_destroy" ? command : { ...command, can: "customers.view" },
        ),
    });
    const report = await checkCallPath(wrongCan, { user: crmUser, numRuns: 100, seed: 2 });
    expect(report.seen.Ran).toBeGreaterThan(0);
  });

  it("takes users of roles, each with the abilities its role truly grants", async () => {
    const ROLES: Record<string, ReadonlyArray<string>> = {
      clerk: ["customers.view", "invoices.view"],
      accountant: ["customers.view", "invoices.*"],
      manager: ["customers.*", "invoices.*"],
    };
    const users = fc
      .constantFrom(...Object.keys(ROLES))
      .map((role) => ({ abilities: ROLES[role] ?? [], user: { id: 1, role } }));
    const byRole = (map: Record<string, ReadonlyArray<string>>) =>
      crmWith(crmDb(), { userAbilities: (user) => map[(user as { role: string }).role] ?? [] });
    const report = await checkCallPath(byRole(ROLES), { users, takes: CRM_TAKES, numRuns: 200 });
    expect(report.seen.Denied).toBeGreaterThan(0);
    // The app maps clerks to every customer ability: a clerk's delete runs.
    const found = await counterexampleOf(
      checkCallPath(byRole({ ...ROLES, clerk: ["customers.*", "invoices.view"] }), {
        users,
        takes: CRM_TAKES,
        numRuns: 200,
        seed: 7,
      }),
    );
    expect(found).toMatch(
      /^user \{abilities: \["customers.view","invoices.view"\]\} \(assistant\) called customers_\w+\(.*: it ran, but the user lacks customers\.\w+$/,
    );
  });

  it("finds a rate-limit store that never limits", async () => {
    const found = await counterexampleOf(
      checkCallPath(crmApp(crmDb()), {
        user: crmUser,
        takes: CRM_TAKES,
        numRuns: 1000,
        seed: 3,
        rateLimits: () => ({ take: () => ({ _tag: "Allowed" }) }),
      }),
    );
    expect(found).toMatch(
      / called \w+\(.*\) 31 times; the 31st call: it ran, but it was over its limit of 30 calls per 60 s$/,
    );
  });

  it("names a command whose schema's own check throws, as the call path would", async () => {
    const Day = Schema.String.pipe(
      Schema.pattern(/^\d{4}-\d{2}-\d{2}$/),
      // The mistake: an impossible date such as 2026-13-45 throws rather than being refused.
      Schema.filter((s) => new Date(`${s}T00:00:00Z`).toISOString().startsWith(s)),
    );
    const app = createApp({
      commands: [
        defineCommand({
          name: "invoices_postpone",
          description: "Move an invoice's due date.",
          can: "invoices.update",
          args: { id: Schema.Int, due_on: Day },
          run: ({ id, due_on }) => ({ id, due_on }),
        }),
      ],
      userAbilities: (user) => (user as CrmUser).abilities,
      assistant: { allow: ["invoices.*"] },
    });
    await expect(checkCallPath(app, { user: crmUser, seed: 4 })).rejects.toThrow(
      "checkCallPath: the arguments of invoices_postpone could not be drawn: a check of its schema threw RangeError: Invalid time value.",
    );
  });

  it('run: "real" runs the CRM\'s own commands too, after the recorder', {
    timeout: 60_000,
  }, async () => {
    const db = crmDb();
    const report = await checkCallPath(crmApp(db), {
      user: crmUser,
      takes: CRM_TAKES,
      numRuns: 100,
      seed: 5,
      run: "real",
    });
    expect(report.seen.Ran).toBeGreaterThan(0);
    const changed =
      db.customers({}).total !== 120 ||
      db.invoices({}).total !== 400 ||
      db.invoices({ paid: true }).total !== crmDb().invoices({ paid: true }).total;
    expect(changed).toBe(true);
  });
});

describe("the CRM's arguments", () => {
  const commands = [...crmApp(crmDb()).commands.values()];

  it("argumentsOf: every value decodes with its command's schema, and is JSON", () => {
    fc.assert(
      fc.property(
        fc
          .constantFrom(...commands)
          .chain((command) => fc.tuple(fc.constant(command), argumentsOf(command))),
        ([command, args]) => {
          expect(command.decode(args)._tag, JSON.stringify(args)).toBe("Right");
          expect(JSON.parse(JSON.stringify(args))).toEqual(args);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("invalidArgumentsOf: no value decodes with its command's schema", () => {
    fc.assert(
      fc.property(
        fc
          .constantFrom(...commands)
          .chain((command) => fc.tuple(fc.constant(command), invalidArgumentsOf(command))),
        ([command, args]) => {
          expect(command.decode(args)._tag, JSON.stringify(args)).toBe("Left");
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("toolCallsOf: the CRM's tools, and now and then a name that is none", () => {
    const names = new Set(commands.map((command) => command.name));
    const calls = fc.sample(toolCallsOf(crmApp(crmDb())), { numRuns: 2000, seed: 6 });
    const called = new Set(calls.map((call) => call.tool));
    expect([...names].every((name) => called.has(name))).toBe(true);
    expect(calls.some((call) => !names.has(call.tool))).toBe(true);
    expect(calls.some((call) => call.caller?.type === "code")).toBe(true);
  });

  it("usersOf: subsets of the abilities and patterns the CRM names, made into its user", () => {
    const named = new Set([...Object.values(CRM_TAKES), "customers.*", "invoices.*"]);
    for (const { abilities, user } of fc.sample(usersOf(crmApp(crmDb()), { user: crmUser }), 200)) {
      expect(abilities.every((ability) => named.has(ability))).toBe(true);
      expect(user).toEqual({ id: 1, name: "Ada", abilities });
    }
  });
});

describe("mayRun, the reference", () => {
  const app = () => crmApp(crmDb());
  const assistant = { kind: "assistant" } as const;

  it("from the assistant: the grant's ability, and the user has it; confirm says it is asked", () => {
    expect(
      mayRun(app(), { tool: "customers_destroy", origin: assistant, has: ["customers.view"] }),
    ).toEqual({ _tag: "Denied", tool: "customers_destroy", ability: "customers.destroy" });
    expect(
      mayRun(app(), { tool: "customers_destroy", origin: assistant, has: ["customers.*"] }),
    ).toEqual({
      _tag: "Allowed",
      tool: "customers_destroy",
      ability: "customers.destroy",
      confirm: true,
    });
  });

  it("over MCP: its own grant, no user checked", () => {
    expect(
      mayRun(app(), { tool: "invoices_show", origin: { kind: "agent", client: "x" }, has: [] }),
    ).toEqual({ _tag: "Allowed", tool: "invoices_show", ability: "invoices.view", confirm: false });
  });

  it("prototype names and names takes does not list are no tools", () => {
    for (const tool of ["constructor", "__proto__", "toString"]) {
      expect(mayRun(app(), { tool, origin: assistant, has: ["*"] })._tag).toBe("UnknownTool");
      expect(
        mayRun(app(), { tool, origin: assistant, has: ["*"] }, { takes: CRM_TAKES })._tag,
      ).toBe("UnknownTool");
    }
  });

  it("takes, not the command's can, says what a tool takes", () => {
    const verdict = mayRun(
      app(),
      { tool: "customers_show", origin: assistant, has: ["customers.view"] },
      { takes: { customers_show: "customers.destroy" } },
    );
    expect(verdict).toEqual({
      _tag: "Denied",
      tool: "customers_show",
      ability: "customers.destroy",
    });
  });
});
