/**
 * A small CRM's commands over an in-memory store, for the call-path demo, the
 * window-context spec and the benches. The example app itself runs on SQLite
 * (sqliteCommands.ts).
 */
import { Schema } from "effect";
import { defineCommand } from "elyra-assistant";

export class Customer extends Schema.Class<Customer>("Customer")({
  id: Schema.Number,
  name: Schema.String,
  email: Schema.String,
  creditLimit: Schema.Number,
}) {}

export class Invoice extends Schema.Class<Invoice>("Invoice")({
  id: Schema.Number,
  customerId: Schema.Number,
  amount: Schema.Number,
  overdue: Schema.Boolean,
}) {}

const Email = Schema.String.pipe(
  Schema.pattern(/^[^@\s]+@[^@\s]+\.[^@\s]+$/, { message: () => "must be a valid email" }),
);

/** A tiny in-memory CRM database. */
export const crmData = () => ({
  customers: new Map<number, Customer>([
    [
      42,
      new Customer({ id: 42, name: "Ada Lovelace", email: "ada@example.com", creditLimit: 10_000 }),
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
  invoices: new Map<number, Invoice>([
    [1, new Invoice({ id: 1, customerId: 42, amount: 1200, overdue: true })],
    [2, new Invoice({ id: 2, customerId: 43, amount: 800, overdue: false })],
    [3, new Invoice({ id: 3, customerId: 42, amount: 300, overdue: true })],
  ]),
});

/** The CRM's commands over one in-memory database. */
export const crmCommands = (db = crmData()) => {
  const customer = (id: number) => {
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
        email: Schema.optional(Email.annotations({ title: "Email" })),
        creditLimit: Schema.optional(
          Schema.Number.pipe(
            Schema.nonNegative(),
            Schema.annotations({
              title: "Credit limit",
              jsonSchema: { format: "money", currency: "EUR" },
            }),
          ),
        ),
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
      title: "Delete customer",
      summary: "Deletes the customer and everything about them. It cannot be undone.",
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
