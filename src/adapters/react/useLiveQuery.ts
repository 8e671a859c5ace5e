/** `useLiveQuery(command, args)`: a live query over the host's `/live` route, for as long as a component shows it. */
import { canonicalJson } from "../../runtime/calls/canonicalJson.ts";
import type { AssistantClient, LiveResult } from "../ui/client.ts";
import type { AssistantError } from "../ui/errors.ts";
import { useAssistantContext } from "./provider.ts";
import { React } from "./reactPeer.ts";

/** A live query's latest news. */
export interface LiveQueryState {
  /**
   * The last result: `{ _tag: "Result", value }` (the value encoded by the
   * command's result schema) or `{ _tag: "Failed", error }` (that run failed;
   * the query stays open). Undefined until the first arrives.
   */
  readonly result: LiveResult | undefined;
  /**
   * Why the stream dropped (it opens again by itself) or was refused (a
   * `HostError` that is not retryable: the query is over); cleared by the
   * next result.
   */
  readonly error: AssistantError | undefined;
}

const NOTHING_YET: LiveQueryState = Object.freeze({ result: undefined, error: undefined });

/**
 * Opens a live query of `command` on `args` through the provider's client
 * (`GET /live`) and renders each result as it changes. The query is closed
 * when the component unmounts, and closed and opened again when `command` or
 * `args` change: `args` are compared by their canonical JSON, so an object
 * written inline at each render does not reopen it. Nothing runs on a server.
 * Throws outside an `<AssistantProvider>`.
 *
 * @example
 * ```tsx
 * import { useLiveQuery } from "elyra-assistant/react";
 *
 * export function CustomerName({ id }: { id: number }) {
 *   const { result, error } = useLiveQuery("customers_show", { id });
 *   if (result?._tag === "Result") return <span>{(result.value as { name: string }).name}</span>;
 *   return <span>{result?._tag === "Failed" ? result.error : error ? "Offline" : "…"}</span>;
 * }
 * ```
 */
export const useLiveQuery = (command: string, args?: unknown): LiveQueryState => {
  const { client } = useAssistantContext("useLiveQuery()");
  const argsJson = args === undefined ? undefined : canonicalJson(args);
  const key = `${command}\n${argsJson ?? ""}`;
  // The news of one query: its client and key say which.
  const [shown, setShown] = React.useState<{
    readonly client: AssistantClient;
    readonly key: string;
    readonly state: LiveQueryState;
  }>({ client, key, state: NOTHING_YET });
  const ours = (was: typeof shown) => was.client === client && was.key === key;

  React.useEffect(() => {
    let open = true;
    // The arguments as the wire sends them anyway: their JSON.
    const sent: unknown = argsJson === undefined ? undefined : JSON.parse(argsJson);
    const close = client.live(
      command,
      sent,
      (result) => {
        if (open) setShown({ client, key, state: { result, error: undefined } });
      },
      (error) => {
        if (open)
          setShown((was) => ({
            client,
            key,
            state: { result: ours(was) ? was.state.result : undefined, error },
          }));
      },
    );
    return () => {
      open = false;
      close();
    };
  }, [client, command, argsJson, key]);

  // What the query before this one had is not shown for this one.
  return ours(shown) ? shown.state : NOTHING_YET;
};
