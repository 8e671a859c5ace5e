/**
 * The example CRM's assistant against the real Messages API: a read tool, a
 * confirmation declined then accepted, Stop mid-answer, and a code-mode turn
 * over five invoices. It runs only with ELYRA_AI_LIVE=1 and ANTHROPIC_API_KEY
 * (`ELYRA_AI_LIVE=1 ANTHROPIC_API_KEY=sk-ant-… npm run test:live`); otherwise
 * `npm test` reports it skipped, with a line saying how to run it. CI never
 * sets ELYRA_AI_LIVE.
 *
 * Each test asserts what happened (the window's log, the CRM's database),
 * never what Claude wrote. The CRM runs on an in-memory database of 12
 * customers and 40 invoices, its assistant on the model the CRM chooses from
 * ANTHROPIC_API_KEY (examples/crm/modelSource.ts: `anthropic({ apiKey })`).
 *
 * Models: ELYRA_AI_MODEL (claude-haiku-4-5 unless set) for the first three;
 * ELYRA_AI_CODE_MODEL (claude-sonnet-4-6 unless set) for the code-mode turn,
 * since programmatic tool calling (code_execution_20260120) is offered on
 * fewer models. See docs/testing.md.
 */
import {
  type App,
  type AssistantWindow,
  createApp,
  createHost,
  type TurnEnd,
} from "elyra-assistant";
import type { EventOf, LogEvent } from "elyra-assistant/log";
import { afterEach, describe, expect, it } from "vitest";
import { crmApp, DEMO_USER } from "../../examples/crm/app.ts";
import { type CrmDb, openCrmDb } from "../../examples/crm/db.ts";
import { modelFromEnv } from "../../examples/crm/modelSource.ts";

const env = process.env;
const live = env.ELYRA_AI_LIVE === "1" && (env.ANTHROPIC_API_KEY ?? "").trim() !== "";
const MODEL = env.ELYRA_AI_MODEL?.trim() || "claude-haiku-4-5";
const CODE_MODEL = env.ELYRA_AI_CODE_MODEL?.trim() || "claude-sonnet-4-6";
/** Each test's own limit: a real model, several steps, the SDK's own retries. */
const TURN_MS = 120_000;

/** What is missing for the suite to run here (empty when it runs). */
const missing = [
  ...(env.ELYRA_AI_LIVE === "1" ? [] : ["ELYRA_AI_LIVE is not 1"]),
  ...((env.ANTHROPIC_API_KEY ?? "").trim() !== "" ? [] : ["ANTHROPIC_API_KEY is not set"]),
].join(", ");
const SKIPPED = `live suite skipped (${missing}): set ELYRA_AI_LIVE=1 and ANTHROPIC_API_KEY to run it against the real API with npm run test:live; see docs/testing.md`;
if (!live) console.info(SKIPPED);

/**
 * The example CRM's app with its own commands, grant and instructions, but
 * the model named and code mode as asked (`crmApp` takes neither).
 */
const liveCrmApp = (db: CrmDb, options: { model: string; codeMode: boolean }): App => {
  const crm = crmApp(db);
  const assistant = crm.assistant;
  if (assistant === undefined) throw new Error("the CRM has no assistant");
  return createApp({
    commands: [...crm.commands.values()],
    userAbilities: crm.userAbilities,
    assistant: {
      allow: assistant.allow,
      confirm: assistant.confirm,
      ...(assistant.rateLimit === undefined ? {} : { rateLimit: assistant.rateLimit }),
      instructions: assistant.instructions,
      windowContext: assistant.windowContext,
      model: options.model,
      codeMode: options.codeMode,
    },
  });
};

interface Crm {
  readonly db: CrmDb;
  readonly window: AssistantWindow;
  readonly model: string;
  readonly close: () => Promise<void>;
}

const open: Crm[] = [];

/** The CRM over a fresh in-memory database, and one window of Ada's on real Claude. */
const crm = (options: { codeMode?: boolean } = {}): Crm => {
  const db = openCrmDb(":memory:", { seed: { customers: 12, invoices: 40 } });
  const model = options.codeMode === true ? CODE_MODEL : MODEL;
  const app = liveCrmApp(db, { model, codeMode: options.codeMode === true });
  // The CRM's own choice from the environment: Claude with ANTHROPIC_API_KEY, never the demo model.
  const choice = modelFromEnv(env);
  if (choice.source !== "environment") throw new Error(`not Claude: ${choice.label}`);
  const host = createHost(app, { model: choice.model });
  const window = host.window("live-1", { user: DEMO_USER });
  const running: Crm = {
    db,
    window,
    model,
    close: async () => {
      window.stop();
      await window.settled();
      await host.close();
      db.close();
    },
  };
  open.push(running);
  return running;
};

afterEach(async (context) => {
  for (const running of open.splice(0)) {
    const { inputTokens, outputTokens } = running.window.usage();
    // What the test cost, so a live run shows it (a step cut short by Stop reports no usage).
    console.info(
      `live: "${context.task.name}": ${inputTokens} input and ${outputTokens} output tokens on ${running.model}`,
    );
    await running.close();
  }
});

interface Turn {
  readonly end: TurnEnd;
  readonly events: ReadonlyArray<LogEvent>;
}

/** Runs one turn and gathers its events; `onEvent` hears each as it is stored. */
const turn = async (
  w: AssistantWindow,
  text: string,
  route: string,
  onEvent: (event: LogEvent) => void = () => {},
): Promise<Turn> => {
  const events: LogEvent[] = [];
  const subscription = w.events$(w.lastSeq()).subscribe((event) => {
    events.push(event);
    onEvent(event);
  });
  try {
    const end = await w.prompt({ text, route });
    await w.settled();
    return { end, events };
  } finally {
    subscription.unsubscribe();
  }
};

const of = <T extends LogEvent["_tag"]>(events: ReadonlyArray<LogEvent>, tag: T) =>
  events.filter((event): event is EventOf<T> => event._tag === tag);

/** The turn in a line or two: shown when an assertion fails, so a live failure says what Claude did. */
const told = ({ end, events }: Turn): string => {
  const steps = events
    .filter((e) => e._tag === "ToolStarted" || e._tag === "ToolFinished")
    .map((e) =>
      e._tag === "ToolStarted"
        ? `${e.tool}${e.caller.type === "code" ? " (from code)" : ""}`
        : `→ ${e.outcome}`,
    );
  const said =
    end._tag === "Answered" ? end.text : end._tag === "Stopped" ? end.partial : end.error;
  return `${end._tag}; tools: [${steps.join(", ")}]; said: ${JSON.stringify(said.slice(0, 300))}`;
};

/** Whether the CRM has a customer with this id. */
const hasCustomer = (db: CrmDb, id: number): boolean => {
  try {
    db.customer(id);
    return true;
  } catch {
    return false;
  }
};

const paidCount = (db: CrmDb): number => db.invoices({ paid: true }).total;

describe.skipIf(!live)(
  live
    ? "the CRM's assistant against the real API"
    : `the CRM's assistant against the real API (skipped: ${missing})`,
  () => {
    it(
      "a read tool: the customers are counted with customers_index",
      async () => {
        const { window } = crm();
        const t = await turn(window, "How many customers are there?", "/customers");

        expect(t.end._tag, told(t)).toBe("Answered");
        const started = of(t.events, "ToolStarted").filter((e) => e.tool === "customers_index");
        expect(started.length, told(t)).toBeGreaterThanOrEqual(1);
        const finished = of(t.events, "ToolFinished");
        for (const call of started)
          expect(
            finished.find((e) => e.callId === call.callId),
            told(t),
          ).toMatchObject({ ok: true, outcome: "ok" });
        // Reading asks nobody.
        expect(of(t.events, "ConfirmRequested"), told(t)).toEqual([]);
      },
      TURN_MS,
    );

    it(
      "a confirmation declined leaves the customer; asked again and accepted, the customer is gone",
      async () => {
        const { db, window } = crm();
        const id = 3;
        const name = db.customer(id).name;
        const customersBefore = db.customers({}).total;
        const destroyAsked = (events: ReadonlyArray<LogEvent>) =>
          of(events, "ConfirmRequested").filter((e) => e.tool === "customers_destroy");

        // Declined: every question of this turn is answered no.
        const declined = await turn(
          window,
          `Delete customer ${id}, ${name}.`,
          "/customers",
          (e) => {
            if (e._tag === "ConfirmRequested") void window.confirm(e.confirmId, false);
          },
        );
        expect(declined.end._tag, told(declined)).not.toBe("Failed");
        const firstAsked = destroyAsked(declined.events);
        expect(firstAsked.length, told(declined)).toBeGreaterThanOrEqual(1);
        expect(firstAsked[0]?.args).toEqual({ id });
        expect(of(declined.events, "ConfirmAnswered").map((e) => e.answer)).not.toContain(
          "accepted",
        );
        const destroyed = (
          events: ReadonlyArray<LogEvent>,
          asked: ReadonlyArray<{ callId: string }>,
        ) => of(events, "ToolFinished").filter((e) => asked.some((a) => a.callId === e.callId));
        expect(
          destroyed(declined.events, firstAsked).map((e) => e.outcome),
          told(declined),
        ).not.toContain("ok");
        expect(hasCustomer(db, id)).toBe(true);
        expect(db.customers({}).total).toBe(customersBefore);

        // Asked again, accepted: the delete of this customer, and nothing else, is answered yes.
        const accepted = await turn(
          window,
          `I've changed my mind: please delete customer ${id}, ${name}, after all.`,
          "/customers",
          (e) => {
            if (e._tag !== "ConfirmRequested") return;
            const yes = e.tool === "customers_destroy" && (e.args as { id?: unknown }).id === id;
            void window.confirm(e.confirmId, yes);
          },
        );
        expect(accepted.end._tag, told(accepted)).toBe("Answered");
        const againAsked = destroyAsked(accepted.events);
        expect(againAsked.length, told(accepted)).toBeGreaterThanOrEqual(1);
        expect(of(accepted.events, "ConfirmAnswered").map((e) => e.answer)).toContain("accepted");
        expect(
          destroyed(accepted.events, againAsked).map((e) => e.outcome),
          told(accepted),
        ).toContain("ok");
        expect(hasCustomer(db, id)).toBe(false);
        expect(db.invoices({ customer_id: id }).total).toBe(0);
        expect(db.customers({}).total).toBe(customersBefore - 1);
      },
      TURN_MS,
    );

    it(
      "Stop mid-answer: stopped at the first text, the turn ends Stopped with what was written",
      async () => {
        const { window } = crm();
        let firstText: string | undefined;
        const t = await turn(
          window,
          "Without looking anything up, write a long, detailed guide for new staff, at least 800 words, " +
            "on how to chase overdue invoices politely: what to say in the first, second and third reminder, and when to call.",
          "/invoices",
          (e) => {
            if (e._tag !== "TextDelta" || firstText !== undefined) return;
            firstText = e.text;
            window.stop();
          },
        );

        expect(firstText, told(t)).toBeDefined();
        expect(t.end._tag, told(t)).toBe("Stopped");
        const partial = (t.end as EventOf<"Stopped">).partial;
        expect(partial.length).toBeGreaterThan(0);
        expect(partial).toContain((firstText ?? "").trim());
        expect(of(t.events, "Answered")).toEqual([]);
        expect(window.state()).toBe("idle");
        expect(window.history().messages.at(-1)).toMatchObject({
          role: "assistant",
          content: expect.stringMatching(/\(stopped by the user\)$/),
        });
      },
      TURN_MS,
    );

    it(
      "code mode: a script marks five invoices paid, its calls from code through the call path",
      async () => {
        const { db, window } = crm({ codeMode: true });
        const five = db
          .invoices({ paid: false })
          .invoices.slice(0, 5)
          .map((invoice) => invoice.id);
        expect(five).toHaveLength(5);
        const paidBefore = paidCount(db);

        const t = await turn(
          window,
          `For each of the invoices with ids ${five.join(", ")}: mark it paid with invoices_update. ` +
            "Do it in one script with the code execution tool, calling invoices_update from the code for each, " +
            "and print how many you marked paid.",
          "/invoices",
        );

        expect(t.end._tag, told(t)).toBe("Answered");
        const started = of(t.events, "ScriptStarted");
        const finished = of(t.events, "ScriptFinished");
        expect(started.length, told(t)).toBeGreaterThanOrEqual(1);
        expect(finished.length, told(t)).toBeGreaterThanOrEqual(1);
        for (const script of finished)
          expect(started.map((s) => s.toolId)).toContain(script.toolId);
        expect(started.every((s) => s.code.trim() !== "")).toBe(true);

        const fromCode = of(t.events, "ToolStarted").filter((e) => e.caller.type === "code");
        expect(fromCode.length, told(t)).toBeGreaterThanOrEqual(1);
        expect(finished.reduce((sum, s) => sum + s.calls, 0)).toBeGreaterThanOrEqual(1);
        const ends = of(t.events, "ToolFinished");
        expect(
          fromCode.filter((call) => ends.some((e) => e.callId === call.callId && e.ok)).length,
          told(t),
        ).toBeGreaterThanOrEqual(1);
        // Nothing here needs a confirmation, so nobody was asked.
        expect(of(t.events, "ConfirmRequested")).toEqual([]);

        // The database: these five are paid, and no other invoice changed.
        for (const id of five) expect(db.invoice(id).status, `invoice ${id}`).toBe("paid");
        expect(paidCount(db)).toBe(paidBefore + 5);
      },
      TURN_MS,
    );
  },
);
