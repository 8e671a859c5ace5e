/**
 * One case of the idleWindows bench, in a process of its own: opens `windows`
 * windows (and, with `turn`, answers one prompt in each), then prints one JSON
 * line: the heap before and after, and the commands the app was built with.
 *
 *   node --expose-gc bench/idleWindows.child.mjs dist <windows> <opened|turn>
 *   node --expose-gc --import tsx \
 *     bench/idleWindows.child.mjs source <windows> <opened|turn>
 *
 * `dist` is what users install: the package compiled by tsc, run by plain
 * `node`. Plain node cannot load examples/crm/commands.ts, so this file holds
 * the same CRM commands in JavaScript (crmCommands below); the bench checks
 * they describe themselves exactly as the example's do. `source` is the
 * repository's TypeScript under tsx, with the example's own commands.
 */
const [mode, windowsArg, turnArg] = process.argv.slice(2);
const windows = Number(windowsArg);
const turn = turnArg === "turn";
if (
  (mode !== "dist" && mode !== "source") ||
  !Number.isInteger(windows) ||
  windows <= 0 ||
  (turnArg !== "turn" && turnArg !== "opened")
) {
  throw new Error(`usage: idleWindows.child.mjs <dist|source> <windows> <opened|turn>`);
}
const gc = globalThis.gc;
if (typeof gc !== "function") throw new Error("run with node --expose-gc");

const { Schema } = await import("effect");
const lib = mode === "dist" ? await import("../dist/index.js") : await import("../src/index.ts");
const testing =
  mode === "dist"
    ? await import("../dist/testing/index.js")
    : await import("../src/testing/index.ts");
const { createApp, createHost, defineCommand } = lib;
const { memoryStore, responseOf } = testing;

/** examples/crm/commands.ts in JavaScript, over the compiled package. */
const crmCommands = () => {
  class Customer extends Schema.Class("Customer")({
    id: Schema.Number,
    name: Schema.String,
    email: Schema.String,
    creditLimit: Schema.Number,
  }) {}
  class Invoice extends Schema.Class("Invoice")({
    id: Schema.Number,
    customerId: Schema.Number,
    amount: Schema.Number,
    overdue: Schema.Boolean,
  }) {}
  const Email = Schema.String.pipe(
    Schema.pattern(/^[^@\s]+@[^@\s]+\.[^@\s]+$/, { message: () => "must be a valid email" }),
  );
  const db = {
    customers: new Map([
      [
        42,
        new Customer({
          id: 42,
          name: "Ada Lovelace",
          email: "ada@example.com",
          creditLimit: 10_000,
        }),
      ],
      [
        43,
        new Customer({
          id: 43,
          name: "Grace Hopper",
          email: "grace@example.com",
          creditLimit: 25_000,
        }),
      ],
    ]),
    invoices: new Map([
      [1, new Invoice({ id: 1, customerId: 42, amount: 1200, overdue: true })],
      [2, new Invoice({ id: 2, customerId: 43, amount: 800, overdue: false })],
      [3, new Invoice({ id: 3, customerId: 42, amount: 300, overdue: true })],
    ]),
  };
  const customer = (id) => {
    const found = db.customers.get(id);
    if (found === undefined) throw new Error(`no customer has id ${id}`);
    return found;
  };
  return [
    defineCommand({
      name: "customers_show",
      description: "Show one customer by id.",
      can: "customers.view",
      live: true,
      link: "/customers/{id}",
      args: { id: Schema.Number },
      result: Customer,
      run: ({ id }) => customer(id),
    }),
    defineCommand({
      name: "customers_update",
      description: "Change a customer's email or credit limit.",
      can: "customers.update",
      link: "/customers/{id}",
      args: {
        id: Schema.Number,
        email: Schema.optional(Email),
        creditLimit: Schema.optional(Schema.Number.pipe(Schema.nonNegative())),
      },
      result: Customer,
      run: ({ id, email, creditLimit }) => {
        const before = customer(id);
        const after = new Customer({
          ...before,
          ...(email === undefined ? {} : { email }),
          ...(creditLimit === undefined ? {} : { creditLimit }),
        });
        db.customers.set(id, after);
        return after;
      },
    }),
    defineCommand({
      name: "customers_delete",
      description: "Delete a customer and everything about them. It cannot be undone.",
      can: "customers.delete",
      args: { id: Schema.Number },
      run: ({ id }) => {
        customer(id);
        db.customers.delete(id);
        return { deleted: id };
      },
    }),
    defineCommand({
      name: "invoices_index",
      description:
        "List invoices, newest first, 20 a page: optionally one customer's, optionally only the overdue ones.",
      can: "invoices.view",
      live: true,
      args: {
        customer_id: Schema.optional(Schema.Number),
        overdue: Schema.optional(Schema.Boolean),
        page: Schema.optional(Schema.Int.pipe(Schema.positive())),
      },
      result: Schema.Array(Invoice),
      run: ({ customer_id, overdue, page = 1 }) =>
        [...db.invoices.values()]
          .filter(
            (i) =>
              (customer_id === undefined || i.customerId === customer_id) &&
              (overdue === undefined || i.overdue === overdue),
          )
          .sort((a, b) => b.id - a.id)
          .slice((page - 1) * 20, page * 20),
    }),
  ];
};

const commands =
  mode === "dist" ? crmCommands() : (await import("../examples/crm/commands.ts")).crmCommands();

const heapAfterGc = () => {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
};

const app = createApp({
  commands,
  userAbilities: (u) => u.abilities,
  assistant: { allow: ["customers.*", "invoices.view"], confirm: ["customers.delete"] },
});
// A model that keeps nothing (a fake model records every request, which is not the window's cost).
const answer = responseOf({ text: "There are three overdue invoices." });
const model = { step: async () => answer };
const host = createHost(app, { model, store: memoryStore() });
const user = { name: "Ada", abilities: ["customers.view", "invoices.view"] };
const before = heapAfterGc();
const opened = [];
for (let i = 0; i < windows; i++) {
  const w = host.window(`client-${i}`, { user });
  opened.push(w);
  if (turn) await w.prompt({ text: "What is overdue?", route: "/invoices" });
  else await w.ready;
}
await Promise.all(opened.map((w) => w.settled()));
const after = heapAfterGc();
await host.close();

const described = commands.map((c) => ({
  name: c.name,
  description: c.description,
  can: c.can,
  live: c.live,
  invalidates: c.invalidates,
  link: c.link,
  argumentNames: c.argumentNames,
  inputSchema: c.inputSchema,
  outputSchema: c.outputSchema,
}));
process.stdout.write(`${JSON.stringify({ before, after, commands: described })}\n`);
