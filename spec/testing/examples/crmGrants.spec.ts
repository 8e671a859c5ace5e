// grants.spec.ts: nothing runs that the CRM's grants and its users' abilities don't allow
import { checkCallPath } from "elyra-assistant/testing";
import { expect, test } from "vitest";
import { type CrmUser, crmApp } from "../../../examples/crm/app.ts";
import { openCrmDb } from "../../../examples/crm/db.ts";

/** The ability each tool takes, written down apart from the commands' `can`. */
const takes = {
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

test("who may run what, over the CRM's own commands", { timeout: 120_000 }, async () => {
  const db = openCrmDb(":memory:");
  const report = await checkCallPath(crmApp(db), {
    user: (abilities): CrmUser => ({ id: 1, name: "Ada", abilities }),
    takes,
    numRuns: 1000,
  });
  expect(report.seen.Denied).toBeGreaterThan(0);
  expect(report.seen.NotConfirmed).toBeGreaterThan(0);
  db.close();
});
