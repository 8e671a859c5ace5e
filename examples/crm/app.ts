/**
 * The example CRM as an app: its commands, who may do what, what the in-app
 * assistant may do (everything the user may, asking first before any delete
 * and before issuing an invoice, whose amount, project and due date the user
 * may correct on the question),
 * and what external agents may do over MCP (the same, asked by elicitation).
 */
import { createApp } from "elyra-assistant";
import type { CrmDb } from "./db.ts";
import { crmSqliteCommands } from "./sqliteCommands.ts";

/** A signed-in member of staff. */
export interface CrmUser {
  readonly id: number;
  readonly name: string;
  readonly abilities: ReadonlyArray<string>;
}

/** The demo's one user, signed in for every request. */
export const DEMO_USER: CrmUser = {
  id: 1,
  name: "Ada",
  abilities: ["customers.*", "invoices.*"],
};

/** The CRM's app over one database. */
export const crmApp = (db: CrmDb) =>
  createApp({
    commands: crmSqliteCommands(db),
    userAbilities: (user) => (user as CrmUser).abilities,
    assistant: {
      allow: ["customers.*", "invoices.*"],
      confirm: ["customers.destroy", "invoices.destroy", "invoices.create"],
      rateLimit: { calls: 30, perSeconds: 60 },
      windowContext: true,
      instructions:
        "You help the staff of a small agency look after its customers and their invoices. " +
        "Amounts are in euros. Keep answers short; name invoices by number (INV-0042) and customers by name.",
    },
    // A separate grant: no user's abilities are checked over MCP, so this is the whole boundary.
    mcp: {
      allow: ["customers.*", "invoices.*"],
      confirm: ["customers.destroy", "invoices.destroy", "invoices.create"],
      rateLimit: { calls: 30, perSeconds: 60 },
    },
  });
