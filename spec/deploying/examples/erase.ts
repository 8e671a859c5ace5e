import type { Host } from "elyra-assistant";
import type { EventStore } from "elyra-assistant/log";
import type { Member } from "./app.ts";

/**
 * Erases one window's conversation: closes it (its streams end, its memory
 * goes), then deletes its log. A user's windows are the client ids their
 * pages used: keep that list yourself if you erase by user.
 */
export const eraseWindow = async (
  host: Host,
  store: EventStore,
  clientId: string,
  user: Member,
): Promise<void> => {
  await host.closeWindow(clientId, { user }); // another user's window is refused
  await store.drop(`conversation/${clientId}`);
};
