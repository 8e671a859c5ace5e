/**
 * `testApp`: the whole assistant in a test, on a fake model and an in-memory
 * log, with confirmations answered by a rule you give.
 */
import { filter, type Subscription } from "rxjs";
import { createHost, type Host, type HostOptions } from "../actors/host/host.ts";
import type { AssistantWindow, TurnEnd } from "../actors/window/window.ts";
import type { App } from "../runtime/commands/app.ts";
import type { Origin, User } from "../runtime/commands/origin.ts";
import type { EventOf, LogEvent } from "../runtime/log/events.ts";
import { memoryStore } from "../runtime/log/memoryStore.ts";
import type { PanelState } from "../runtime/log/panelItems.ts";
import type { HistoryState } from "../runtime/log/projections.ts";
import type { Clock } from "../runtime/ports/clock.ts";
import type { Model, ModelRequest } from "../runtime/prompt/model.ts";
import { simulatedClock } from "./simulatedClock.ts";

/** A command that ran during a turn: which, for whom, from where, and whether it succeeded. */
export interface Ran {
  readonly command: string;
  readonly user: User;
  readonly origin: Origin;
  readonly ok: boolean;
}

/** How a turn's confirmations are answered: all yes, all no, or call by call. */
export type ConfirmRule =
  | boolean
  | ((request: {
      readonly tool: string;
      readonly args: unknown;
      readonly description: string;
    }) => boolean);

/** What one prompt did. */
export interface TestTurn {
  /** The event that ended the turn. */
  readonly end: TurnEnd;
  /** The final answer's text, when the turn was answered. */
  readonly answer: string | undefined;
  /** The turn's log events, in order. */
  readonly events: ReadonlyArray<LogEvent>;
  /** The commands that ran. */
  readonly ran: ReadonlyArray<Ran>;
  /** What the model was sent during the turn. */
  readonly requests: ReadonlyArray<ModelRequest>;
  readonly panel: PanelState;
  readonly history: HistoryState;
  /** The window note the turn carried (`<window>…</window>`), or null. */
  readonly note: string | null;
}

/** One window's assistant in a {@link testApp}: where the user is, what they look at, and their prompts, each run to its end. */
export interface TestAssistant {
  /** The route the user is on for the next prompts. */
  readonly at: (route: string) => TestAssistant;
  /** Opens a live query of the window's screen before the next prompt; it stays open after. */
  readonly live: (command: string, args?: unknown) => TestAssistant;
  /** Selects ids of a kind on the current route before the next prompt (`[]` clears it). */
  readonly select: (kind: string, ids: ReadonlyArray<string | number>) => TestAssistant;
  /** Ends the live queries opened so far. */
  readonly unsubscribe: () => void;
  /** Runs one turn to its end; confirmations are declined unless `confirm` says otherwise. */
  readonly prompt: (
    text: string,
    options?: { readonly confirm?: ConfirmRule },
  ) => Promise<TestTurn>;
}

/** An app under test ({@link testApp}): its windows' assistants, and the host they run on. */
export interface TestApp {
  /** The assistant of one window (`clientId` "test-window" unless given). */
  readonly assistant: (clientId?: string) => TestAssistant;
  readonly host: Host;
  readonly clock: Clock & { increment: (ms: number) => void };
  /** Every request the model was sent. */
  readonly requests: ReadonlyArray<ModelRequest>;
}

/**
 * The app's assistant on a model you script, for tests.
 *
 * @example
 * ```ts
 * const model = fakeModel().toolCall("invoices_index", { overdue: true }).says("Three invoices are overdue.");
 * const t = testApp(app, { model, user: { name: "Ada", abilities: ["invoices.view"] } });
 * const turn = await t.assistant().prompt("What is overdue?");
 * turn.ran; // [{ command: "invoices_index", user, origin: { kind: "assistant" }, ok: true }]
 * ```
 */
export const testApp = (
  app: App,
  options: { readonly model: Model; readonly user: User } & Omit<HostOptions, "model">,
): TestApp => {
  const requests: ModelRequest[] = [];
  const model: Model = {
    step: (request, stepOptions) => {
      requests.push(request);
      return options.model.step(request, stepOptions);
    },
  };
  const clock = (options.clock as TestApp["clock"] | undefined) ?? simulatedClock(Date.now());
  const host = createHost(app, { store: memoryStore(), ...options, model, clock });
  const assistant = (clientId = "test-window"): TestAssistant => {
    let route: string | null = null;
    /** Live queries and selections to make before the next prompt, in the order asked. */
    let pending: Array<(window: AssistantWindow) => Promise<void>> = [];
    const open: Subscription[] = [];
    const self: TestAssistant = {
      at: (next) => {
        route = next;
        return self;
      },
      live: (command, args = {}) => {
        pending.push(async (window) => {
          let failure: unknown;
          open.push(window.live(command, args).subscribe({ error: (e) => (failure = e) }));
          if (failure !== undefined) throw failure;
        });
        return self;
      },
      select: (kind, ids) => {
        const on = route;
        pending.push((window) => window.select(kind, ids, { route: on }));
        return self;
      },
      unsubscribe: () => {
        for (const s of open.splice(0)) s.unsubscribe();
      },
      prompt: async (text, { confirm = false } = {}) => {
        const window = host.window(clientId, { user: options.user });
        await window.settled();
        const steps = pending;
        pending = [];
        for (const step of steps) await step(window);
        const turn = window.context().turn + 1;
        const events: LogEvent[] = [];
        const ran: Ran[] = [];
        const firstRequest = requests.length;
        const subscriptions: Subscription[] = [
          host.path.activity$
            .pipe(filter((a) => a.scope === clientId && a.type === "finished"))
            .subscribe((a) => {
              if (a.type === "finished")
                ran.push({ command: a.tool, user: options.user, origin: a.origin, ok: a.ok });
            }),
        ];
        subscriptions.push(
          window.events$(window.lastSeq()).subscribe((event) => {
            if (event.turn !== turn) return;
            events.push(event);
            if (event._tag === "ConfirmRequested") {
              const request = event as EventOf<"ConfirmRequested">;
              const yes = typeof confirm === "function" ? confirm(request) : confirm;
              void window.confirm(request.confirmId, yes);
            }
          }),
        );
        try {
          const end = await window.prompt(route === null ? text : { text, route });
          await window.settled();
          return {
            end,
            answer: end._tag === "Answered" ? end.text : undefined,
            events,
            ran,
            requests: requests.slice(firstRequest),
            panel: window.panel(),
            history: window.history(),
            note: events.find((e) => e._tag === "TurnStarted")?.note ?? null,
          };
        } finally {
          for (const s of subscriptions) s.unsubscribe();
        }
      },
    };
    return self;
  };
  return { assistant, host, clock, requests };
};
