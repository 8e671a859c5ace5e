/**
 * A person's conversations as one JSON document (what they may ask for of
 * their data): each conversation their own stream names and whose log names
 * them too, every event as the log keeps it, written a page at a time.
 */
import type { EventStore } from "../../runtime/log/eventStore.ts";
import { conversationsOf, namesOwner, ownerNamed, pages } from "./userUsage.ts";
import { streamOf } from "./windowLog.ts";

/**
 * The document `host.export` writes, as text in pieces: `{"owner":…,
 * "exportedAt":…,"conversations":[{"clientId":…,"events":[…]},…]}`, each
 * piece at most a page of events, so its memory is a page's whatever the
 * person's history. A conversation whose log names someone else is left
 * out; on a store that keeps no log after a window closes, `open` (the
 * person's windows open on this host) is what there is.
 */
export async function* exportOfOwner(
  store: EventStore,
  owner: string,
  exportedAt: number,
  open: Iterable<string>,
): AsyncGenerator<string> {
  const ids = await conversationsOf(store, owner, open);
  yield `{"owner":${JSON.stringify(owner)},"exportedAt":${JSON.stringify(new Date(exportedAt).toISOString())},"conversations":[`;
  let first = true;
  for (const clientId of ids) {
    // Read whole before a byte of it is written: a log that names another owner is not theirs.
    let named: string | undefined;
    for await (const page of pages(store, streamOf(clientId))) named = ownerNamed(page, named);
    if (!namesOwner(store, named, owner)) continue;
    yield `${first ? "" : ","}{"clientId":${JSON.stringify(clientId)},"events":[`;
    first = false;
    let firstPage = true;
    for await (const page of pages(store, streamOf(clientId))) {
      yield `${firstPage ? "" : ","}${page.map((event) => JSON.stringify(event)).join(",")}`;
      firstPage = false;
    }
    yield "]}";
  }
  yield "]}\n";
}
