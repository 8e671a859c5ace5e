/**
 * The provider: one window's client and store, shared with the components
 * below it, and the lookup the hooks make.
 */
import type { ReactElement, ReactNode } from "react";
import { type AssistantStore, createAssistantStore } from "../ui/assistantStore.ts";
import type { AssistantClient } from "../ui/client.ts";
import { React } from "./reactPeer.ts";

/** What the provider shares: the window's client (for live queries) and its store. */
export interface AssistantContextValue {
  readonly client: AssistantClient;
  readonly store: AssistantStore;
}

const AssistantContext = React.createContext<AssistantContextValue | null>(null);
AssistantContext.displayName = "AssistantContext";

/** What {@link AssistantProvider} takes: the window's client, the store if it is shared, and the components below. */
export interface AssistantProviderProps {
  /** The window's client: `assistantClient({ token, clientId })`. */
  readonly client: AssistantClient;
  /**
   * The store to share, made from the same client: pass one when code
   * outside React uses it too (`installAssistant(store)`, the built-in
   * panel). Left out, the provider makes one with `createAssistantStore(client)`
   * when it mounts and keeps it.
   */
  readonly store?: AssistantStore;
  /** The components that use the assistant. */
  readonly children?: ReactNode;
}

/**
 * Shares one window's client and store with the components below it, for
 * `useAssistant()` and `useLiveQuery()`. Nothing is opened until a
 * component subscribes, so it renders on a server as it is.
 *
 * @example
 * ```tsx
 * import { AssistantProvider, assistantClient } from "elyra-assistant/react";
 *
 * const client = assistantClient({ token: "page-token" });
 *
 * export const CrmShell = () => (
 *   <AssistantProvider client={client}>
 *     <MyPanel />
 *   </AssistantProvider>
 * );
 * ```
 */
export const AssistantProvider = ({
  client,
  store,
  children,
}: AssistantProviderProps): ReactElement => {
  // Made once per provider and client: a new client (another window) gets a new store.
  const [own, setOwn] = React.useState<AssistantContextValue | undefined>(undefined);
  let shared: AssistantStore;
  if (store !== undefined) shared = store;
  else if (own !== undefined && own.client === client) shared = own.store;
  else {
    const made = { client, store: createAssistantStore(client) };
    setOwn(made);
    shared = made.store;
  }
  const value = React.useMemo(() => ({ client, store: shared }), [client, shared]);
  return React.createElement(AssistantContext.Provider, { value }, children);
};

/** The nearest provider's client and store; throws, saying what is missing, outside one. */
export const useAssistantContext = (hook: string): AssistantContextValue => {
  const value = React.useContext(AssistantContext);
  if (value === null)
    throw new Error(
      `${hook} was called outside an <AssistantProvider>: wrap the components that use it in <AssistantProvider client={…}> (elyra-assistant/react).`,
    );
  return value;
};
