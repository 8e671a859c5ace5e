/** `useAssistant()`: the store's snapshot, read with `useSyncExternalStore`, and what a panel can do. */
import type { AssistantSnapshot, AssistantStore } from "../ui/assistantStore.ts";
import type { ConfirmResult } from "../ui/client.ts";
import { useAssistantContext } from "./provider.ts";
import { React } from "./reactPeer.ts";

/** What a panel can do; the same functions at every render of one provider's store. */
export interface AssistantActions {
  /** Sends a prompt with the current route; blank text is not sent. Whether the host took it. */
  readonly prompt: (text: string) => Promise<boolean>;
  /**
   * Answers a confirmation with the tool and arguments its item shows and,
   * given `edited`, the whole arguments as the user changed them (only the
   * item's `editable` ones may differ). Resolves to what became of it:
   * `Answered`, `InvalidEdit` with `issues` (the question still waits), …;
   * undefined when the request failed (the snapshot's `error` says why).
   */
  readonly confirm: (
    confirmId: string,
    accept: boolean,
    edited?: unknown,
  ) => Promise<ConfirmResult | undefined>;
  /** Stops the running turn. */
  readonly stop: () => Promise<boolean>;
  /** Starts a new conversation. */
  readonly reset: () => Promise<boolean>;
  /** Tells what is selected of one kind, on the current route (`[]` clears it). */
  readonly select: (kind: string, ids: ReadonlyArray<string | number>) => Promise<boolean>;
  /** Opens the panel and, given a prompt, sends it. */
  readonly open: (prompt?: string) => Promise<boolean>;
  readonly close: () => void;
  readonly toggle: () => void;
}

/** The store's snapshot (`items`, `busy`, `waiting`, …) and the actions. */
export interface UseAssistant extends AssistantActions {
  /** The same frozen object until something changes (`useSyncExternalStore`'s contract). */
  readonly snapshot: AssistantSnapshot;
}

const actionsOf = (store: AssistantStore): AssistantActions => ({
  prompt: (text) => store.prompt(text),
  // The store echoes the tool and arguments the dialog showed, with the edit if there is one.
  confirm: (confirmId, accept, edited) =>
    store.answer(confirmId, accept, edited === undefined ? undefined : { edited }),
  stop: () => store.stop(),
  reset: () => store.reset(),
  select: (kind, ids) => store.selected(kind, ids),
  open: (prompt) => store.open(prompt),
  close: () => store.close(),
  toggle: () => store.toggle(),
});

/**
 * The nearest `<AssistantProvider>`'s assistant: the store's snapshot and
 * the actions. The component renders again only when the snapshot changes
 * (the store keeps the same frozen object between changes); the event
 * stream is open while a component uses it. Throws outside a provider.
 *
 * @example
 * ```tsx
 * import { useAssistant } from "elyra-assistant/react";
 *
 * export function AskButton() {
 *   const { snapshot, prompt, stop } = useAssistant();
 *   return snapshot.busy ? (
 *     <button onClick={() => void stop()}>Stop</button>
 *   ) : (
 *     <button onClick={() => void prompt("Which invoices are overdue?")}>Ask</button>
 *   );
 * }
 * ```
 */
export const useAssistant = (): UseAssistant => {
  const { store } = useAssistantContext("useAssistant()");
  // On a server (and while hydrating) the snapshot is the store's first: closed, nothing folded.
  const snapshot = React.useSyncExternalStore(
    store.subscribe,
    store.getSnapshot,
    store.getSnapshot,
  );
  const actions = React.useMemo(() => actionsOf(store), [store]);
  return React.useMemo(() => ({ snapshot, ...actions }), [snapshot, actions]);
};
