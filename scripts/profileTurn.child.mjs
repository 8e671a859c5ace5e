/**
 * The profiled side of `npm run profile:turn`, in plain `node` on the
 * compiled package (dist/, as users run it): `turns` streamed turns of a
 * small CRM-like app against the stand-in at `url`, each in a fresh window
 * with an event stream subscribed, as the streamedTurn bench runs them.
 *
 *   node --cpu-prof --cpu-prof-dir=<dir> scripts/profileTurn.child.mjs <url> <turns>
 */
import { Schema } from "effect";
import { createApp, createHost, defineCommand } from "elyra-assistant";
import { anthropic } from "elyra-assistant/anthropic";

const [url, turnsArg] = process.argv.slice(2);
const turns = Number(turnsArg);
if (url === undefined || !Number.isInteger(turns) || turns < 1)
  throw new Error("usage: profileTurn.child.mjs <stand-in url> <turns>");

const user = { name: "Ada", abilities: ["customers.view", "invoices.view"] };
const invoices = Array.from({ length: 20 }, (_, i) => ({
  id: i + 1,
  customer: `Customer ${i + 1}`,
  amount: 100 * (i + 1),
  overdue: i % 2 === 0,
}));
const app = createApp({
  commands: [
    defineCommand({
      name: "invoices_index",
      description: "List invoices, the overdue ones only if asked.",
      can: "invoices.view",
      live: true,
      args: { overdue: Schema.optional(Schema.Boolean) },
      run: ({ overdue }) => invoices.filter((i) => overdue !== true || i.overdue),
    }),
    defineCommand({
      name: "customers_show",
      description: "Show one customer by id.",
      can: "customers.view",
      live: true,
      args: { id: Schema.Number },
      run: ({ id }) => ({ id, name: `Customer ${id}`, email: `c${id}@example.com` }),
    }),
  ],
  userAbilities: (u) => u.abilities,
  assistant: { allow: ["customers.*", "invoices.view"] },
});
const host = createHost(app, {
  model: anthropic({ baseURL: url, apiKey: "profile", maxRetries: 0 }),
});
const cpu = process.cpuUsage();
for (let i = 0; i < turns; i++) {
  const window = host.window(`turn-${i}`, { user });
  await window.ready;
  const subscription = window.events$().subscribe(() => {});
  const end = await window.prompt({ text: "Which invoices are overdue?", route: "/invoices" });
  if (end._tag !== "Answered") throw new Error(`a turn ended ${end._tag}`);
  await window.settled();
  subscription.unsubscribe();
  await window.close();
}
const used = process.cpuUsage(cpu);
console.log(`${((used.user + used.system) / 1000 / turns).toFixed(2)} ms CPU a turn`);
await host.close();
