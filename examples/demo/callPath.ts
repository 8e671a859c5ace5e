/**
 * `npm run demo`: a scripted walk through the one
 * call path, printing what the model would be told at each step.
 */
import {
  confirmationBroker,
  createApp,
  createCallPath,
  formatOutcome,
  offered,
  type ToolCall,
} from "elyra-assistant";
import { crmCommands } from "../crm/commands.ts";

const user = { name: "Ada", abilities: ["customers.view", "customers.update", "invoices.view"] };

const app = createApp({
  commands: crmCommands(),
  userAbilities: (u) => (u as typeof user).abilities,
  assistant: {
    allow: ["customers.*", "invoices.view"],
    confirm: ["customers.update", "customers.delete"],
    rateLimit: { calls: 30, perSeconds: 60 },
  },
});

const broker = confirmationBroker();
const path = createCallPath(app);
path.audit$.subscribe((r) =>
  console.log(`   audit: ${r.client} ${r.tool} ${r.outcome} ${r.durationMs} ms`),
);
path.activity$.subscribe((a) =>
  console.log(
    `   activity: ${a.type} ${a.tool}${a.type === "finished" && a.link ? ` → ${a.link}` : ""}`,
  ),
);
broker.requests$.subscribe((r) => {
  console.log(`   the app's dialog asks: ${r.tool}(${JSON.stringify(r.args)}): ${r.description}`);
  console.log("   the user clicks Confirm");
  void broker.answer({ confirmId: r.confirmId, accept: true, scope: r.scope });
});

console.log(
  "Offered to Ada's assistant:",
  offered(app, "assistant", user)
    .map((t) => t.name)
    .join(", "),
);

const calls: Array<[string, ToolCall]> = [
  ["read a customer", { tool: "customers_show", input: { id: 42 } }],
  ["a tool that does not exist", { tool: "__proto__", input: {} }],
  [
    "bad arguments",
    { tool: "customers_update", input: { id: 42, email: "not-an-email", creditLimit: -5 } },
  ],
  [
    "a change the user confirms",
    { tool: "customers_update", input: { id: 42, creditLimit: 50_000 } },
  ],
  ["a delete Ada may not do", { tool: "customers_delete", input: { id: 42 } }],
  [
    "code calling a confirm tool",
    { tool: "customers_update", input: { id: 42 }, caller: { type: "code", toolId: "srvtoolu_1" } },
  ],
];

for (const [title, call] of calls) {
  console.log(`\n▸ ${title}: ${call.tool} ${JSON.stringify(call.input)}`);
  const outcome = await path.call(call, {
    user,
    origin: { kind: "assistant" },
    scope: "window-1",
    confirmer: broker,
  });
  const { isError, text } = formatOutcome(outcome);
  console.log(
    `   the model is told${isError ? " (error)" : ""}: ${text.replaceAll("\n", "\n     ")}`,
  );
}
